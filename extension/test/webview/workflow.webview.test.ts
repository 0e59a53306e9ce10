/// <reference lib="dom" />
/**
 * What a user notices while working with the chat: approvals that come into
 * view and answer by key, one readable line per tool call, a tree the
 * keyboard can walk, a composer that survives a narrow side bar, a transcript
 * that opens at the latest turn, and an interrupted turn that keeps its work.
 */
import assert from 'node:assert/strict';
import type { ExecutionTreeNode, ToolInfo } from '@arbor/protocol';
import type { HostMessage, TranscriptTurn } from '../../src/shared/messages.js';
import { msg, node } from '../fixtures/builders.js';
import { browserAvailable, openWebview, type Harness } from './harness.js';

/** A finished stored turn with one read and a few lines of answer: history to scroll through. */
function storedTurn(i: number): TranscriptTurn {
  const id = `old${i}`;
  return {
    turnId: id,
    userText: `Question ${i}`,
    texts: [{ nodeId: id, text: `Answer ${i}.\n\nSecond paragraph of answer ${i}.` }],
    tree: {
      version: 1,
      nodes: [
        node(id, null, { status: 'done' }),
        node(`${id}.r`, id, { status: 'done', argsPreview: `{"path":"f${i}.ts"}` }),
      ],
    },
    status: 'complete',
  };
}

const history = (n: number): HostMessage =>
  msg.session({ turns: Array.from({ length: n }, (_, i) => storedTurn(i)) });

const tool = (name: string, category: ToolInfo['category'], props: string[]): ToolInfo => ({
  name,
  description: name,
  category,
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(props.map((p) => [p, { type: 'string' }])),
    required: props.slice(0, 1),
  },
  parallelSafe: category === 'read',
  origin: 'daemon',
});

const TOOLS: HostMessage = {
  type: 'tools',
  tools: [
    tool('read_file', 'read', ['path']),
    tool('apply_edit', 'write', ['path', 'oldText', 'newText']),
    tool('write_file', 'write', ['path', 'content']),
    tool('run_command', 'execute', ['command']),
  ],
};

/** A running turn whose edit waits for approval, after a long history. */
function awaitingEdit(): HostMessage[] {
  const edit: Partial<ExecutionTreeNode> = {
    name: 'apply_edit',
    status: 'awaiting_approval',
    argsPreview: JSON.stringify({ path: 'REVIEW.md', newText: '# Review\n\n- one\n- two\n' }),
  };
  return [
    TOOLS,
    msg.turnStarted('t1', 'write the review'),
    msg.running('t1'),
    msg.tree('t1', node('t1', null), node('e1', 't1', edit)),
    msg.requiresAction('t1'),
    msg.approval({
      turnId: 't1',
      toolCallId: 'c1',
      nodeId: 'e1',
      args: { path: 'REVIEW.md', newText: '# Review\n\n- one\n- two\n' },
    }),
  ];
}

/** Is the element's whole box inside the transcript's visible area? */
async function whollyInTranscript(h: Harness, selector: string): Promise<boolean> {
  return h.page.evaluate((sel) => {
    const el = document.querySelector(sel)!.getBoundingClientRect();
    const view = document.querySelector('.transcript')!.getBoundingClientRect();
    return el.top >= view.top - 1 && el.bottom <= view.bottom + 1 && el.height > 0;
  }, selector);
}

describe('working in the chat webview', function () {
  this.timeout(60_000);
  let h: Harness | undefined;

  before(function () {
    if (!browserAvailable()) this.skip();
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function open(options: Parameters<typeof openWebview>[0] = {}): Promise<Harness> {
    h = await openWebview(options);
    await h.send(msg.connection('ready'));
    return h;
  }

  it('a new approval comes wholly into view, takes the keyboard and answers by key', async () => {
    const h = await open({ height: 600 });
    await h.send(history(25), ...awaitingEdit());
    await h.settle();
    assert.ok(await whollyInTranscript(h, '.approval-card'), 'the approval is fully visible');
    assert.equal(
      await h.page.evaluate(() => !!document.activeElement?.closest('.approval-card')),
      true,
      'the keyboard is on the approval',
    );
    await h.page.keyboard.press('2');
    assert.deepEqual((await h.posted()).at(-1), {
      type: 'approve',
      turnId: 't1',
      toolCallId: 'c1',
      decision: 'allowForSession',
    });
  });

  it('Escape on an approval denies it without cancelling the turn; the dock answers too', async () => {
    const h = await open();
    await h.send(...awaitingEdit(), msg.approval({ turnId: 't1', toolCallId: 'c2', nodeId: 'x' }));
    const dock = h.page.locator('.approval-dock');
    assert.equal(await dock.isVisible(), true);
    assert.match(await dock.innerText(), /Allow apply_edit\? \(\+1 more\)/);
    await h.page.keyboard.press('Escape');
    const posted = await h.posted();
    assert.deepEqual(posted.at(-1), {
      type: 'approve',
      turnId: 't1',
      toolCallId: 'c1',
      decision: 'deny',
    });
    assert.equal(posted.filter((m) => m.type === 'cancel').length, 0);
    // The next approval waits in the dock; Reject there answers it.
    await h.page.locator('.dock-reject').click();
    assert.deepEqual((await h.posted()).at(-1), {
      type: 'approve',
      turnId: 't1',
      toolCallId: 'c2',
      decision: 'deny',
    });
    await h.send(msg.approvalResolved('t1', 'c1', 'rejected'), msg.approvalResolved('t1', 'c2'));
    assert.equal(await dock.isVisible(), false);
  });

  it('an edit approval shows its diff rendered, the arguments once, and opens the full diff', async () => {
    const h = await open();
    await h.send(...awaitingEdit());
    const card = h.page.locator('.approval-card');
    assert.deepEqual(await card.locator('.diff-line.added .diff-text').allInnerTexts(), [
      '# Review',
      '',
      '- one',
      '- two',
    ]);
    const text = await h.page.locator('.card[data-node-id="e1"]').innerText();
    assert.ok(!text.includes('\\n'), 'no escaped newlines anywhere');
    assert.equal(text.split('# Review').length - 1, 1, 'the new text is shown once');
    await card.locator('.show-diff').click();
    assert.deepEqual((await h.posted()).at(-1), {
      type: 'showDiff',
      turnId: 't1',
      toolCallId: 'c1',
    });
  });

  it('one collapsed line per call: verb, target and outcome; arguments pretty on expand', async () => {
    const h = await open();
    const lines = Array.from({ length: 42 }, (_, i) => `line ${i}`).join('\n');
    await h.send(
      msg.session(),
      TOOLS,
      msg.turnStarted('t1', 'review it'),
      msg.running('t1'),
      msg.tree(
        't1',
        node('t1', null),
        node('r', 't1', {
          status: 'done',
          argsPreview: '{"path":"src/convert.js"}',
          resultPreview: lines,
        }),
        node('e', 't1', {
          name: 'apply_edit',
          status: 'done',
          argsPreview: JSON.stringify({
            path: 'REVIEW.md',
            oldText: 'a',
            newText: 'a\n1\n2\n3\n4\n5',
          }),
        }),
        node('c', 't1', {
          name: 'run_command',
          status: 'error',
          isError: true,
          argsPreview: '{"command":"npm test"}',
          resultPreview: 'exit code 1\n1 failing',
        }),
      ),
    );
    const header = (id: string) =>
      h.page.locator(`[data-node-id="${id}"] > .card-header`).innerText();
    const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
    assert.equal(squash(await header('r')), 'Read src/convert.js 42 lines');
    assert.equal(squash(await header('e')), 'Edit REVIEW.md +5 −0 write');
    assert.equal(squash(await header('c')), 'Run npm test exit 1 execute');
    assert.equal(await h.page.locator('.card[aria-expanded="true"]').count(), 0);
    await h.page.locator('[data-node-id="r"] > .card-header').click();
    assert.equal(
      await h.page.locator('[data-node-id="r"] .preview-args pre').innerText(),
      '{\n  "path": "src/convert.js"\n}',
    );
  });

  it('a denial reads as the user’s decision, not as a failure', async () => {
    const h = await open();
    await h.send(
      msg.session(),
      TOOLS,
      msg.turnStarted('t1', 'x'),
      msg.running('t1'),
      msg.tree(
        't1',
        node('t1', null),
        node('w', 't1', {
          name: 'write_file',
          status: 'denied',
          approval: 'rejected',
          isError: true,
          argsPreview: '{"path":"notes.md","content":"x"}',
          resultPreview: 'The user denied write_file. Do not retry it; ask what to do instead.',
        }),
      ),
    );
    const card = h.page.locator('[data-node-id="w"]');
    assert.equal(await card.locator('.card-outcome').innerText(), 'Denied by you');
    assert.equal(await card.evaluate((el) => el.classList.contains('is-error')), false);
    await card.locator('.card-header').click();
    assert.ok(
      !(await card.innerText()).includes('Do not retry'),
      'the model’s message stays hidden',
    );
  });

  it('"Always allow" shows the rule it saves, answers by its key, and the cards name the rules that decided', async () => {
    const h = await open();
    await h.send(
      msg.session(),
      TOOLS,
      msg.turnStarted('t1', 'x'),
      msg.running('t1'),
      msg.tree(
        't1',
        node('t1', null),
        node('c', 't1', {
          name: 'run_command',
          status: 'awaiting_approval',
          argsPreview: '{"command":"npm test -- --watch"}',
        }),
        node('rm', 't1', {
          name: 'run_command',
          status: 'denied',
          approval: 'rejected',
          isError: true,
          argsPreview: '{"command":"rm -rf dist"}',
          rule: { effect: 'deny', rule: 'run_command(rm:*)', source: 'workspace' },
        }),
        node('ls', 't1', {
          name: 'run_command',
          status: 'done',
          approval: 'not_required',
          argsPreview: '{"command":"ls"}',
          rule: { effect: 'allow', rule: 'run_command(ls:*)', source: 'remembered' },
        }),
      ),
      msg.requiresAction('t1'),
      msg.approval({
        turnId: 't1',
        toolCallId: 'c1',
        nodeId: 'c',
        name: 'run_command',
        category: 'execute',
        args: { command: 'npm test -- --watch' },
        suggestedRule: 'run_command(npm test:*)',
      }),
    );
    await h.settle();
    const always = h.page.locator('.approval-card button[data-decision="allowAlways"]');
    assert.match(await always.innerText(), /3\s*Always allow\s*run_command\(npm test:\*\)/);
    assert.equal(
      await h.page.locator('.approval-card button[data-decision="deny"] .key-hint').innerText(),
      '4',
    );
    await h.page.locator('.approval-card').focus();
    await h.page.keyboard.press('3');
    assert.deepEqual((await h.posted()).at(-1), {
      type: 'approve',
      turnId: 't1',
      toolCallId: 'c1',
      decision: 'allowAlways',
    });
    assert.equal(
      await h.page.locator('[data-node-id="rm"] .card-outcome').innerText(),
      'Denied by rule run_command(rm:*)',
    );
    assert.match(
      await h.page.locator('[data-node-id="ls"]').innerText(),
      /allowed by a saved rule run_command\(ls:\*\)/,
    );
  });

  it("typing / offers the session's commands; a key takes one, Escape closes the list without cancelling", async () => {
    const h = await open();
    await h.send(msg.session(), {
      type: 'commands',
      commands: [
        {
          name: 'review',
          kind: 'command',
          source: 'workspace',
          description: 'Review a file',
          argumentHint: '<file>',
        },
        { name: 'release', kind: 'command', source: 'user', description: 'Cut a release' },
        { name: 'pdf-forms', kind: 'skill', source: 'user', description: 'Fill PDF forms' },
      ],
    });
    const input = h.page.locator('.composer-input');
    await input.focus();
    await h.page.keyboard.type('/re');
    const menu = h.page.getByRole('listbox', { name: 'Commands' });
    assert.deepEqual(
      await menu
        .getByRole('option')
        .allInnerTexts()
        .then((t) => t.map((x) => x.split(/\s/)[0])),
      ['/review', '/release'],
    );
    assert.match(await menu.innerText(), /<file>[\s\S]*Review a file/);
    await h.page.keyboard.press('ArrowDown');
    await h.page.keyboard.press('Enter');
    assert.equal(await input.inputValue(), '/release ');
    assert.equal(await menu.isVisible(), false, 'the list closes once the name is complete');
    assert.ok(
      !(await h.posted()).some((m) => m.type === 'send'),
      'Enter took the command; nothing was sent',
    );
    await input.fill('');
    await h.page.keyboard.type('/rev');
    await h.page.keyboard.press('Escape');
    assert.equal(await menu.isVisible(), false);
    assert.ok(!(await h.posted()).some((m) => m.type === 'cancel'), 'Escape did not cancel');
    await h.page.keyboard.type('i');
    assert.equal(await menu.isVisible(), true, 'typing on opens it again');
  });

  it('the tree follows the WAI-ARIA pattern: roles, levels, one Tab stop, arrow keys', async () => {
    const h = await open();
    await h.send(
      msg.session(),
      msg.turnStarted('t1', 'x'),
      msg.running('t1'),
      msg.tree(
        't1',
        node('t1', null),
        node('a', 't1', { status: 'done', argsPreview: '{"path":"a"}', resultPreview: 'x' }),
        node('s', 't1', { kind: 'subtask', name: 'run_subtask', title: 'Sub' }),
        node('s.1', 's', { depth: 1, status: 'done' }),
        node('b', 't1', { status: 'done' }),
      ),
    );
    const tree = h.page.getByRole('tree', { name: 'Tool calls' });
    assert.equal(await tree.getByRole('treeitem').count(), 3, 'collapsed children are not drawn');
    assert.equal(await tree.locator('[role="treeitem"][tabindex="0"]').count(), 1);
    assert.equal(await h.page.locator('[data-node-id="s"]').getAttribute('aria-level'), '1');
    const focused = () =>
      h.page.evaluate(() => document.activeElement?.getAttribute('data-node-id') ?? null);
    await h.page.locator('[data-node-id="a"]').focus();
    await h.page.keyboard.press('ArrowDown');
    assert.equal(await focused(), 's');
    await h.page.keyboard.press('ArrowRight');
    await h.settle();
    assert.equal(await h.page.locator('[data-node-id="s"]').getAttribute('aria-expanded'), 'true');
    await h.page.keyboard.press('ArrowRight');
    assert.equal(await focused(), 's.1');
    assert.equal(await h.page.locator('[data-node-id="s.1"]').getAttribute('aria-level'), '2');
    await h.page.keyboard.press('ArrowLeft');
    assert.equal(await focused(), 's');
    await h.page.keyboard.press('End');
    assert.equal(await focused(), 'b');
    await h.page.keyboard.press('Home');
    assert.equal(await focused(), 'a');
    // Tab leaves the tree: the open card's JSON blocks are no Tab stops.
    await h.page.keyboard.press('Enter');
    await h.settle();
    assert.equal(await h.page.locator('[data-node-id="a"] pre').count(), 2);
    await h.page.keyboard.press('Tab');
    assert.equal(
      await h.page.evaluate(() => document.activeElement?.tagName === 'PRE'),
      false,
      'a JSON block took the Tab',
    );
    // Escape on a card cancels the running turn, as in the composer.
    await h.page.locator('[data-node-id="b"]').focus();
    await h.page.keyboard.press('Escape');
    assert.deepEqual((await h.posted()).at(-1), { type: 'cancel' });
  });

  it('Enter during a turn says why nothing was sent and keeps the message', async () => {
    const h = await open();
    await h.send(msg.session(), msg.turnStarted('t1', 'x'), msg.running('t1'));
    const input = h.page.locator('.composer-input');
    await input.fill('and also this');
    await input.press('Enter');
    await h.settle();
    assert.equal(await input.inputValue(), 'and also this');
    assert.match(
      await h.page.locator('.composer-hint').innerText(),
      /A turn is running: press Escape to cancel it/,
    );
    assert.equal((await h.posted()).filter((m) => m.type === 'send').length, 0);
    assert.match((await h.page.locator('.send').getAttribute('title')) ?? '', /Escape to cancel/);
    await h.send(msg.ended('t1'));
    assert.equal(await h.page.locator('.composer-hint').isVisible(), false);
  });

  it('at a 170 px side bar Send and Cancel stay visible and subtask titles ellipsize', async () => {
    const h = await open({ width: 170, height: 600 });
    await h.send(
      msg.session(),
      {
        type: 'models',
        models: ['anthropic:claude-sonnet-4-5'],
        current: 'anthropic:claude-sonnet-4-5',
        inPlace: true,
      },
      msg.turnStarted('t1', 'x'),
      msg.running('t1'),
      msg.tree(
        't1',
        node('t1', null),
        node('s', 't1', {
          kind: 'subtask',
          name: 'run_subtask',
          title: 'Survey the daemon and its many modules carefully',
          durationMs: 12_345,
        }),
      ),
    );
    for (const selector of ['.send', '.cancel']) {
      const box = (await h.page.locator(selector).boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= 170, `${selector} at ${box.x}+${box.width}`);
    }
    const label = h.page.locator('[data-node-id="s"] .card-label');
    const fits = await label.evaluate((el) => ({
      width: el.getBoundingClientRect().width,
      cut: el.scrollWidth > el.clientWidth,
      right: el.getBoundingClientRect().right,
    }));
    assert.ok(fits.width >= 20, `title ${fits.width}px wide`);
    assert.ok(fits.cut && fits.right <= 170, 'the title is cut with an ellipsis inside the view');
  });

  it('a reloaded or switched session opens at its latest turn', async () => {
    const h = await open({ height: 500 });
    await h.send(history(30));
    await h.settle();
    assert.ok(await whollyInTranscript(h, '.turn:last-of-type .turn-footer'));
    // Scrolled up, then another chat: it opens at its end too.
    await h.page.locator('.transcript').evaluate((el) => (el.scrollTop = 0));
    await h.page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
    await h.send(
      msg.session({
        sessionId: 'ses_other',
        turns: [
          storedTurn(1),
          storedTurn(2),
          ...Array.from({ length: 20 }, (_, i) => storedTurn(i + 3)),
        ],
      }),
    );
    await h.settle();
    assert.ok(await whollyInTranscript(h, '.turn:last-of-type .turn-footer'));
  });

  it('cards the user opened stay open after a reload', async () => {
    let h = await open();
    await h.send(history(2));
    await h.page.locator('[data-node-id="old1.r"] > .card-header').click();
    await h.settle();
    const state = await h.state();
    await h.close();
    h = await open({ state });
    await h.send(history(2));
    assert.equal(
      await h.page.locator('[data-node-id="old1.r"]').getAttribute('aria-expanded'),
      'true',
    );
    assert.equal(
      await h.page.locator('[data-node-id="old0.r"]').getAttribute('aria-expanded'),
      'false',
    );
  });

  it('running calls spin unless the user asked for less motion', async () => {
    const spin = async (reducedMotion: boolean) => {
      const h = await open({ reducedMotion });
      await h.send(
        msg.session(),
        msg.turnStarted('t1', 'x'),
        msg.running('t1'),
        msg.tree('t1', node('t1', null), node('r', 't1', { status: 'running' })),
      );
      const name = await h.page
        .locator('[data-node-id="r"] .card-status .codicon')
        .evaluate((el) => getComputedStyle(el).animationName);
      await h.close();
      return name;
    };
    assert.equal(await spin(false), 'arbor-spin');
    assert.equal(await spin(true), 'none');
  });

  it('one New chat (the view title’s), connection errors look like errors', async () => {
    const h = await open();
    await h.send(msg.session());
    assert.equal(await h.page.locator('button[aria-label="New chat"]').count(), 0);
    await h.send(
      msg.connection('restarting', 'connect ECONNREFUSED 127.0.0.1:7420. Restarting in 1 s…'),
    );
    assert.equal(await h.page.locator('.banner').getAttribute('data-level'), 'error');
  });

  it('the history shows when each chat was used and filters by title', async () => {
    const h = await open();
    const now = new Date();
    await h.send(msg.session(), {
      type: 'sessions',
      sessions: [
        {
          sessionId: 'ses_test',
          title: 'Fix the parser',
          updatedAt: now.toISOString(),
          state: 'idle',
        },
        {
          sessionId: 'ses_b',
          title: 'Review the docs',
          updatedAt: '2024-03-12T10:00:00Z',
          state: 'idle',
        },
      ],
      currentId: 'ses_test',
    });
    await h.page.locator('button[aria-label="Chat history"]').click();
    assert.deepEqual(await h.page.locator('.history-date').allInnerTexts(), [
      `Today ${now.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' })}`,
      '12 Mar 2024',
    ]);
    await h.page.getByRole('searchbox', { name: 'Search chats' }).fill('docs');
    assert.deepEqual(await h.page.locator('.history-title').allInnerTexts(), ['Review the docs']);
    await h.page.keyboard.press('Escape');
    assert.equal(await h.page.locator('.history').isVisible(), false, 'Escape closes the history');
  });

  it('an interrupted turn keeps its work, says why, and Retry sends the prompt again', async () => {
    const h = await open();
    await h.send(
      msg.session(),
      msg.turnStarted('t1', 'fix the bug'),
      msg.running('t1'),
      msg.tree('t1', node('t1', null), node('r', 't1', { status: 'done' })),
      msg.text('t1', 't1', 'Looking at the parser.'),
      { type: 'turnInterrupted', reason: 'The Arbor daemon stopped unexpectedly.' },
    );
    const turn = h.page.locator('.turn');
    assert.equal(await turn.getAttribute('data-status'), 'interrupted');
    assert.equal(await turn.locator('.card').count(), 1);
    assert.match(await turn.innerText(), /Looking at the parser\./);
    assert.match(
      await turn.locator('.turn-interrupted').innerText(),
      /The Arbor daemon stopped unexpectedly/,
    );
    await turn.locator('.retry').click();
    assert.deepEqual((await h.posted()).at(-1), {
      type: 'retry',
      turnId: 't1',
      text: 'fix the bug',
    });
  });
});
