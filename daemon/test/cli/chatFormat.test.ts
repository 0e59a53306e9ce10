/** The pieces of `arbor chat` that need no process: flags, colours, the tree as lines, the live block. */
import assert from 'node:assert/strict';
import type { ExecutionTreeNode } from '@arbor/protocol';
import { TreeReducer } from '@arbor/protocol/client';
import { parseChatArgs } from '../../src/cli/chat/chatArgs.js';
import { LiveScreen } from '../../src/cli/chat/liveScreen.js';
import { PromptSeat } from '../../src/cli/chat/promptSeat.js';
import { parseQuestionAnswer, questionEndText } from '../../src/cli/chat/questionPrompt.js';
import {
  createStyle,
  stripAnsi,
  truncateVisible,
  wantsColor,
} from '../../src/cli/chat/terminalStyle.js';
import {
  formatCost,
  formatDuration,
  formatPlan,
  formatQuestionRequest,
  formatTree,
  wrapText,
} from '../../src/cli/chat/turnFormat.js';

const plain = createStyle(false);
const node = (
  n: Partial<ExecutionTreeNode> & Pick<ExecutionTreeNode, 'id'>,
): ExecutionTreeNode => ({
  parentId: 't',
  kind: 'tool',
  name: 'read_file',
  status: 'done',
  depth: 0,
  ...n,
});

describe('arbor chat: flags', () => {
  it('joins the message, resolves paths and checks the mode', () => {
    const o = parseChatArgs(
      ['fix', 'it', '--mode', 'plan', '--workspace', 'ws', '--script', 's.json'],
      '/home/u',
    );
    assert.equal(o.message, 'fix it');
    assert.equal(o.mode, 'plan');
    assert.equal(o.workspace, '/home/u/ws');
    assert.equal(o.script, '/home/u/s.json');
    assert.throws(() => parseChatArgs(['--mode', 'yolo']), /--mode must be plan, default or auto/);
    assert.throws(
      () => parseChatArgs(['--connect', 's', '--provider', 'scripted']),
      /cannot be used with --connect/,
    );
    assert.throws(() => parseChatArgs(['--bogus']), { code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' });
    assert.equal(parseChatArgs([]).message, undefined);
  });
});

describe('arbor chat: colours', () => {
  it('colours a TTY only, and never with NO_COLOR or TERM=dumb', () => {
    assert.equal(wantsColor({ isTTY: true }, { TERM: 'xterm' }), true);
    assert.equal(wantsColor({ isTTY: false }, { TERM: 'xterm' }), false);
    assert.equal(wantsColor({ isTTY: true }, { TERM: 'xterm', NO_COLOR: '1' }), false);
    assert.equal(wantsColor({ isTTY: true }, { TERM: 'dumb' }), false);
    assert.equal(createStyle(false).red('x'), 'x');
    assert.equal(stripAnsi(createStyle(true).red('x')), 'x');
  });

  it('cuts visible text without breaking escapes', () => {
    const red = createStyle(true).red('abcdefgh');
    const cut = truncateVisible(red, 4);
    assert.equal(stripAnsi(cut), 'abc…');
    assert.ok(cut.endsWith('\u001b[0m'));
  });
});

describe('arbor chat: the tree as lines', () => {
  it('nests subtasks, shows status, duration, cost and errors', () => {
    const tree = new TreeReducer();
    tree.upsert([
      node({ id: 't', parentId: null, kind: 'turn', name: 'turn', durationMs: 1500, cost: 0.0123 }),
      node({
        id: 's',
        kind: 'subtask',
        name: 'run_subtask',
        title: 'Inspect',
        durationMs: 300,
        usage: { inputTokens: 10, outputTokens: 5 },
      }),
      node({ id: 'r', parentId: 's', depth: 1, argsPreview: '{"path":"a.txt"}', durationMs: 4 }),
      node({
        id: 'e',
        parentId: 's',
        depth: 1,
        name: 'grep',
        status: 'error',
        resultPreview: 'bad pattern\nmore',
      }),
      node({
        id: 'w',
        status: 'running',
        name: 'write_file',
        startedAt: new Date(1000).toISOString(),
      }),
    ]);
    const lines = formatTree(tree, { style: plain, now: 3500, spinnerFrame: 0 });
    assert.deepEqual(lines, [
      '✓ turn  1.5s · $0.01',
      '  ✓ Inspect (subtask)  300ms · 15 tok',
      '    ✓ read_file {"path":"a.txt"}  4ms',
      '    ✗ grep — bad pattern',
      '  ⠋ write_file  2.5s',
    ]);
    assert.equal(formatTree(tree, { style: plain, now: 3500 })[4], '  ● write_file  2.5s');
  });

  it('names a hook by its event and command', () => {
    const tree = new TreeReducer();
    tree.upsert([
      node({ id: 't', parentId: null, kind: 'turn', name: 'turn' }),
      node({ id: 'c', name: 'run_command', status: 'denied' }),
      node({
        id: 'h',
        parentId: 'c',
        depth: 0,
        kind: 'hook',
        name: 'PreToolUse',
        title: './check.sh',
      }),
    ]);
    assert.match(
      formatTree(tree, { style: plain, now: 0 })[2]!,
      /PreToolUse \.\/check\.sh \(hook\)/,
    );
  });

  it('formats plans, durations and costs', () => {
    assert.deepEqual(
      formatPlan(
        [
          { id: '1', content: 'read', status: 'completed' },
          { id: '2', content: 'write', status: 'in_progress' },
          { id: '3', content: 'test', status: 'pending' },
        ],
        plain,
      ),
      ['Plan', '  [x] read', '  [~] write', '  [ ] test'],
    );
    assert.equal(formatDuration(61_000), '1m01s');
    assert.equal(formatDuration(179_700), '3m00s');
    assert.equal(formatCost(null), 'price unknown');
    assert.equal(formatCost(0.00042), '$0.0004');
  });
});

describe('arbor chat: the live block', () => {
  it('scrolls text above the block and redraws the block in place', () => {
    let written = '';
    const screen = new LiveScreen({ write: (t) => ((written += t), true), columns: 30, rows: 20 });
    screen.setBlock(['tree 1', 'tree 2']);
    written = '';
    screen.text('hello ');
    // Erase the 2 drawn rows (cursor up 1), then draw partial text + block: 3 rows.
    assert.equal(written, '\r\u001b[1A\u001b[Jhello \ntree 1\ntree 2');
    written = '';
    screen.text('world\nnext');
    assert.equal(written, '\r\u001b[2A\u001b[Jhello world\nnext\ntree 1\ntree 2');
    written = '';
    screen.text(' a long line that must wrap at the width');
    // eslint-disable-next-line no-control-regex -- terminal escapes are what this matches
    const [, committed] = /\u001b\[J(.*)\n/.exec(written)!;
    assert.ok(committed!.length <= 29, `wrapped row "${committed}"`);
    assert.ok(committed!.startsWith('next a long line'));
  });

  it('keeps a block taller than the screen to its head and tail', () => {
    let written = '';
    const screen = new LiveScreen({ write: (t) => ((written += t), true), columns: 40, rows: 10 });
    screen.setBlock(Array.from({ length: 30 }, (_, i) => `line ${i}`));
    const drawn = written.split('\n');
    assert.equal(drawn.length, 8);
    assert.match(written, /… 23 more/);
    assert.match(written, /line 29$/);
  });
});

describe('arbor chat: questions as lines', () => {
  const request = {
    sessionId: 's',
    turnId: 't',
    nodeId: 'n',
    toolCallId: 'q',
    question: 'The tests use both Jest and Vitest. Which runner should the new tests use?',
    options: [
      { label: 'Vitest', description: 'Used by the 40 newer test files' },
      { label: 'Jest' },
    ],
    freeText: true,
  };

  it('numbers the options with their descriptions and wraps the question', () => {
    assert.deepEqual(formatQuestionRequest(request, plain, 44), [
      '? Arbor asks: The tests use both Jest and',
      '  Vitest. Which runner should the new tests',
      '  use?',
      '  1) Vitest — Used by the 40 newer test files',
      '  2) Jest',
      '  type a number (1–2) or your own answer, then Enter',
    ]);
    assert.equal(
      formatQuestionRequest({ ...request, freeText: false }, plain).at(-1),
      '  type a number (1–2), then Enter',
    );
    assert.equal(
      formatQuestionRequest({ ...request, options: [] }, plain).at(-1),
      '  type your answer, then Enter',
    );
    assert.deepEqual(wrapText('a\n\nbb ccccc', 4), ['a', '', 'bb', 'cccc', 'c']);
  });

  it('reads a number, a label or the user’s own words, as the question allows', () => {
    assert.deepEqual(parseQuestionAnswer(request, ' 2 '), { answer: 'Jest' });
    assert.deepEqual(parseQuestionAnswer(request, 'VITEST'), { answer: 'Vitest' });
    assert.deepEqual(parseQuestionAnswer(request, 'node:test'), { answer: 'node:test' });
    assert.equal(parseQuestionAnswer(request, '   '), undefined);
    assert.match(JSON.stringify(parseQuestionAnswer(request, '3')), /no option 3/);
    const closed = { ...request, freeText: false };
    assert.match(JSON.stringify(parseQuestionAnswer(closed, 'node:test')), /a number, 1–2/);
    // Without options every answer is the user's own words, numbers too.
    assert.deepEqual(parseQuestionAnswer({ ...request, options: [], freeText: false }, '42'), {
      answer: '42',
    });
  });

  it('says how a question ended', () => {
    assert.equal(
      questionEndText({ outcome: 'answered', answer: 'Jest' }),
      'answered in another client: Jest',
    );
    assert.match(questionEndText({ outcome: 'timed_out' }), /^timed out/);
    assert.equal(questionEndText({ outcome: 'cancelled' }), 'cancelled with the turn');
  });

  it('lets one prompt at a time read the keyboard', () => {
    const seat = new PromptSeat();
    const tried: string[] = [];
    seat.onFree(() => tried.push('a') && seat.take());
    seat.onFree(() => tried.push('b'));
    assert.equal(seat.take(), true);
    assert.equal(seat.take(), false);
    seat.release();
    assert.deepEqual(tried, ['a'], 'the first waiting prompter took it; the next waits');
  });
});
