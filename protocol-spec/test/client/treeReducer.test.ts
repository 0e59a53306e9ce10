import { strict as assert } from 'node:assert';
import { ExecutionTreeSnapshot } from '../../src/index.js';
import { TreeReducer } from '../../src/client/index.js';
import { node, outline } from './builders.js';

function shape(tree: TreeReducer): string[] {
  return outline(tree.roots(), (id) => tree.children(id));
}

describe('TreeReducer', () => {
  it('builds the tree from upserts, children in arrival order', () => {
    const tree = new TreeReducer();
    tree.upsert([node('t', null)]);
    tree.upsert([node('a', 't'), node('b', 't')]);
    tree.upsert([node('c', 't')]);
    assert.deepEqual(shape(tree), ['t', '  a', '  b', '  c']);
    assert.equal(tree.size, 4);
  });

  it('merges an upsert by id: fields it leaves out keep their earlier value', () => {
    const tree = new TreeReducer();
    tree.upsert([node('t', null)]);
    tree.upsert([
      node('a', 't', { argsPreview: '{"path":"a.txt"}', startedAt: '2025-01-01T00:00:00Z' }),
    ]);
    tree.upsert([node('a', 't', { status: 'done', resultPreview: 'hello', durationMs: 12 })]);
    const a = tree.get('a');
    assert.equal(a?.status, 'done');
    assert.equal(a?.argsPreview, '{"path":"a.txt"}', 'argsPreview from the first upsert survives');
    assert.equal(a?.startedAt, '2025-01-01T00:00:00Z');
    assert.equal(a?.resultPreview, 'hello');
    assert.equal(a?.durationMs, 12);
    assert.deepEqual(shape(tree), ['t', '  a'], 'an upsert does not duplicate the node');
  });

  it('takes late fields (cost, usage, approval) on a node that is already final', () => {
    const tree = new TreeReducer();
    tree.upsert([
      node('t', null),
      node('s', 't', { kind: 'subtask', name: 'run_subtask', title: 'Scan' }),
    ]);
    tree.upsert([node('s', 't', { kind: 'subtask', name: 'run_subtask', status: 'done' })]);
    tree.upsert([
      node('s', 't', {
        kind: 'subtask',
        name: 'run_subtask',
        status: 'done',
        cost: 0.0123,
        usage: { inputTokens: 10, outputTokens: 5 },
        approval: 'approved',
      }),
    ]);
    const s = tree.get('s');
    assert.equal(s?.title, 'Scan');
    assert.equal(s?.cost, 0.0123);
    assert.deepEqual(s?.usage, { inputTokens: 10, outputTokens: 5 });
    assert.equal(s?.approval, 'approved');
  });

  it('holds a node whose parent has not arrived and attaches it when the parent comes', () => {
    const tree = new TreeReducer();
    tree.upsert([node('t', null)]);
    tree.upsert([node('child', 'sub', { depth: 1 })]);
    assert.deepEqual(shape(tree), ['t']);
    assert.deepEqual(
      tree.detached().map((n) => n.id),
      ['child'],
      'held, not dropped',
    );
    assert.deepEqual(
      tree.toSnapshot().nodes.map((n) => n.id),
      ['t'],
      'a snapshot never names an unknown parent',
    );
    tree.upsert([node('sub', 't', { kind: 'subtask', name: 'run_subtask' })]);
    assert.deepEqual(shape(tree), ['t', '  sub', '    child']);
    assert.deepEqual(tree.detached(), []);
  });

  it('holds a whole branch that arrives leaves first', () => {
    const tree = new TreeReducer();
    tree.upsert([node('c', 'b'), node('b', 'a'), node('a', 't')]);
    assert.deepEqual(tree.roots(), []);
    assert.equal(tree.detached().length, 3);
    tree.upsert([node('t', null)]);
    assert.deepEqual(shape(tree), ['t', '  a', '    b', '      c']);
  });

  it('keeps deep nesting and parallel siblings apart', () => {
    const tree = new TreeReducer();
    tree.upsert([node('t', null)]);
    let parent = 't';
    for (let depth = 1; depth <= 16; depth++) {
      const id = `s${depth}`;
      tree.upsert([node(id, parent, { kind: 'subtask', name: 'run_subtask', depth })]);
      tree.upsert([node(`${id}.tool`, id, { depth })]);
      parent = id;
    }
    const lines = shape(tree);
    assert.equal(lines.length, 1 + 16 * 2);
    assert.equal(
      lines.at(-1),
      `${'  '.repeat(17)}s16.tool`,
      'the deepest tool sits under the 16th subtask',
    );
    assert.deepEqual(
      tree.children('s8').map((n) => n.id),
      ['s8.tool', 's9'],
    );
  });

  it('moves a node when an upsert changes its parent', () => {
    const tree = new TreeReducer();
    tree.upsert([node('t', null), node('a', 't'), node('b', 't'), node('x', 'a')]);
    tree.upsert([node('x', 'b')]);
    assert.deepEqual(shape(tree), ['t', '  a', '  b', '    x']);
  });

  it('round-trips through a snapshot: same nodes, same order, valid against the schema', () => {
    const tree = new TreeReducer();
    tree.upsert([node('t', null, { kind: 'turn' })]);
    tree.upsert([node('s1', 't', { kind: 'subtask', name: 'run_subtask', title: 'one' })]);
    tree.upsert([node('s2', 't', { kind: 'subtask', name: 'run_subtask', title: 'two' })]);
    tree.upsert([node('s2.a', 's2', { depth: 1 }), node('s1.a', 's1', { depth: 1 })]);
    tree.upsert([node('s1.a', 's1', { depth: 1, status: 'done', resultPreview: 'ok' })]);
    const snapshot = tree.toSnapshot();
    assert.equal(ExecutionTreeSnapshot.safeParse(snapshot).success, true);
    assert.deepEqual(
      snapshot.nodes.map((n) => n.id),
      ['t', 's1', 's1.a', 's2', 's2.a'],
      'depth-first, parents before children',
    );
    const rebuilt = TreeReducer.fromSnapshot(
      ExecutionTreeSnapshot.parse(JSON.parse(JSON.stringify(snapshot))),
    );
    assert.deepEqual(shape(rebuilt), shape(tree));
    assert.deepEqual(rebuilt.toSnapshot(), snapshot);
    assert.equal(rebuilt.get('s1.a')?.resultPreview, 'ok');
  });

  it('reset from a snapshot replaces every node', () => {
    const tree = new TreeReducer();
    tree.upsert([node('t', null), node('old', 't')]);
    tree.reset({ version: 1, nodes: [node('t', null), node('new', 't', { status: 'done' })] });
    assert.deepEqual(shape(tree), ['t', '  new']);
    assert.equal(tree.get('old'), undefined);
  });

  it('accumulates streamed text per node in seq order, ignoring a repeated seq', () => {
    const tree = new TreeReducer();
    assert.equal(tree.appendText({ seq: 3, nodeId: 't', text: 'Hel' }), true);
    tree.appendText({ seq: 7, nodeId: 's', text: 'sub ' });
    tree.appendText({ seq: 5, nodeId: 't', text: 'world' });
    tree.appendText({ seq: 4, nodeId: 't', text: 'lo ' });
    assert.equal(tree.appendText({ seq: 4, nodeId: 't', text: 'lo ' }), false);
    tree.appendText({ seq: 9, nodeId: 's', text: 'text' });
    assert.equal(tree.textOf('t'), 'Hello world');
    assert.equal(tree.textOf('s'), 'sub text');
    assert.equal(tree.textOf('none'), '');
  });
});
