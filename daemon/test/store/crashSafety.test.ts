/**
 * A writer process killed with SIGKILL at random moments, again and again:
 * every message whose commit it reported survives, the file stays intact, and
 * the turn it was running comes back as interrupted.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/index.js';
import { rawDb, removeScratchDirs, scratchDir } from './helpers.js';

const writer = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'turnWriter.ts');
const KILLS = 20;

interface Reported {
  messageIds: string[];
  begunTurns: Set<string>;
  committedTurns: Set<string>;
}

/** Runs the writer until a random moment, SIGKILLs it, and returns what it reported as committed. */
async function runAndKill(dir: string, round: number): Promise<Reported> {
  const child = spawn(process.execPath, ['--import', 'tsx', writer, dir, 'forever', `r${round}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  if (round % 4 === 0) {
    // Sometimes anywhere, startup and migrations included.
    await wait(Math.random() * 600);
  } else {
    const deadline = Date.now() + 15_000;
    while (!/\nuser /.test(stdout) && Date.now() < deadline && child.exitCode === null)
      await wait(2);
    await wait(Math.random() * 150);
  }
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL', `the writer ended by itself: ${stderr}`);

  const reported: Reported = { messageIds: [], begunTurns: new Set(), committedTurns: new Set() };
  // Only whole lines: a line cut by the kill reports nothing.
  for (const line of stdout.split('\n').slice(0, -1)) {
    const [kind, messageId, turnId] = line.split(' ');
    if (kind !== 'user' && kind !== 'assistant') continue;
    reported.messageIds.push(messageId!);
    (kind === 'user' ? reported.begunTurns : reported.committedTurns).add(turnId!);
  }
  return reported;
}

describe('store: crash safety', () => {
  afterEach(removeScratchDirs);

  it(`keeps every reported commit across ${KILLS} SIGKILLs, and marks the running turn interrupted`, async function () {
    this.timeout(300_000);
    const dir = scratchDir();
    let interruptedTotal = 0;
    let messagesChecked = 0;

    for (let round = 0; round < KILLS; round++) {
      const reported = await runAndKill(dir, round);

      const store = openStore(dir);
      const interrupted = new Set(store.markInterruptedTurns());
      interruptedTotal += interrupted.size;

      const db = rawDb(store.path);
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok', `round ${round}`);
      assert.equal(
        (db.pragma('foreign_key_check') as unknown[]).length,
        0,
        `round ${round}: dangling rows`,
      );
      const hasMessage = db.prepare('SELECT 1 FROM messages WHERE id = ?').pluck();
      for (const id of reported.messageIds) {
        assert.equal(hasMessage.get(id), 1, `round ${round}: committed message ${id} is missing`);
      }
      messagesChecked += reported.messageIds.length;
      assert.equal(
        db.prepare(`SELECT count(*) FROM turns WHERE status = 'running'`).pluck().get(),
        0,
      );
      // Every commitTurn is whole: a finished turn has its answer, tree and usage.
      assert.equal(
        db
          .prepare(
            `SELECT count(*) FROM turns t WHERE t.status = 'complete' AND NOT EXISTS (
                      SELECT 1 FROM messages m JOIN trees tr ON tr.message_id = m.id
                      WHERE m.turn_id = t.id AND m.role = 'assistant')`,
          )
          .pluck()
          .get(),
        0,
      );
      assert.equal(
        db
          .prepare(
            `SELECT count(*) FROM turns WHERE status = 'complete' AND id NOT IN (SELECT turn_id FROM turn_usage)`,
          )
          .pluck()
          .get(),
        0,
      );
      db.close();

      const turnStatus = (turnId: string) => store.getTurn(turnId)?.status;
      for (const turnId of reported.committedTurns) assert.equal(turnStatus(turnId), 'complete');
      for (const turnId of reported.begunTurns) {
        if (reported.committedTurns.has(turnId)) continue;
        // Killed between the user message and the report of its commit.
        const status = turnStatus(turnId);
        assert.ok(status === 'interrupted' || status === 'complete', `turn ${turnId} is ${status}`);
        if (status === 'interrupted') {
          assert.ok(interrupted.has(turnId));
          const session = store.getTurn(turnId)!.sessionId;
          const shown = store.loadSession(session)!.messages.filter((m) => m.turnId === turnId);
          assert.deepEqual(
            shown.map((m) => [m.role, m.status]),
            [['user', 'interrupted']],
          );
        }
      }
      store.close();
    }

    assert.ok(messagesChecked > KILLS, `only ${messagesChecked} reported commits were checked`);
    assert.ok(interruptedTotal > 0, 'no kill landed inside a running turn');
  });
});
