/** A client that arrives mid-turn can render it; one that loads, then attaches, misses nothing. */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
import { FakeRunner, inMemoryDaemon, until } from './helpers/inMemoryDaemon.js';
import { assertValid } from './helpers/schemas.js';

const root = () => mkdtempSync(join(tmpdir(), 'arbor-ws-'));

describe('attaching mid-turn and loading before attaching', () => {
  it('a plain attach while a turn runs gets its tree and text as a snapshot', async () => {
    const runner = new FakeRunner();
    const daemon = inMemoryDaemon({ runner });
    const owner = await daemon.connect();
    const { sessionId } = await owner.request(Methods.SessionNew, { workspaceRoot: root() });
    const { turnId } = await owner.request(Methods.ChatSend, { sessionId, text: 'go' });
    await until(() => runner.requests.length === 1);
    const turn = runner.current;
    const rootNode = {
      id: `${turnId}-root`,
      parentId: null,
      kind: 'turn' as const,
      name: 'turn',
      status: 'running' as const,
      depth: 0,
    };
    turn.events.emit(Methods.TreeUpdate, { turnId, nodes: [rootNode] });
    turn.events.emit(Methods.ChatChunk, { turnId, nodeId: rootNode.id, text: 'Half an ans' });
    turn.events.emit(Methods.ChatChunk, { turnId, nodeId: rootNode.id, text: 'wer so far' });

    const late = await daemon.connect();
    const attached = await late.request(Methods.SessionAttach, { sessionId, role: 'observer' });
    assertValid(Methods.SessionAttach.result, attached);
    assert.equal(attached.replay, 'snapshot');
    assert.equal(attached.snapshot.turnId, turnId);
    assert.deepEqual(
      attached.snapshot.tree.nodes.map((n: { id: string }) => n.id),
      [rootNode.id],
    );
    assert.deepEqual(attached.snapshot.texts, [
      { nodeId: rootNode.id, text: 'Half an answer so far' },
    ]);
    // The order so far, as session/load will keep it (sessions.md#stored-parts).
    assert.deepEqual(attached.snapshot.parts, [
      { type: 'text', nodeId: rootNode.id, text: 'Half an answer so far' },
    ]);

    runner.finish();
    await until(() => late.eventsOf(Methods.SessionState).some((p) => p['state'] === 'idle'));
    // Once idle, a plain attach has nothing to catch up on.
    const third = await daemon.connect();
    const idleAttach = await third.request(Methods.SessionAttach, { sessionId, role: 'observer' });
    assert.equal(idleAttach.replay, 'none');
  });

  it('session/load says lastSeq; attaching with it replays exactly what came after', async () => {
    const daemon = inMemoryDaemon();
    const owner = await daemon.connect();
    const { sessionId } = await owner.request(Methods.SessionNew, { workspaceRoot: root() });
    await owner.request(Methods.SessionSetPermissionMode, { sessionId, mode: 'plan' });
    const reader = await daemon.connect();
    const loaded = await reader.request(Methods.SessionLoad, { sessionId });
    assertValid(Methods.SessionLoad.result, loaded);
    assert.equal(loaded.lastSeq, 1);
    await owner.request(Methods.SessionSetPermissionMode, { sessionId, mode: 'auto' });
    const attached = await reader.request(Methods.SessionAttach, {
      sessionId,
      role: 'observer',
      sinceSeq: loaded.lastSeq,
    });
    assert.equal(attached.replay, 'events');
    await until(() => reader.events.length === 1);
    assert.deepEqual(
      reader.events.map((e) => [e.params['seq'], e.params['permissionMode']]),
      [[2, 'auto']],
    );
  });
});
