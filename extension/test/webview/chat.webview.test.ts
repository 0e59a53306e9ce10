/// <reference lib="dom" />
/**
 * The built chat webview in headless Chromium, fed recorded and built event
 * streams by a stub host. Screenshots land in extension/test-results/.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostMessage } from '../../src/shared/messages.js';
import { msg, nestedTurn, node } from '../fixtures/builders.js';
import { EXT, browserAvailable, openWebview, type Harness } from './harness.js';

interface Recording {
  live: HostMessage[];
  reload: HostMessage;
}
const recording = JSON.parse(
  readFileSync(join(EXT, 'test', 'fixtures', 'streams', 'nested-subtasks.json'), 'utf8'),
) as Recording;

describe('chat webview in headless Chromium', function () {
  this.timeout(60_000);
  let h: Harness;

  before(function () {
    if (!browserAvailable()) {
      console.warn(
        '    (skipped: no /usr/bin/chromium or no built webview; CI=true makes this a failure)',
      );
      this.skip();
    }
  });
  beforeEach(async () => {
    h = await openWebview();
    await h.send(msg.connection('ready'), msg.session());
  });
  afterEach(async () => {
    await h?.close();
  });

  it('says ready to the host on load', async () => {
    assert.deepEqual((await h.posted())[0], { type: 'ready' });
  });

  it('draws before its validator loads; what the host sent meanwhile is applied after, in order', async () => {
    const held = await openWebview({ holdValidator: true });
    try {
      // The first paint: the composer is there without the validator (zod, the schemas).
      assert.equal(await held.page.evaluate(() => 'arborValidator' in window), false);
      assert.equal(await held.page.locator('textarea.composer-input').count(), 1);
      await held.send(msg.connection('ready'), msg.session());
      for (const m of recording.live)
        await held.page.evaluate((x) => window.postMessage(x, '*'), m);
      await held.settle();
      assert.equal(await held.page.locator('.turn').count(), 0, 'nothing applied unvalidated');
      await held.releaseValidator();
      assert.equal(await held.page.locator('.turn').count(), 1);
      assert.deepEqual(
        await held.page.evaluate(cardOutline, await held.page.locator('.activity').elementHandle()),
        await (async () => {
          for (const m of recording.live)
            await h.page.evaluate((x) => window.postMessage(x, '*'), m);
          await h.settle();
          return h.page.evaluate(cardOutline, await h.page.locator('.activity').elementHandle());
        })(),
        'the same tree as a webview that validated each message on arrival',
      );
    } finally {
      await held.close();
    }
  });

  it('replays a recorded turn with parallel subtasks as nested cards', async () => {
    for (const m of recording.live) await h.page.evaluate((x) => window.postMessage(x, '*'), m);
    await h.settle();
    const p = h.page;
    assert.equal(await p.locator('.turn').count(), 1);
    assert.equal(
      await p.locator('.user-message').innerText(),
      'Survey the repository and rate the risk.',
    );
    // Three subtasks and two memory tools at depth 0, in arrival order.
    const top = p.locator('.activity > .card');
    assert.equal(await top.count(), 5);
    assert.deepEqual(await top.locator(':scope > .card-header .card-label').allInnerTexts(), [
      'Survey the daemon',
      'Survey the client',
      'Rate the risk',
      'List memory',
      'Read memory',
    ]);
    // Every card starts collapsed, one line each; a click opens one.
    assert.deepEqual(
      await top.evaluateAll((els) => els.map((el) => el.getAttribute('aria-expanded'))),
      ['false', 'false', 'false', 'false', 'false'],
    );
    const client = top.nth(1);
    await client.locator(':scope > .card-header').click();
    await h.settle();
    assert.equal(await client.getAttribute('aria-expanded'), 'true');
    const child = client.locator('.card-children > .card').first();
    assert.equal(await child.getAttribute('data-status'), 'error');
    assert.equal(await child.getAttribute('aria-expanded'), 'false');
    assert.match(
      await client.locator(':scope > .card-body > .card-text').innerText(),
      /chat view with nested tool-call cards/,
    );
    // The error state of a failed top-level tool.
    assert.equal(await top.nth(4).getAttribute('data-status'), 'error');
    assert.ok(await top.nth(4).evaluate((el) => el.classList.contains('is-error')));
    // Answer, status and cost.
    assert.match(await p.locator('.answer').innerText(), /Summary: the daemon routes/);
    assert.match(
      await p.locator('.turn-footer').innerText(),
      /Done · 2,910 in · 277 out · \$0\.00/,
    );
    // Expanding a collapsed card by keyboard shows its previews.
    await child.focus();
    await p.keyboard.press('Enter');
    await h.settle();
    assert.equal(await child.getAttribute('aria-expanded'), 'true');
    assert.match(await child.locator('.preview-result').innerText(), /no_such_tool|unknown|not/i);
    await h.screenshot('nested-subtasks-live');
  });

  it('rebuilds the same tree from the stored snapshot after a reload', async () => {
    for (const m of recording.live) await h.page.evaluate((x) => window.postMessage(x, '*'), m);
    await h.settle();
    const liveTree = await h.page.locator('.activity').evaluate(cardOutline);
    const liveAnswer = await h.page.locator('.answer').innerText();
    await h.close();
    h = await openWebview();
    await h.send(msg.connection('ready'), recording.reload);
    assert.deepEqual(await h.page.locator('.activity').evaluate(cardOutline), liveTree);
    assert.equal(await h.page.locator('.answer').innerText(), liveAnswer);
    assert.equal(await h.page.locator('.turn').getAttribute('data-status'), 'complete');
    await h.screenshot('nested-subtasks-reloaded');
  });

  it('draws a session from session/load exactly as the live turn: the same DOM', async () => {
    for (const m of recording.live) await h.page.evaluate((x) => window.postMessage(x, '*'), m);
    await h.settle();
    const live = await h.page.locator('.transcript').evaluate(transcriptDom);
    // What the user saw live: text between the cards in the order it streamed,
    // the subtasks' own text, the answer after the last card, and the cost.
    assert.deepEqual(
      await h.page
        .locator('.activity > *')
        .evaluateAll((els) =>
          els.map((el) =>
            el.classList.contains('interim') ? 'text' : el.getAttribute('aria-label'),
          ),
        ),
      [
        'text',
        'Subtask: Survey the daemon, done',
        'Subtask: Survey the client, done',
        'Subtask: Rate the risk, done',
        'text',
        'List memory, 3 entries, done',
        'Read memory notes, No memory entry "notes". Existing keys: task:n3, task:n2, task:n1., failed',
      ],
    );
    assert.match(
      await h.page.locator('.activity > .interim').nth(1).innerText(),
      /Let me collect what the subtasks stored/,
    );
    const daemon = h.page.locator('[aria-label="Subtask: Survey the daemon, done"]');
    await daemon.locator('.card-header').click();
    await h.settle();
    assert.match(await daemon.locator('.card-text').innerText(), /The daemon has a server/);
    // A subtask's result is the text it wrote: shown once.
    assert.equal(await daemon.locator('.preview-result').isVisible(), false);
    assert.equal(
      (await daemon.innerText()).split('The daemon has a server').length - 1,
      1,
      'the subtask text appears once',
    );
    assert.match(await h.page.locator('.turn-footer').innerText(), /277 out · \$0\.00/);
    await h.close();

    h = await openWebview();
    await h.send(msg.connection('ready'), recording.reload);
    assert.equal(await h.page.locator('.transcript').evaluate(transcriptDom), live);
  });

  it('tool cards show the call’s category and subject from the tool catalogue', async () => {
    const tool = (name: string, category: 'read' | 'write', required: string[]) => ({
      name,
      description: name,
      category,
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required,
      },
      parallelSafe: category === 'read',
      origin: 'daemon',
    });
    await h.send(
      {
        type: 'tools',
        tools: [
          tool('read_file', 'read', ['path']),
          tool('write_file', 'write', ['path', 'content']),
        ],
      },
      msg.turnStarted('t1', 'note it'),
      msg.running('t1'),
      msg.tree(
        't1',
        node('t1', null),
        node('r', 't1', { argsPreview: '{"path":"src/a.ts"}' }),
        node('w', 't1', { name: 'write_file', argsPreview: '{"path":"notes.md","content":"x"}' }),
        node('u', 't1', { name: 'mystery_tool', argsPreview: '{"q":1}' }),
      ),
    );
    const header = (id: string) => h.page.locator(`[data-node-id="${id}"] > .card-header`);
    assert.equal(await header('r').locator('.card-about').innerText(), 'src/a.ts');
    assert.equal(
      await header('r').locator('.card-category').innerText(),
      '',
      'read calls always run',
    );
    assert.equal(await header('w').locator('.card-about').innerText(), 'notes.md');
    assert.equal(await header('w').locator('.card-category').innerText(), 'write');
    assert.equal(await h.page.locator('[data-node-id="w"]').getAttribute('data-category'), 'write');
    // A tool the catalogue does not know keeps its raw preview in the body only.
    assert.equal(await header('u').locator('.card-about').innerText(), '');
    assert.equal(await h.page.locator('[data-node-id="u"]').getAttribute('data-category'), null);
  });

  it("a running command's output shows live in its card, and stays when it ends", async () => {
    const command = { name: 'run_command', argsPreview: '{"command":"npm test"}' };
    await h.send(
      msg.turnStarted('t1', 'run the tests'),
      msg.running('t1'),
      msg.tree(
        't1',
        node('t1', null),
        node('c', 't1', { ...command, status: 'running', output: '> vitest run\n' }),
      ),
    );
    await h.page.locator('[data-node-id="c"] > .card-header').click();
    const output = h.page.locator('[data-node-id="c"] .preview-output');
    assert.equal(await output.locator('.preview-title').textContent(), 'Output (live)');
    assert.equal(await output.locator('pre').textContent(), '> vitest run\n');
    await h.send(
      msg.tree(
        't1',
        node('c', 't1', {
          ...command,
          status: 'done',
          output: '> vitest run\n ✓ 20 tests passed\n',
        }),
      ),
    );
    assert.equal(await output.locator('.preview-title').textContent(), 'Output');
    assert.match(await output.locator('pre').innerText(), /✓ 20 tests passed/);
  });

  it('the composer shows how full the context window is after the latest turn, warning near the limit', async () => {
    const meter = h.page.locator('.composer .context-use');
    const usage = { inputTokens: 1, outputTokens: 1 };
    await h.send({
      type: 'cost',
      turnId: 'c1',
      cost: 0.01,
      usage,
      context: { tokens: 41_382, window: 200_000 },
    });
    assert.equal(await meter.innerText(), '41k / 200k context');
    assert.equal(
      await meter.getAttribute('title'),
      'Context window: 41,382 of 200,000 tokens used (21 %)',
    );
    assert.equal(await meter.getAttribute('data-level'), null);
    await h.send({
      type: 'cost',
      turnId: 'c2',
      cost: 0.02,
      usage,
      context: { tokens: 171_000, window: 200_000 },
    });
    assert.equal(await meter.innerText(), '171k / 200k context');
    assert.equal(await meter.getAttribute('data-level'), 'high');
  });

  it('tool servers that are not ready are named with why; ready ones are not', async () => {
    await h.send({
      type: 'tools',
      tools: [],
      servers: [
        { origin: 'mcp:docs', status: 'ready', toolCount: 3 },
        { origin: 'mcp:browser', status: 'error', message: 'command not found' },
        { origin: 'mcp:repo', status: 'disabled', message: '.arbor/mcp.json is not trusted' },
      ],
    });
    const lines = h.page.locator('.tool-servers .tool-server');
    assert.equal(await lines.count(), 2);
    assert.equal(await lines.nth(0).getAttribute('data-origin'), 'mcp:browser');
    assert.equal(await lines.nth(0).innerText(), 'mcp:browser\nfailed\ncommand not found');
    assert.match(
      await lines.nth(1).innerText(),
      /mcp:repo\s+not started\s+\.arbor\/mcp\.json is not trusted/,
    );
    // Another session whose servers are all ready: the line goes away.
    await h.send({ type: 'tools', tools: [], servers: [{ origin: 'mcp:docs', status: 'ready' }] });
    assert.equal(await h.page.locator('.tool-servers').isVisible(), false);
  });

  it('model picker: a pick asks the host; the label says whether the chat goes on', async () => {
    await h.send({
      type: 'models',
      models: ['openai:gpt-4.1', 'anthropic:claude-sonnet-4-5'],
      current: 'openai:gpt-4.1',
      inPlace: true,
    });
    const picker = h.page.locator('.model-select');
    assert.equal(
      await picker.getAttribute('aria-label'),
      'Model (from the next turn of this chat)',
    );
    await picker.selectOption('anthropic:claude-sonnet-4-5');
    await h.settle();
    assert.deepEqual((await h.posted()).at(-1), {
      type: 'setModel',
      model: 'anthropic:claude-sonnet-4-5',
    });
    assert.equal(
      await picker.inputValue(),
      'openai:gpt-4.1',
      'the session’s model until the daemon says',
    );
    await h.send({
      type: 'models',
      models: ['openai:gpt-4.1'],
      current: 'openai:gpt-4.1',
      inPlace: false,
    });
    assert.equal(await picker.getAttribute('aria-label'), 'Model (starts a new chat)');
  });

  it('streams markdown safely, with copy buttons on code blocks', async () => {
    await h.send(
      msg.turnStarted('t1', 'hi'),
      msg.running('t1'),
      msg.tree('t1', node('t1', null)),
      msg.text(
        't1',
        't1',
        'Here **bold** <img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>\n\n```js\nconsole.log(1)\n```\n',
      ),
    );
    const answer = h.page.locator('.answer');
    assert.equal(await answer.locator('strong').innerText(), 'bold');
    assert.equal(await answer.locator('img, script').count(), 0);
    assert.equal(
      await h.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
      undefined,
    );
    await answer.locator('.copy-code').click();
    const posted = await h.posted();
    assert.deepEqual(posted.at(-1), { type: 'copy', text: 'console.log(1)\n' });
  });

  it('queues approvals inline, answers one, closes one resolved elsewhere', async () => {
    await h.send(
      msg.turnStarted('t1', 'edit two files'),
      msg.running('t1'),
      msg.tree(
        't1',
        node('t1', null),
        node('s1', 't1', { kind: 'subtask', name: 'run_subtask', title: 'Edit', depth: 0 }),
      ),
      msg.tree(
        't1',
        node('e1', 's1', { name: 'apply_edit', depth: 1, status: 'awaiting_approval' }),
        node('e2', 's1', { name: 'apply_edit', depth: 1, status: 'awaiting_approval' }),
      ),
      msg.requiresAction('t1'),
      msg.approval({ turnId: 't1', toolCallId: 'c1', nodeId: 'e1' }),
      msg.approval({
        turnId: 't1',
        toolCallId: 'c2',
        nodeId: 'e2',
        name: 'apply_edit',
        args: { path: 'b.ts', newText: 'y' },
      }),
      msg.approval({
        turnId: 't1',
        toolCallId: 'c3',
        nodeId: 'unknown-node',
        name: 'run_command',
        category: 'execute',
        args: { command: 'rm -rf build' },
      }),
    );
    const cards = h.page.locator('.approval-card');
    assert.equal(await cards.count(), 3);
    // Inline at the tool cards (their collapsed parents were expanded to show them).
    assert.equal(await h.page.locator('.card[data-node-id="e1"] .approval-card').count(), 1);
    assert.equal(await h.page.locator('.card[data-node-id="e2"] .approval-card').count(), 1);
    assert.equal(await h.page.locator('.turn-approvals .approval-card').count(), 1);
    assert.equal(await h.page.locator('.card[data-node-id="e1"] .show-diff').count(), 1);
    await h.screenshot('approvals-queued');
    await h.page
      .locator('.card[data-node-id="e1"] button[data-decision="allowForSession"]')
      .click();
    await h.page.locator('.card[data-node-id="e1"] .show-diff').click();
    const posted = await h.posted();
    assert.deepEqual(posted.slice(-2), [
      { type: 'approve', turnId: 't1', toolCallId: 'c1', decision: 'allowForSession' },
      { type: 'showDiff', turnId: 't1', toolCallId: 'c1' },
    ]);
    assert.equal(
      await h.page.locator('.card[data-node-id="e1"] button[data-decision="allow"]').isDisabled(),
      true,
    );
    // c2 resolved by another client: its card closes; c1 resolved after our answer.
    await h.send(msg.approvalResolved('t1', 'c2'), msg.approvalResolved('t1', 'c1'));
    assert.equal(await cards.count(), 1);
    assert.equal(await h.page.locator('.approval-card').getAttribute('data-tool-call-id'), 'c3');
  });

  it('shows a budget notice and the stop reason', async () => {
    await h.send(
      msg.turnStarted('t1', 'loop forever'),
      msg.running('t1'),
      msg.tree('t1', node('t1', null), node('a', 't1', { status: 'done' })),
      msg.budget('t1', 'tool_calls', 200, 201, 'a'),
      msg.cost('t1', 0.5),
      msg.ended('t1', 'budget_exceeded'),
    );
    const notice = h.page.locator('.budget-notice');
    assert.equal(await notice.getAttribute('role'), 'alert');
    assert.equal(
      await notice.innerText(),
      'Budget exceeded: tool calls — limit 200, observed 201.',
    );
    assert.match(
      await h.page.locator('.turn-footer').innerText(),
      /Stopped: budget exceeded .*\$0\.50/,
    );
    await h.screenshot('budget-exceeded');
  });

  it('composer: Enter sends, Shift+Enter adds a line, Escape cancels a running turn', async () => {
    const input = h.page.locator('.composer-input');
    await input.click();
    await input.type('first line');
    await h.page.keyboard.press('Shift+Enter');
    await input.type('second');
    await h.page.keyboard.press('Enter');
    assert.deepEqual((await h.posted()).at(-1), { type: 'send', text: 'first line\nsecond' });
    assert.equal(await input.inputValue(), '');
    await h.send(msg.turnStarted('t1', 'x'), msg.running('t1'));
    assert.equal(await h.page.locator('.cancel').isVisible(), true);
    assert.equal(await h.page.locator('.send').isDisabled(), true);
    await input.focus();
    await h.page.keyboard.press('Escape');
    assert.deepEqual((await h.posted()).at(-1), { type: 'cancel' });
    await h.send(msg.ended('t1', 'cancelled'));
    assert.equal(await h.page.locator('.cancel').isVisible(), false);
    assert.match(await h.page.locator('.turn-footer').innerText(), /Cancelled/);
  });

  it("the mode picker is a radio group that always shows the daemon's mode", async () => {
    const group = h.page.getByRole('radiogroup', { name: 'Permission mode' });
    const checked = () => group.locator('[aria-checked="true"]').getAttribute('data-mode');
    assert.equal(await checked(), 'default');
    await group.getByRole('radio', { name: 'Auto' }).click();
    await h.settle();
    assert.deepEqual((await h.posted()).at(-1), { type: 'setMode', mode: 'auto' });
    assert.equal(await checked(), 'default', 'unchanged until the daemon confirms');
    await h.send(msg.mode('auto'));
    assert.equal(await checked(), 'auto');
    // One Tab stop; arrow keys pick the next mode, as in a native radio group.
    assert.equal(await group.locator('[tabindex="0"]').count(), 1);
    await group.locator('[aria-checked="true"]').focus();
    await h.page.keyboard.press('ArrowLeft');
    await h.settle();
    assert.deepEqual((await h.posted()).at(-1), { type: 'setMode', mode: 'default' });
  });

  it('renders the plan, session history and a larger nested turn', async () => {
    await h.send(
      {
        type: 'sessions',
        sessions: [
          {
            sessionId: 'ses_test',
            title: 'Test chat',
            updatedAt: '2026-01-01T00:00:00Z',
            state: 'idle',
          },
          {
            sessionId: 'ses_old',
            title: 'Older chat',
            updatedAt: '2025-12-01T00:00:00Z',
            state: 'idle',
          },
        ],
        currentId: 'ses_test',
      },
      ...nestedTurn('t9', 3, 4),
      msg.plan([
        { id: '1', content: 'Read the code', status: 'completed' },
        { id: '2', content: 'Write the fix', status: 'in_progress' },
        { id: '3', content: 'Run the tests', status: 'pending' },
      ]),
    );
    assert.deepEqual(
      await h.page
        .locator('.plan-entry')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-status'))),
      ['completed', 'in_progress', 'pending'],
    );
    assert.equal(await h.page.locator('.activity > .card').count(), 3);
    assert.match(
      await h.page.locator('.card[data-node-id="s1"] > .card-header').innerText(),
      /Subtask 1\s*4 steps\s*1\.5 s · \$0\.0012/,
    );
    await h.page.locator('.card[data-node-id="s1"] > .card-header').click();
    assert.equal(
      await h.page.locator('.card[data-node-id="s1.t0"]').getAttribute('data-status'),
      'error',
    );
    await h.page.locator('button[aria-label="Chat history"]').click();
    await h.page.locator('.history-open', { hasText: 'Older chat' }).click();
    assert.deepEqual((await h.posted()).at(-1), { type: 'switchSession', sessionId: 'ses_old' });
    await h.screenshot('plan-and-nested');
  });

  it('shows a banner while the daemon restarts and ignores invalid messages', async () => {
    await h.send(
      msg.connection('restarting', 'The Arbor daemon stopped unexpectedly. Restarting in 1 s…'),
    );
    assert.match(await h.page.locator('.banner').innerText(), /Restarting in 1 s/);
    assert.equal(await h.page.locator('.send').isDisabled(), true);
    // An invalid message is dropped with a warning, nothing else happens.
    const warnings: string[] = [];
    h.page.on('console', (m) => warnings.push(m.text()));
    await h.page.evaluate(() => window.postMessage({ type: 'tree', turnId: 't', nodes: [] }, '*'));
    await h.page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
    assert.ok(warnings.some((w) => w.includes('ignored an invalid message')));
  });
});

/**
 * The card tree as nested [label, status, children] — what a user sees,
 * independent of ids. Kept as source text: tsx would inject helpers into a
 * compiled function that do not exist in the page.
 */
const cardOutline = new Function(
  'root',
  `const walk = (container) => container
     ? Array.from(container.children).filter((c) => c.classList.contains('card')).map((c) => [
         c.querySelector(':scope > .card-header .card-label')?.textContent,
         c.getAttribute('data-status'),
         walk(c.querySelector(':scope > .card-body > .card-children')),
       ])
     : [];
   return walk(root);`,
) as (root: Element) => unknown;

/**
 * The transcript's DOM as markup, with the per-page body ids (a counter)
 * numbered by order of appearance: two pages that draw the same thing match.
 */
const transcriptDom = new Function(
  'root',
  `const ids = new Map();
   return root.outerHTML.replace(/card-body-\\d+/g, (id) => {
     if (!ids.has(id)) ids.set(id, 'card-body-' + ids.size);
     return ids.get(id);
   });`,
) as (root: Element) => string;
