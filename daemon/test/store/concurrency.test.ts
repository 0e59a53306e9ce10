/** Several writers on one database wait for each other instead of failing with SQLITE_BUSY. */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/index.js';
import { count, newSession, rawDb, removeScratchDirs, scratchDir, turnCommit } from './helpers.js';

const writer = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'turnWriter.ts');

describe('store: concurrent writers', () => {
  afterEach(removeScratchDirs);

  it('two Store instances on one file interleave writes and see each other’s', () => {
    const dir = scratchDir();
    const a = openStore(dir);
    const b = openStore(dir);
    const sa = a.createSession(newSession({ workspaceRoot: '/w/a' })).sessionId;
    const sb = b.createSession(newSession({ workspaceRoot: '/w/b' })).sessionId;
    for (let i = 0; i < 100; i++) {
      a.appendUserMessage(sa, `a${i}`, `qa${i}`);
      b.appendUserMessage(sb, `b${i}`, `qb${i}`);
      b.appendEvent(sb, i + 1, 'chat/chunk', { i });
      // An event is committed when the pass of the event loop ends; one thread
      // holding both stores cannot wait for that, so it commits at once.
      b.commitPending();
      a.commitTurn(turnCommit(`a${i}`));
      a.appendEvent(sa, i + 1, 'chat/chunk', { i });
      a.commitPending();
      b.commitTurn(turnCommit(`b${i}`));
      // Each sees the other's commits at once.
      assert.equal(a.loadSession(sb)!.messages.length, 2 * (i + 1));
      assert.equal(b.loadSession(sa)!.messages.length, 2 * (i + 1));
    }
    assert.equal(a.lastSeq(sb), 100);
    assert.equal(b.listSessions({ limit: 10 }).sessions.length, 2);
    a.close();
    b.close();
  });

  it('a child process and this process write at the same time without a failure', async function () {
    this.timeout(60_000);
    const dir = scratchDir();
    const store = openStore(dir);
    const childTurns = 300;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', writer, dir, String(childTurns), 'child'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    let done = false;
    void exited.then(() => (done = true));

    // Wait until the child writes, then write alongside it until it is done.
    while (!stdout.includes('ready') && !done) await new Promise((r) => setTimeout(r, 5));
    const sessionId = store.createSession(newSession({ workspaceRoot: '/w/parent' })).sessionId;
    let parentTurns = 0;
    let overlapped = 0;
    while (!done) {
      for (let k = 0; k < 5; k++) {
        const turnId = `parent-t${parentTurns++}`;
        store.appendUserMessage(sessionId, turnId, 'q');
        store.commitTurn(turnCommit(turnId));
        store.appendEvent(sessionId, parentTurns, 'session/state', { state: 'idle' });
      }
      if (stdout.includes('user ') && !stdout.includes('done')) overlapped++;
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(await exited, 0, stderr);
    assert.match(stdout, new RegExp(`done ${childTurns}`));
    assert.ok(overlapped > 0, 'the parent wrote while the child was writing');

    const db = rawDb(store.path);
    assert.equal(count(db, 'turns'), childTurns + parentTurns);
    assert.equal(count(db, 'messages'), 2 * (childTurns + parentTurns));
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    db.close();
    assert.equal(store.loadSession(sessionId)!.messages.length, 2 * parentTurns);
    store.close();
  });
});
