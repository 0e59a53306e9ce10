/**
 * Disk full: the daemon's data dir on a 4 MiB tmpfs, turns of a 200 KB answer
 * until the disk is full. The turn (or chat/send) that hits it must say the
 * disk is full; after `mount -o remount,size=64m` the next turn must
 * complete; every turn a client saw complete must be stored complete
 * (session/load). Like test/persistence/diskFull.test.ts, through a socket.
 *
 * Mounting needs root: elsewhere the scenario is SKIPPED with the reason, and
 * FAILED under CI=true (CI runs as root; a skip there would hide the check).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Judge,
  log,
  newSession,
  startDaemon,
  TurnDriver,
  type Daemon,
  type Json,
  type Scale,
  type ScenarioResult,
} from './support.js';

const FULL_MESSAGE = /disk .*is full.*Free some space/s;

/** Mounts a tmpfs of `size` on `dir` (root only); undefined on success, else why not. Shared with the disk-full test. */
export function tryMount(dir: string, size: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return (error as { stderr?: Buffer }).stderr?.toString().trim() || String(error);
  }
}

function inCi(): boolean {
  const ci = process.env['CI'];
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

export async function diskFullScenario(_scale: Scale): Promise<ScenarioResult> {
  const judge = new Judge();
  const mountPoint = mkdtempSync(join(tmpdir(), 'arbor-rel-full-'));
  const why = tryMount(mountPoint, '4m');
  if (why !== undefined) {
    rmSync(mountPoint, { recursive: true, force: true });
    const reason = `mounting a tmpfs needs root (${why})`;
    log(reason);
    if (inCi()) return { verdict: 'FAILED', summary: 'no tmpfs under CI', reasons: [reason] };
    return { verdict: 'SKIPPED', summary: reason, reasons: [reason] };
  }
  let daemon: Daemon | undefined;
  try {
    const dataDir = join(mountPoint, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    daemon = await startDaemon({ dataDir });
    const client = await daemon.authenticated();
    const sessionId = await newSession(client, daemon.workspace);
    const driver = new TurnDriver(client, sessionId);
    // ~200 KB an answer: a 4 MiB disk is full after a dozen turns.
    await client.result('_arbor/testing/setScript', {
      sessionId,
      script: { version: 1, conversations: { '*': [{ text: 'word '.repeat(40_000) }] } },
    });

    const completed: string[] = [];
    let failure: string | undefined;
    let failedAt = '';
    for (let i = 0; i < 40 && failure === undefined; i++) {
      const text = `turn ${i}`;
      try {
        const { idle } = await driver.turn(text, 30_000);
        if (idle['stopReason'] === 'end_turn') completed.push(text);
        else {
          failure = String((idle['error'] as Json | undefined)?.['message'] ?? idle['stopReason']);
          failedAt = `${text}'s idle (stopReason ${String(idle['stopReason'])})`;
        }
      } catch (error) {
        // chat/send itself may be refused once nothing can be stored.
        failure = (error as Error).message;
        failedAt = `${text}'s chat/send`;
      }
    }
    log(
      `${completed.length} turns of 200 KB completed on a 4 MiB tmpfs; then ${failedAt || 'no failure'}`,
    );
    if (failure !== undefined) log(`  it said: ${failure.slice(0, 200)}`);
    judge.require(
      completed.length >= 3,
      `only ${completed.length} turns completed before the disk was full`,
    );
    judge.require(failure !== undefined, 'the disk never filled up');
    judge.require(
      failure === undefined || FULL_MESSAGE.test(failure),
      `the failing turn does not say the disk is full: ${failure?.slice(0, 200)}`,
    );

    execFileSync('mount', ['-o', 'remount,size=64m', mountPoint]);
    let afterReason = 'not run';
    try {
      const { idle } = await driver.turn('after', 30_000);
      afterReason = String(idle['stopReason']);
    } catch (error) {
      afterReason = (error as Error).message;
    }
    log(`after remount,size=64m: the next turn ended ${afterReason}`);
    judge.require(
      afterReason === 'end_turn',
      `the turn after space came back ended ${afterReason}`,
    );
    if (afterReason === 'end_turn') completed.push('after');

    const loaded = await client.result('session/load', { sessionId });
    const messages = loaded['messages'] as Json[];
    const stored = messages
      .filter((m, i) => m['role'] === 'user' && messages[i + 1]?.['status'] === 'complete')
      .map((m) => String(m['content']));
    const lost = completed.filter((t) => !stored.includes(t));
    const extra = stored.filter((t) => !completed.includes(t));
    log(
      `stored complete: ${stored.length} of ${completed.length} seen complete; ` +
        `${lost.length} lost, ${extra.length} stored complete but not seen so`,
    );
    judge.require(
      lost.length === 0,
      `turns seen complete but not stored complete: ${lost.join(', ')}`,
    );
    judge.require(
      extra.length === 0,
      `turns stored complete that the client saw fail: ${extra.join(', ')}`,
    );
    judge.require(driver.gaps.length === 0, `seq gaps: ${driver.gaps.slice(0, 3).join('; ')}`);
    judge.require(daemon.alive(), 'the daemon exited');
    return judge.result(
      `${completed.length - (afterReason === 'end_turn' ? 1 : 0)} turns, then "disk full"; ` +
        `after remount ${afterReason}; ${lost.length} lost`,
    );
  } finally {
    await daemon?.close();
    try {
      execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
    } catch {
      // already gone
    }
    rmSync(mountPoint, { recursive: true, force: true });
  }
}
