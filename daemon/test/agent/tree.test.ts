import assert from 'node:assert/strict';
import {
  ExecutionTreeSnapshot,
  FINAL_NODE_STATUSES,
  Methods,
  PREVIEW_MAX_CHARS,
  type NodeStatus,
} from '@arbor/protocol';
import { TURN_ID, nodes, runTurn, script, sleepTool, type Span, type TreeNode } from './harness.js';

const subtask = (title: string, instructions: string) => ({
  name: 'run_subtask',
  arguments: { title, instructions },
});
const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens });

/** Root -> 2 parallel subtasks -> each 2 parallel subtasks -> each a tool call. */
function nestedScript() {
  return script({
    '*': [
      {
        text: 'Splitting the work.',
        toolCalls: [subtask('A', 'branch A'), subtask('B', 'branch B')],
        usage: usage(100, 10),
      },
      { text: 'All done.', usage: usage(200, 20) },
    ],
    'branch ': [
      {
        toolCalls: [subtask('leaf 1', 'leaf job 1'), subtask('leaf 2', 'leaf job 2')],
        usage: usage(10, 1),
      },
      { text: 'branch finished', usage: usage(20, 2) },
    ],
    'leaf job': [
      {
        toolCalls: [
          { name: 'sleep', arguments: { ms: 30 } },
          { name: 'memory_read', arguments: { key: 'missing' } },
        ],
        usage: usage(1, 1),
      },
      { text: 'leaf finished', usage: usage(2, 2) },
    ],
  });
}

describe('execution tree', () => {
  it('with nested parallel subtasks: parents announced first, seq increasing, every node final', async () => {
    const spans: Span[] = [];
    const run = await runTurn(nestedScript(), { tools: [sleepTool(spans)] });
    assert.equal(run.result.stopReason, 'end_turn');

    // seq strictly increasing over every event of the turn
    const seqs = run.sink.events.map((e) => e.params.seq as number);
    for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i]! > seqs[i - 1]!);

    // a node's parent was announced in an earlier (or the same, earlier in the list) tree/update
    const announced = new Set<string>();
    for (const event of run.sink.events) {
      if (event.method === Methods.TreeUpdate.method) {
        for (const node of event.params.nodes as TreeNode[]) {
          if (node.parentId !== null)
            assert.ok(
              announced.has(node.parentId),
              `${node.id} before its parent ${node.parentId}`,
            );
          announced.add(node.id);
        }
      } else if (event.method === Methods.ChatChunk.method) {
        assert.ok(announced.has(event.params.nodeId as string), 'chunks name an announced node');
      }
    }

    const snapshot = run.result.tree;
    ExecutionTreeSnapshot.parse(snapshot);
    const all = nodes(run);
    const byId = new Map(all.map((n) => [n.id, n]));
    const seen = new Set<string>();
    for (const node of all) {
      if (node.parentId !== null)
        assert.ok(seen.has(node.parentId), 'snapshot lists parents first');
      seen.add(node.id);
      assert.ok(FINAL_NODE_STATUSES.includes(node.status as NodeStatus));
      if (node.kind !== 'turn') {
        const parent = byId.get(node.parentId!)!;
        assert.equal(
          node.depth,
          parent.kind === 'turn' ? 0 : parent.depth + 1,
          `depth of ${node.id}`,
        );
        assert.equal(typeof node.durationMs, 'number');
        assert.equal(typeof node.startedAt, 'string');
      }
      for (const field of ['argsPreview', 'resultPreview'] as const) {
        assert.ok(((node[field] as string | undefined) ?? '').length <= PREVIEW_MAX_CHARS);
      }
    }
    assert.equal(all.filter((n) => n.kind === 'subtask').length, 6);
    assert.equal(all.filter((n) => n.kind === 'tool').length, 8);
    // the failed memory_read in every leaf is an error; everything else is done
    assert.deepEqual(
      [...new Set(all.filter((n) => n.name === 'memory_read').map((n) => n.status))],
      ['error'],
    );
    assert.equal(run.sink.textOf(TURN_ID), 'Splitting the work.\n\nAll done.');
    assert.equal(run.result.text, 'Splitting the work.\n\nAll done.');
    // the four leaves' tools ran concurrently across branches
    assert.ok(Math.max(...spans.map((s) => s.start)) < Math.min(...spans.map((s) => s.end)));
  });

  it('rolls usage up from every subtask to its parents and the turn', async () => {
    const run = await runTurn(nestedScript(), { tools: [sleepTool([])] });
    const all = nodes(run);
    const leaf = usage(1 + 2, 1 + 2);
    const branch = usage(10 + 20 + 2 * leaf.inputTokens, 1 + 2 + 2 * leaf.outputTokens);
    const turn = usage(100 + 200 + 2 * branch.inputTokens, 10 + 20 + 2 * branch.outputTokens);
    for (const node of all.filter((n) => n.title?.toString().startsWith('leaf')))
      assert.deepEqual(node.usage, leaf);
    for (const node of all.filter((n) => n.title === 'A' || n.title === 'B'))
      assert.deepEqual(node.usage, branch);
    assert.deepEqual(all[0]?.usage, turn);
    assert.deepEqual(run.result.usage, turn);
    assert.equal(all.find((n) => n.kind === 'tool')?.usage, undefined, 'tools spend no tokens');

    const [summary] = run.sink.of(Methods.CostSummary);
    assert.deepEqual(summary?.usage, turn);
    const [model] = summary?.byModel as { calls: number }[];
    assert.equal(model?.calls, 2 + 2 * 2 + 4 * 2, 'every LLM call of every loop is counted');
    // the final tree/update of the turn node carries the rolled-up usage
    const turnUpdates = run.sink
      .of(Methods.TreeUpdate)
      .flatMap((p) => p.nodes as TreeNode[])
      .filter((n) => n.id === TURN_ID);
    assert.deepEqual(turnUpdates.at(-1)?.usage, turn);
  });

  it('cuts previews to PREVIEW_MAX_CHARS', async () => {
    const long = 'z'.repeat(2000);
    const run = await runTurn(
      script({
        '*': [
          {
            toolCalls: [
              { name: 'memory_write', arguments: { key: 'k', value: long } },
              { name: 'memory_read', arguments: { key: 'nope' } },
            ],
          },
          { toolCalls: [{ name: 'memory_read', arguments: { key: 'k' } }] },
          { text: 'ok' },
        ],
      }),
    );
    for (const node of nodes(run)) {
      assert.ok(((node.argsPreview as string | undefined) ?? '').length <= PREVIEW_MAX_CHARS);
      assert.ok(((node.resultPreview as string | undefined) ?? '').length <= PREVIEW_MAX_CHARS);
    }
    assert.equal((nodes(run)[1]?.argsPreview as string).length, PREVIEW_MAX_CHARS);
    assert.match(nodes(run)[1]?.argsPreview as string, /…$/);
  });
});
