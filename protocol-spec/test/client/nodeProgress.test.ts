import { strict as assert } from 'node:assert';
import { TreeReducer, progressText } from '../../src/client/index.js';
import type { ExecutionTreeNode } from '../../src/index.js';

const node = (fields: Partial<ExecutionTreeNode>): ExecutionTreeNode => ({
  id: 'n1',
  parentId: 't',
  kind: 'tool',
  name: 'mcp__indexer__build',
  status: 'running',
  depth: 0,
  ...fields,
});

describe('progressText', () => {
  it('words a running node’s progress as done/total, a fraction of one as a percentage, a bare count alone', () => {
    assert.equal(
      progressText(node({ progress: { progress: 3, total: 5, message: 'Indexing src/' } })),
      '3/5: Indexing src/',
    );
    assert.equal(progressText(node({ progress: { progress: 0.6, total: 1 } })), '60%');
    assert.equal(progressText(node({ progress: { progress: 12 } })), '12');
  });

  it('shows nothing once the progress is cleared with null, or on a node that is not running', () => {
    const tree = new TreeReducer();
    tree.upsert([node({ progress: { progress: 1, total: 2 } })]);
    assert.equal(progressText(tree.get('n1')!), '1/2');
    tree.upsert([node({ status: 'done', progress: null })]);
    assert.equal(progressText(tree.get('n1')!), undefined);
    assert.equal(
      progressText(node({ status: 'error', progress: { progress: 1, total: 2 } })),
      undefined,
    );
  });
});
