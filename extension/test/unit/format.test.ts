import assert from 'node:assert/strict';
import {
  budgetText,
  canShowDiff,
  formatCost,
  formatDuration,
  formatWhen,
  isErrorNode,
  nodeLabel,
  prettyJson,
} from '../../webview/model/format.js';
import { node } from '../fixtures/builders.js';

describe('presentation rules', () => {
  it('a denied, blocked or cancelled call is not an error, though it tells the model so', () => {
    assert.equal(isErrorNode(node('a', 't', { status: 'denied', isError: true })), false);
    assert.equal(isErrorNode(node('a', 't', { status: 'blocked', isError: true })), false);
    assert.equal(isErrorNode(node('a', 't', { status: 'error' })), true);
    assert.equal(isErrorNode(node('a', 't', { status: 'done', isError: true })), true);
  });
  it('pretty-print whole JSON previews and leave other text alone', () => {
    assert.equal(prettyJson('{"path":"a.ts","n":1}'), '{\n  "path": "a.ts",\n  "n": 1\n}');
    assert.equal(
      prettyJson('{"path":"a.ts","content":"cut sh'),
      '{"path":"a.ts","content":"cut sh',
    );
    assert.equal(prettyJson('exit code 1\nboom'), 'exit code 1\nboom');
  });
  it('say when a chat was last used', () => {
    const now = new Date(2026, 10, 25, 12, 0);
    assert.equal(formatWhen(new Date(2026, 10, 25, 9, 5).toISOString(), now), 'Today 09:05');
    assert.equal(formatWhen(new Date(2026, 10, 24, 18, 30).toISOString(), now), 'Yesterday 18:30');
    assert.equal(formatWhen(new Date(2026, 2, 12).toISOString(), now), '12 Mar');
    assert.equal(formatWhen(new Date(2024, 2, 12).toISOString(), now), '12 Mar 2024');
    assert.equal(formatWhen('not a date', now), '');
  });
  it('label subtasks by title and tools by name', () => {
    assert.equal(
      nodeLabel(node('a', 't', { kind: 'subtask', name: 'run_subtask', title: 'Survey' })),
      'Survey',
    );
    assert.equal(nodeLabel(node('a', 't', { name: 'grep' })), 'grep');
    assert.equal(
      nodeLabel(node('h', 'a', { kind: 'hook', name: 'PreToolUse', title: './check.sh' })),
      'Hook PreToolUse: ./check.sh',
    );
  });
  it('format durations and costs', () => {
    assert.equal(formatDuration(undefined), '');
    assert.equal(formatDuration(412), '412 ms');
    assert.equal(formatDuration(1500), '1.5 s');
    assert.equal(formatDuration(125_000), '2 min 5 s');
    assert.equal(formatCost(null), 'cost unknown');
    assert.equal(formatCost(0), '$0.00');
    assert.equal(formatCost(0.0012), '$0.0012');
    assert.equal(formatCost(1.5), '$1.50');
  });
  it('name the budget, its limit and what was observed', () => {
    assert.equal(
      budgetText({
        sessionId: 's',
        seq: 1,
        turnId: 't',
        kind: 'wall_clock_ms',
        limit: 180000,
        observed: 180200,
      }),
      'Budget exceeded: time — limit 180000 ms, observed 180200 ms.',
    );
  });
  it('offer a diff for writes and edits only', () => {
    assert.equal(canShowDiff('write', 'apply_edit'), true);
    assert.equal(canShowDiff('execute', 'run_command'), false);
  });
});
