import assert from 'node:assert/strict';
import {
  budgetText,
  canShowDiff,
  expandedByDefault,
  formatCost,
  formatDuration,
  nodeLabel,
} from '../../webview/model/format.js';
import { node } from '../fixtures/builders.js';

describe('presentation rules', () => {
  it('collapse cards deeper than the turn level by default', () => {
    assert.equal(expandedByDefault(node('a', 't', { depth: 0 })), true);
    assert.equal(expandedByDefault(node('b', 'a', { depth: 1 })), false);
  });
  it('label subtasks by title and tools by name', () => {
    assert.equal(
      nodeLabel(node('a', 't', { kind: 'subtask', name: 'run_subtask', title: 'Survey' })),
      'Survey',
    );
    assert.equal(nodeLabel(node('a', 't', { name: 'grep' })), 'grep');
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
