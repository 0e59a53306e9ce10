/**
 * A turn killed mid-way keeps what it had streamed (turns.md#turns-partial-kept,
 * sessions.md#sessions-load-partial): after a SIGKILL and a restart,
 * session/load returns its assistant message, `interrupted`, with the partial
 * text and the tree, rebuilt from the events stored before they were sent.
 */
import { strict as assert } from 'node:assert';
import { FINAL_NODE_STATUSES, Methods, type ExecutionTreeNode } from '@arbor/protocol';
import { TurnTranscript } from '@arbor/protocol/client';
import type { Json } from '../helpers/wire.js';
import { assertValid } from '../helpers/schemas.js';
import {
  killAll,
  removeScratch,
  scratchDir,
  startDaemon,
  turnEnded,
  type RunningDaemon,
} from './daemonProcess.js';

/** The tree as a client holds it: every tree/update of the turn merged by id, in seq order. */
function foldTree(daemon: RunningDaemon, turnId: unknown): Map<string, ExecutionTreeNode> {
  const nodes = new Map<string, ExecutionTreeNode>();
  for (const event of daemon.events('tree/update')) {
    const params = event['params'] as Json;
    if (params['turnId'] !== turnId) continue;
    for (const node of params['nodes'] as ExecutionTreeNode[])
      nodes.set(node.id, { ...nodes.get(node.id), ...node });
  }
  return nodes;
}

const byId = (nodes: Iterable<ExecutionTreeNode>) =>
  [...nodes].sort((a, b) => a.id.localeCompare(b.id));

describe('persistence: a turn killed mid-way keeps its partial answer and tree', function () {
  this.timeout(30_000);
  afterEach(killAll);
  after(removeScratch);

  it('session/load after the restart returns the streamed text and tree, interrupted', async () => {
    const dataDir = scratchDir();
    const first = await startDaemon(dataDir);
    const { sessionId } = await first.result('session/new', {
      workspaceRoot: scratchDir('arbor-ws-'),
    });
    const sent = await first.result('chat/send', {
      sessionId,
      text: 'partial answer please',
    });
    const turnId = sent['turnId'] as string;

    // The root's tool call is done and the subtask's own tool call too; the subtask hangs.
    const done = (parentId: unknown) => (p: Json) =>
      (p['nodes'] as Json[]).some(
        (n) => n['kind'] === 'tool' && n['parentId'] === parentId && n['status'] === 'done',
      );
    await first.waitForEvent('tree/update', done(turnId));
    const subtask = [...foldTree(first, turnId).values()].find((n) => n.kind === 'subtask');
    assert.ok(subtask, 'the subtask was announced');
    await first.waitForEvent('tree/update', done(subtask.id));
    const streamed = foldTree(first, turnId);
    // What the user saw, folded as a client folds it (sessions.md#sessions-load-parts-fold).
    const seen = new TurnTranscript();
    for (const event of first.events()) {
      const params = event['params'] as Json | undefined;
      if (params?.['turnId'] !== turnId) continue;
      if (event['method'] === 'tree/update') seen.nodes(params['nodes'] as ExecutionTreeNode[]);
      if (event['method'] === 'chat/chunk')
        seen.text(params['nodeId'] as string, params['text'] as string);
    }
    const rootText = first
      .events('chat/chunk')
      .map((e) => e['params'] as Json)
      .filter((p) => p['turnId'] === turnId && p['nodeId'] === turnId)
      .map((p) => p['text'])
      .join('');
    assert.equal(rootText, 'Looking into your trip first.');
    assert.equal(streamed.get(turnId)?.status, 'running');
    assert.equal(streamed.get(subtask.id)?.status, 'running');
    await first.kill();

    const second = await startDaemon(dataDir);
    const loaded = await second.result('session/load', { sessionId });
    assertValid(Methods.SessionLoad.result, loaded);
    const messages = loaded['messages'] as Json[];
    assert.deepEqual(
      messages.map((m) => [m['role'], m['content'], m['status']]),
      [
        ['user', 'partial answer please', 'interrupted'],
        ['assistant', 'Looking into your trip first.', 'interrupted'],
      ],
      'the answer is the turn node’s streamed text, not the subtask’s',
    );

    const tree = messages[1]!['tree'] as { version: number; nodes: ExecutionTreeNode[] };
    assert.equal(tree.version, 1);
    // The streamed tree, with the nodes that were live when the daemon died closed.
    const expected = [...streamed.values()].map((node): ExecutionTreeNode =>
      node.id === turnId
        ? { ...node, status: 'error' }
        : node.status === 'running'
          ? { ...node, status: 'cancelled' }
          : node,
    );
    assert.deepEqual(byId(tree.nodes), byId(expected));
    const parent = (n: ExecutionTreeNode) =>
      n.parentId === null ? '-' : n.parentId === turnId ? 'turn' : n.parentId;
    assert.deepEqual(
      tree.nodes.map((n) => `${n.kind} ${n.name} under ${parent(n)}: ${n.status}`).sort(),
      [
        'subtask run_subtask under turn: cancelled',
        `tool memory_write under ${subtask.id}: done`,
        'tool memory_write under turn: done',
        'turn turn under -: error',
      ],
    );
    assert.equal(tree.nodes[0]!.id, turnId, 'the turn node comes first');
    const placed = new Set<string>();
    for (const node of tree.nodes) {
      assert.ok(FINAL_NODE_STATUSES.includes(node.status), `${node.id} is ${node.status}`);
      if (node.parentId !== null)
        assert.ok(placed.has(node.parentId), `${node.id} after its parent`);
      placed.add(node.id);
    }
    // The text and cards in the order they streamed, the subtask's own text too.
    assert.deepEqual(messages[1]!['parts'], seen.parts);

    // The log still ends the turn with its idle event.
    await second.result('session/attach', { sessionId, role: 'observer', sinceSeq: 0 });
    const idle = await second.waitForEvent('session/state', turnEnded(turnId));
    assert.equal(idle['stopReason'], 'interrupted');
    assert.equal(await second.stop(), 0);
  });
});
