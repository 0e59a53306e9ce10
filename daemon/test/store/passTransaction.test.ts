/**
 * Event appends of one pass of the event loop share one transaction
 * (store/passTransaction.ts): committed when the pass ends, by the store's
 * next other write, or by commitPending() — never left for another process
 * to wait on longer than that.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextPass } from 'node:timers/promises';
import { tryMount } from '../../reliability/diskFull.js';
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

  /** Writes into `file` until the disk it is on is full. */
  function fillDisk(file: string): void {
    const fd = openSync(file, 'w');
    const block = Buffer.alloc(64 * 1024, 1);
    try {
      for (;;) writeSync(fd, block);
    } catch {
      // ENOSPC: full
    } finally {
      closeSync(fd);
    }
  }

  it('on a full disk, a write with no room fails alone: the events before it stay stored, none is dropped', function () {
    // A real full disk (a small tmpfs): SQLite fails at COMMIT, when the WAL grows, which
    // page-count limits do not reproduce. Mounting needs root, as CI runs.
    const mountPoint = mkdtempSync(join(tmpdir(), 'arbor-pass-full-'));
    const why = tryMount(mountPoint, '4m');
    if (why !== undefined) {
      rmSync(mountPoint, { recursive: true, force: true });
      if (process.env['CI']) assert.fail(`cannot mount a tmpfs: ${why}`);
      this.skip();
    }
    try {
      const store = openStore(join(mountPoint, 'data'));
      const { sessionId } = store.createSession(newSession());
      store.appendUserMessage(sessionId, 't1', 'question');
      fillDisk(join(mountPoint, 'filler'));
      // A chunk the connection is about to send, then the turn's answer, larger than
      // the disk reserve, in the same pass.
      store.appendEvent(sessionId, 1, 'chat/chunk', { text: 'partial' });
      assert.throws(
        () => store.commitTurn(turnCommit('t1', { assistantText: 'word '.repeat(200_000) })),
        /full/,
      );
      assert.equal(store.droppedCommits, 0, 'the chunk was not dropped with the answer');
      assert.equal(committedEvents(store.path, sessionId), 1);
      assert.match(store.diskFull ?? '', /full/, 'the store says it writes into its reserve');
      // The turn's end without its answer still fits.
      store.commitTurn(turnCommit('t1', { stopReason: 'error', assistantText: '' }));
      store.close();
    } finally {
      execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
      rmSync(mountPoint, { recursive: true, force: true });
    }
  });
});
