/**
 * Idle sessions leave memory: a loaded session with no attached client and
 * no running turn is dropped after the idle time (SessionManager.evictIdle),
 * and its next use loads it again from the store, as if it had never left.
 * The clock is the test's own, so nothing here waits for time to pass.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
import {
  FakeRunner,
  inMemoryDaemon,
  result,
  until,
  type TestClient,
} from './helpers/inMemoryDaemon.js';

const IDLE_MS = 1000;

function seqsOf(client: TestClient, sessionId: string): number[] {
  return client.events
    .filter((e) => e.params['sessionId'] === sessionId)
    .map((e) => e.params['seq'] as number);
}

function idleEvents(client: TestClient): number {
  return client
    .eventsOf(Methods.SessionState)
    .filter((p) => p['state'] === 'idle' && p['stopReason'] !== undefined).length;
}

describe('sessions: idle eviction', () => {
  it('drops an idle session with no client after the idle time, and reloads it on its next use', async () => {
    let now = 0;
    const runner = new FakeRunner();
    runner.autoResult = (request) => result(request, 'end_turn', `answer to ${request.text}`);
    const daemon = inMemoryDaemon({ runner, idleEvictMs: IDLE_MS, now: () => now });
    const { sessions } = daemon.context;
    const client = await daemon.connect();
    const workspaceRoot = mkdtempSync(join(tmpdir(), 'arbor-ws-'));
    const { sessionId } = await client.request(Methods.SessionNew, { workspaceRoot });
    await client.request(Methods.ChatSend, { sessionId, text: 'first' });
    await until(() => idleEvents(client) === 1);

    now += 10 * IDLE_MS;
    assert.deepEqual(sessions.evictIdle(), [], 'an attached session stays');

    await client.request(Methods.SessionDetach, { sessionId });
    now += IDLE_MS / 2;
    assert.deepEqual(sessions.evictIdle(), [], 'not idle long enough yet');
    now += IDLE_MS;
    assert.deepEqual(sessions.evictIdle(), [sessionId]);
    assert.equal(sessions.loadedCount, 0);

    // Listed and loadable as before, without loading it into memory.
    const listed = await client.request(Methods.SessionList, {});
    assert.deepEqual(
      listed.sessions.map((s: { sessionId: string; state: string }) => [s.sessionId, s.state]),
      [[sessionId, 'idle']],
    );
    assert.equal(sessions.loadedCount, 0);

    // The next use loads it again: seq goes on from the log, history is intact.
    const seen = seqsOf(client, sessionId);
    const lastSeq = seen[seen.length - 1]!;
    const attached = await client.request(Methods.SessionAttach, {
      sessionId,
      role: 'controller',
      sinceSeq: lastSeq,
    });
    assert.equal(attached.lastSeq, lastSeq);
    assert.equal(sessions.loadedCount, 1);
    await client.request(Methods.ChatSend, { sessionId, text: 'second' });
    await until(() => idleEvents(client) === 2);
    const seqs = seqsOf(client, sessionId);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      'one numbering, no gap, across the eviction',
    );
    assert.deepEqual(
      runner.requests[1]!.history.map((m) => [m.role, m.content]),
      [
        ['user', 'first'],
        ['assistant', 'answer to first'],
      ],
    );
    client.close();
    daemon.close();
  });

  it('keeps a session whose turn runs with no client attached, and drops it once the turn is over', async () => {
    let now = 0;
    const runner = new FakeRunner();
    const daemon = inMemoryDaemon({ runner, idleEvictMs: IDLE_MS, now: () => now });
    const { sessions } = daemon.context;
    const client = await daemon.connect();
    const workspaceRoot = mkdtempSync(join(tmpdir(), 'arbor-ws-'));
    const { sessionId } = await client.request(Methods.SessionNew, { workspaceRoot });
    await client.request(Methods.ChatSend, { sessionId, text: 'long' });
    await until(() => runner.requests.length === 1);
    await client.request(Methods.SessionDetach, { sessionId });

    now += 10 * IDLE_MS;
    assert.deepEqual(sessions.evictIdle(), [], 'a running turn keeps it');
    runner.finish();
    await until(() => daemon.store.getSession(sessionId)?.state !== 'running');
    // Idle time counts from the turn's end, not from the last request.
    now += IDLE_MS / 2;
    assert.deepEqual(sessions.evictIdle(), []);
    now += IDLE_MS;
    assert.deepEqual(sessions.evictIdle(), [sessionId]);
    const loaded = await client.request(Methods.SessionLoad, { sessionId });
    assert.deepEqual(
      loaded.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
      [
        ['user', 'long'],
        ['assistant', 'done'],
      ],
    );
    client.close();
    daemon.close();
  });
});
