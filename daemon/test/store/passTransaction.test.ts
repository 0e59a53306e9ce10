/**
 * Event appends of one pass of the event loop share one transaction
 * (store/passTransaction.ts): committed when the pass ends, by the store's
 * next other write, or by commitPending() — never left for another process
 * to wait on longer than that.
 */
import { strict as assert } from 'node:assert';
import { setImmediate as nextPass } from 'node:timers/promises';
import { openStore } from '../../src/store/index.js';
import { newSession, rawDb, removeScratchDirs, scratchDir, turnCommit } from './helpers.js';

describe('store: one transaction per pass', () => {
  afterEach(removeScratchDirs);

  function committedEvents(path: string, sessionId: string): number {
    const db = rawDb(path);
    try {
      return db
        .prepare('SELECT count(*) FROM events WHERE session_id = ?')
        .pluck()
        .get(sessionId) as number;
    } finally {
      db.close();
    }
  }

  it('commits the events of one pass together when the pass ends', async () => {
    const store = openStore(scratchDir());
    const { sessionId } = store.createSession(newSession());
    for (let seq = 1; seq <= 3; seq++) store.appendEvent(sessionId, seq, 'chat/chunk', { seq });
    // This connection reads its own writes at once; another sees them once committed.
    assert.equal(store.lastSeq(sessionId), 3);
    assert.equal(committedEvents(store.path, sessionId), 0, 'not before the pass ends');
    await nextPass();
    assert.equal(committedEvents(store.path, sessionId), 3);
    store.close();
  });

  it('commits pending events with the next other write, and on commitPending()', () => {
    const store = openStore(scratchDir());
    const { sessionId } = store.createSession(newSession());
    store.appendEvent(sessionId, 1, 'session/state', { state: 'running' });
    store.appendUserMessage(sessionId, 't1', 'question');
    assert.equal(committedEvents(store.path, sessionId), 1, 'committed with the user message');
    store.appendEvent(sessionId, 2, 'chat/chunk', { text: 'a' });
    store.commitPending();
    assert.equal(committedEvents(store.path, sessionId), 2);
    store.close();
  });

  it('a failed write undoes only its own rows and leaves nothing locked', () => {
    const store = openStore(scratchDir());
    const { sessionId } = store.createSession(newSession());
    store.appendEvent(sessionId, 1, 'session/state', { state: 'running' });
    assert.throws(() => store.commitTurn(turnCommit('no-such-turn')), /no-such-turn/);
    // Another connection can write at once: the pass's transaction was committed.
    const db = rawDb(store.path);
    db.pragma('busy_timeout = 0');
    db.exec('CREATE TABLE probe (x)');
    db.close();
    assert.equal(committedEvents(store.path, sessionId), 1);
    store.close();
  });
});
