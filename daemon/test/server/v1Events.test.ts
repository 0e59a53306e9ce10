/**
 * Enum values added after protocol 1 reach only clients that advertised
 * `capabilities.openEnums`; a v1 client gets their stand-in
 * (versioning.md#versioning-new-values-gated). The stored event keeps the real value.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
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

describe('enum values added after protocol 1 (stopReason max_tokens)', () => {
  it('a client with openEnums gets max_tokens, a v1 client end_turn; both see the same seq; replay keeps the real value', async () => {
    const runner = new FakeRunner();
    const daemon = inMemoryDaemon({ runner });
    const router = buildRouter(daemon.context);
    const connect = async (capabilities: object): Promise<TestClient> => {
      const client = connectClient(daemon.context, router);
      await client.request(Methods.Initialize, { capabilities });
      client.rpc.sendNotification(Methods.Initialized.method, {});
      return client;
    };
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
