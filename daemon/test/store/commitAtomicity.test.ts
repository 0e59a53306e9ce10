/** commitTurn writes all of a turn or none of it. */
import { strict as assert } from 'node:assert';
import { openStore, type Store } from '../../src/store/index.js';
import { count, newSession, rawDb, removeScratchDirs, scratchDir, turnCommit } from './helpers.js';

/** Tables commitTurn writes to, in the order it writes them. */
const failurePoints = ['messages', 'trees', 'turn_usage'] as const;

describe('store: commitTurn is one transaction', () => {
  let store: Store;
  afterEach(() => {
    store.close();
    removeScratchDirs();
  });

  for (const table of failurePoints) {
    it(`a failure while writing ${table} leaves the turn running and nothing of it written`, () => {
      store = openStore(scratchDir());
      const { sessionId } = store.createSession(newSession());
      store.appendUserMessage(sessionId, 't1', 'question');
      const before = store.loadSession(sessionId)!;

      // Inject the failure from outside: a trigger that aborts the insert into `table`.
      // For messages it fires only on the assistant message, after the turn row was updated.
      const db = rawDb(store.path);
      db.exec(`CREATE TRIGGER inject_failure BEFORE INSERT ON ${table}
               ${table === 'messages' ? "WHEN NEW.role = 'assistant'" : ''}
               BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
      const rowsBefore = Object.fromEntries(
        ['turns', 'messages', 'trees', 'turn_usage'].map((t) => [t, count(db, t)]),
      );

      assert.throws(
        () => store.commitTurn(turnCommit('t1', { toolMessages: [{ content: 'tool output' }] })),
        /injected failure/,
      );

      assert.deepEqual(
        Object.fromEntries(
          ['turns', 'messages', 'trees', 'turn_usage'].map((t) => [t, count(db, t)]),
        ),
        rowsBefore,
      );
      assert.equal(store.getTurn('t1')!.status, 'running');
      assert.equal(store.getTurn('t1')!.usage, undefined);
      assert.deepEqual(store.loadSession(sessionId), before);

      // Once the cause is gone, the same commit goes through whole.
      db.exec('DROP TRIGGER inject_failure');
      db.close();
      store.commitTurn(turnCommit('t1', { toolMessages: [{ content: 'tool output' }] }));
      const after = store.loadSession(sessionId)!;
      assert.deepEqual(
        after.messages.map((m) => [m.role, m.status]),
        [
          ['user', 'complete'],
          ['tool', 'complete'],
          ['assistant', 'complete'],
        ],
      );
      assert.equal(store.turnUsage('t1').length, 2);
    });
  }

  it('a reader on another connection never sees a half-committed turn', () => {
    store = openStore(scratchDir());
    const reader = openStore(store.path.replace(/\/arbor\.db$/, ''));
    const { sessionId } = store.createSession(newSession());
    for (let i = 0; i < 50; i++) {
      store.appendUserMessage(sessionId, `t${i}`, `q${i}`);
      const seen = reader.loadSession(sessionId)!;
      assert.equal(seen.messages.at(-1)!.role, 'user');
      store.commitTurn(turnCommit(`t${i}`));
      const done = reader.loadSession(sessionId)!.messages.at(-1)!;
      assert.equal(done.role, 'assistant');
      assert.ok(done.tree && done.usage && done.status === 'complete');
      assert.equal(reader.turnUsage(`t${i}`).length, 2);
    }
    reader.close();
  });
});
