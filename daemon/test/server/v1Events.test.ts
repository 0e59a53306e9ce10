/**
 * Enum values added after protocol 1 reach only clients that advertised
 * `capabilities.openEnums`; a v1 client gets their stand-in
 * (versioning.md#versioning-new-values-gated). The stored event keeps the real value.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods, type ResultOf } from '@arbor/protocol';
import { buildRouter } from '../../src/server/handlers/index.js';
import {
  FakeRunner,
  connectClient,
  inMemoryDaemon,
  result,
  until,
  type TestClient,
} from '../helpers/inMemoryDaemon.js';
import { assertValidNotification } from '../helpers/schemas.js';

/** An in-memory daemon on a fake runner, and a way to connect clients with the capabilities given. */
function twoKindsOfClient() {
  const runner = new FakeRunner();
  const daemon = inMemoryDaemon({ runner });
  const router = buildRouter(daemon.context);
  const connect = async (capabilities: object): Promise<TestClient> => {
    const client = connectClient(daemon.context, router);
    await client.request(Methods.Initialize, { capabilities });
    client.rpc.sendNotification(Methods.Initialized.method, {});
    return client;
  };
  return { runner, daemon, connect };
}

describe('enum values added after protocol 1 (stopReason max_tokens)', () => {
  it('a client with openEnums gets max_tokens, a v1 client end_turn; both see the same seq; replay keeps the real value', async () => {
    const { runner, daemon, connect } = twoKindsOfClient();
    const modern = await connect({ openEnums: {} });
    const v1 = await connect({});
    const { sessionId } = await modern.request(Methods.SessionNew, {
      workspaceRoot: mkdtempSync(join(tmpdir(), 'arbor-ws-')),
    });
    await v1.request(Methods.SessionAttach, { sessionId, role: 'observer' });
    runner.autoResult = (request) => ({
      ...result(request, 'max_tokens', 'cut off here'),
      usage: { inputTokens: 10, outputTokens: 4096, cacheWriteInputTokens: 7 },
    });
    await modern.request(Methods.ChatSend, { sessionId, text: 'write a lot' });

    const idleOf = (client: TestClient) =>
      client.eventsOf(Methods.SessionState).find((s) => s['state'] === 'idle');
    await until(() => idleOf(modern) !== undefined && idleOf(v1) !== undefined);
    const [toModern, toV1] = [idleOf(modern)!, idleOf(v1)!];
    assert.equal(toModern['stopReason'], 'max_tokens');
    assert.equal(toV1['stopReason'], 'end_turn');
    assert.equal(toModern['seq'], toV1['seq']);
    assert.deepEqual(toV1['usage'], toModern['usage'], 'only the enum value differs');
    for (const params of [toModern, toV1])
      assertValidNotification(Methods.SessionState.method, params);

    // A v1 client replaying the log gets the stand-in too.
    const late = await connect({});
    await late.request(Methods.SessionAttach, { sessionId, role: 'observer', sinceSeq: 0 });
    await until(() => idleOf(late) !== undefined);
    assert.equal(idleOf(late)!['stopReason'], 'end_turn');
    for (const client of [modern, v1, late]) client.close();
    daemon.close();
  });
});

describe('node kinds added after protocol 1 (compaction)', () => {
  it('a v1 client sees a compaction node as a tool, live and in session/load; an openEnums client as compaction', async () => {
    const { runner, daemon, connect } = twoKindsOfClient();
    const modern = await connect({ openEnums: {} });
    const v1 = await connect({});
    const { sessionId } = await modern.request(Methods.SessionNew, {
      workspaceRoot: mkdtempSync(join(tmpdir(), 'arbor-ws-')),
    });
    await v1.request(Methods.SessionAttach, { sessionId, role: 'observer' });
    runner.autoResult = (request) => {
      const done = result(request, 'end_turn', 'fits again');
      const root = done.tree.nodes[0]!;
      const compaction = {
        id: 'c1',
        parentId: root.id,
        kind: 'compaction' as const,
        name: 'compact_context',
        title: 'Summarizing 40 earlier messages',
        status: 'done' as const,
        depth: 0,
        usage: { inputTokens: 900, outputTokens: 30 },
      };
      request.events.emit(Methods.TreeUpdate, {
        turnId: request.turnId,
        nodes: [{ ...root, status: 'running' }, compaction],
      });
      return { ...done, tree: { version: 1, nodes: [root, compaction] } };
    };
    await modern.request(Methods.ChatSend, { sessionId, text: 'go on' });
    const kindsSeen = (client: TestClient) =>
      client
        .eventsOf(Methods.TreeUpdate)
        .flatMap((u) => (u['nodes'] as { id: string; kind: string }[]).filter((n) => n.id === 'c1'))
        .map((n) => n.kind);
    await until(() => kindsSeen(modern).length > 0 && kindsSeen(v1).length > 0);
    assert.deepEqual(kindsSeen(modern), ['compaction']);
    assert.deepEqual(kindsSeen(v1), ['tool']);
    for (const update of v1.eventsOf(Methods.TreeUpdate))
      assertValidNotification(Methods.TreeUpdate.method, update);

    const storedKind = async (client: TestClient) => {
      const loaded = (await client.request(Methods.SessionLoad, {
        sessionId,
      })) as ResultOf<typeof Methods.SessionLoad>;
      const answer = loaded.messages.find((m) => m.role === 'assistant');
      return answer?.tree?.nodes.find((n) => n.id === 'c1')?.kind;
    };
    // Stored once the turn is over.
    await until(() => modern.eventsOf(Methods.SessionState).some((s) => s['state'] === 'idle'));
    assert.equal(await storedKind(modern), 'compaction');
    assert.equal(await storedKind(v1), 'tool');
    for (const client of [modern, v1]) client.close();
    daemon.close();
  });
});
