/** session/load returns what the user saw live: text and cards in stream order, subtask text, the cost. */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods, type ExecutionTreeNode } from '@arbor/protocol';
import { TurnTranscript } from '@arbor/protocol/client';
import { FakeRunner, inMemoryDaemon, until } from './helpers/inMemoryDaemon.js';
import { assertValid } from './helpers/schemas.js';

const root = () => mkdtempSync(join(tmpdir(), 'arbor-ws-'));

describe('reload fidelity: session/load keeps the stream order and the cost', () => {
  it('parts fold the live chat/chunk and tree/update events; cost is the cost/summary sent', async () => {
    const runner = new FakeRunner();
    const daemon = inMemoryDaemon({ runner });
    const owner = await daemon.connect();
    const { sessionId } = await owner.request(Methods.SessionNew, { workspaceRoot: root() });
    const { turnId } = await owner.request(Methods.ChatSend, { sessionId, text: 'go' });
    await until(() => runner.requests.length === 1);
    const { events } = runner.current;
    const node = (id: string, parentId: string | null, kind: ExecutionTreeNode['kind']) => ({
      id,
      parentId,
      kind,
      name: kind === 'subtask' ? 'run_subtask' : kind === 'turn' ? 'turn' : 'read_file',
      status: 'running' as const,
      depth: parentId === null || parentId === `${turnId}-root` ? 0 : 1,
    });
    const turnNode = `${turnId}-root`;
    events.emit(Methods.TreeUpdate, { turnId, nodes: [node(turnNode, null, 'turn')] });
    events.emit(Methods.ChatChunk, { turnId, nodeId: turnNode, text: 'Let me ' });
    events.emit(Methods.ChatChunk, { turnId, nodeId: turnNode, text: 'look. ' });
    events.emit(Methods.TreeUpdate, { turnId, nodes: [node('read', turnNode, 'tool')] });
    events.emit(Methods.TreeUpdate, {
      turnId,
      nodes: [{ ...node('read', turnNode, 'tool'), status: 'done' }],
    });
    events.emit(Methods.ChatChunk, { turnId, nodeId: turnNode, text: 'Now a subtask. ' });
    events.emit(Methods.TreeUpdate, { turnId, nodes: [node('sub', turnNode, 'subtask')] });
    events.emit(Methods.ChatChunk, { turnId, nodeId: 'sub', text: 'Subtask notes.' });
    events.emit(Methods.TreeUpdate, { turnId, nodes: [node('inner', 'sub', 'tool')] });
    events.emit(Methods.ChatChunk, { turnId, nodeId: turnNode, text: 'All done.' });
    const summary = {
      turnId,
      usage: { inputTokens: 3, outputTokens: 5 },
      cost: 0.25,
      currency: 'USD' as const,
      byModel: [
        {
          provider: 'scripted',
          model: 'demo',
          calls: 2,
          usage: { inputTokens: 3, outputTokens: 5 },
          cost: 0.25,
        },
      ],
    };
    events.emit(Methods.CostSummary, summary);
    runner.finish('Let me look. Now a subtask. All done.');
    await until(() => owner.eventsOf(Methods.SessionState).some((p) => p['state'] === 'idle'));

    // The client's own fold of what it received live, in seq order.
    const seqOrdered = [
      ...owner.eventsOf(Methods.TreeUpdate).map((p) => ({ kind: 'tree' as const, p })),
      ...owner.eventsOf(Methods.ChatChunk).map((p) => ({ kind: 'text' as const, p })),
    ].sort((a, b) => (a.p['seq'] as number) - (b.p['seq'] as number));
    const folded = new TurnTranscript();
    for (const { kind, p } of seqOrdered) {
      if (kind === 'tree') folded.nodes(p['nodes'] as ExecutionTreeNode[]);
      else folded.text(p['nodeId'] as string, p['text'] as string);
    }

    const loaded = await owner.request(Methods.SessionLoad, { sessionId });
    assertValid(Methods.SessionLoad.result, loaded);
    const answer = loaded.messages.find((m: { role: string }) => m.role === 'assistant');
    assert.deepEqual(answer.parts, folded.parts);
    assert.deepEqual(answer.parts, [
      { type: 'text', nodeId: turnNode, text: 'Let me look. ' },
      { type: 'node', nodeId: 'read' },
      { type: 'text', nodeId: turnNode, text: 'Now a subtask. ' },
      { type: 'node', nodeId: 'sub' },
      { type: 'text', nodeId: 'sub', text: 'Subtask notes.' },
      { type: 'node', nodeId: 'inner' },
      { type: 'text', nodeId: turnNode, text: 'All done.' },
    ]);
    const { turnId: _t, ...cost } = summary;
    assert.deepEqual(answer.cost, cost);
  });
});
