/** Many sessions running turns at once in one daemon: each keeps its own messages, trees and seq. */
import { strict as assert } from 'node:assert';
import type { Json } from '../helpers/wire.js';
import {
  integrityCheck,
  killAll,
  removeScratch,
  scratchDir,
  startDaemon,
  turnEnded,
  type RunningDaemon,
} from './daemonProcess.js';

const SESSIONS = 8;
const TURNS = ['plan the day', 'fast reply please', 'anything else'];
const ANSWERS = ['Trip planned: Lisbon.', 'quick answer', 'ok'];

async function converse(daemon: RunningDaemon, index: number): Promise<string> {
  const { sessionId } = await daemon.result('session/new', {
    workspaceRoot: '/tmp',
    title: `session ${index}`,
  });
  for (const text of TURNS) {
    const { turnId } = await daemon.result('chat/send', { sessionId, text: `${text} (${index})` });
    await daemon.waitForEvent('session/state', turnEnded(turnId));
  }
  return sessionId as string;
}

describe('persistence: concurrent sessions', function () {
  this.timeout(30_000);
  afterEach(killAll);
  after(removeScratch);

  it(`${SESSIONS} sessions writing at once each come back whole after a restart`, async () => {
    const dataDir = scratchDir();
    const first = await startDaemon(dataDir);
    const ids = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => converse(first, i)));
    const lastSeqs = new Map<string, number>();
    for (const event of first.events()) {
      const { sessionId, seq } = event['params'] as { sessionId: string; seq: number };
      assert.equal(seq, (lastSeqs.get(sessionId) ?? 0) + 1, 'per-session seq without gaps');
      lastSeqs.set(sessionId, seq);
    }
    await first.kill();
    assert.equal(integrityCheck(dataDir), 'ok');

    const second = await startDaemon(dataDir);
    const listed = await second.result('session/list', { limit: 50 });
    assert.equal((listed['sessions'] as Json[]).length, SESSIONS);
    for (const [index, sessionId] of ids.entries()) {
      const loaded = await second.result('session/load', { sessionId });
      assert.equal((loaded['session'] as Json)['title'], `session ${index}`);
      assert.deepEqual(
        (loaded['messages'] as Json[]).map((m) => [m['role'], m['content'], m['status']]),
        TURNS.flatMap((text, turn) => [
          ['user', `${text} (${index})`, 'complete'],
          ['assistant', ANSWERS[turn], 'complete'],
        ]),
      );
      const attached = await second.result('session/attach', { sessionId, sinceSeq: 0 });
      assert.equal(attached['lastSeq'], lastSeqs.get(sessionId));
    }
    // Every replayed event came back exactly as first sent, session by session.
    const sent = first.events();
    await second.client.received.waitFor(() => second.events().length >= sent.length);
    const bySession = (events: Json[]) =>
      [...events].sort((a, b) => {
        const [pa, pb] = [a['params'] as Json, b['params'] as Json];
        const order =
          ids.indexOf(pa['sessionId'] as string) - ids.indexOf(pb['sessionId'] as string);
        return order !== 0 ? order : (pa['seq'] as number) - (pb['seq'] as number);
      });
    assert.deepEqual(bySession(second.events()), bySession(sent));
  });
});
