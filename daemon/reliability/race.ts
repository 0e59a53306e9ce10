/**
 * Race: the symlink-swap race of test/tools/confinementRace.test.ts, through
 * the spawned daemon. A scripted model makes rounds of workspace tool calls
 * (reads, listings, writes, edits, grep, glob) through names that another
 * process keeps swapping between real directories and symbolic links (to a
 * canary directory outside the workspace, and to `.git/`), in auto mode.
 *
 * Escapes counted: the canary in anything the daemon sent (tree/update
 * previews, chunks, errors), in anything it stored (the data dir: database,
 * WAL, logs), in a workspace file; anything written outside; any write in
 * `.git/` (a protected path the gate must ask for, and the client cannot
 * approve). Target: ≥ `raceCalls` executed tool calls, 0 escapes.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Judge,
  log,
  newSession,
  startDaemon,
  TurnDriver,
  type Json,
  type Scale,
  type ScenarioResult,
} from './support.js';
import { buildRaceFixture, raceDamage, raceRound, startSwapper } from './symlinkRace.js';

/** Rounds per turn: ~10.5 calls each stays under the turn's 200 tool calls and 20 iterations. */
const ROUNDS_PER_TURN = 16;

/** Files below `dir` (recursively) whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const found: string[] = [];
  const bytes = Buffer.from(needle, 'utf8');
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    try {
      if (readFileSync(path).includes(bytes)) found.push(path);
    } catch {
      // Gone meanwhile (a WAL checkpoint): nothing to read.
    }
  }
  return found;
}

export async function raceScenario(scale: Scale): Promise<ScenarioResult> {
  const judge = new Judge();
  const root = mkdtempSync(join(tmpdir(), 'arbor-rel-race-'));
  const fixture = buildRaceFixture(root);
  const rounds = Array.from({ length: ROUNDS_PER_TURN }, (_, i) => ({
    toolCalls: raceRound(i).map((call) => ({ name: call.name, arguments: call.args })),
  }));
  const daemon = await startDaemon({
    script: { version: 1, conversations: { race: [...rounds, { text: 'race done' }] } },
  });
  const swapper = startSwapper(fixture.pairs);
  let swapperStopped = false;
  try {
    const client = await daemon.authenticated();
    const leaks: string[] = [];
    const tools = new Map<string, Json>();
    client.onMessage = (message) => {
      const text = JSON.stringify(message);
      if (text.includes(fixture.token)) leaks.push(text.slice(0, 300));
      const params = message['params'] as Json | undefined;
      if (message['method'] !== 'tree/update' || !params) return;
      for (const node of params['nodes'] as Json[]) {
        if (node['kind'] === 'tool')
          tools.set(`${String(params['turnId'])}/${String(node['id'])}`, node);
      }
    };
    const sessionId = await newSession(client, fixture.ws);
    const driver = new TurnDriver(client, sessionId);
    const started = performance.now();
    const executed = (): number =>
      [...tools.values()].filter((n) => n['status'] === 'done' || n['status'] === 'error').length;
    let turns = 0;
    const stopReasons = new Map<string, number>();
    while (executed() < scale.raceCalls && turns < 100) {
      const { idle } = await driver.turn('race', 60_000);
      turns += 1;
      const reason = String(idle['stopReason']);
      stopReasons.set(reason, (stopReasons.get(reason) ?? 0) + 1);
      if (reason !== 'end_turn') judge.require(false, `a race turn ended with ${reason}`);
    }
    swapper.child.stdin!.end();
    swapperStopped = true;
    const swaps = await swapper.swaps;
    const elapsed = performance.now() - started;

    const statuses = new Map<string, number>();
    for (const node of tools.values()) {
      const status = String(node['status']);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    const damage = raceDamage(fixture);
    const rootChanged = damage.rootAfter.join('\n') !== fixture.rootBefore.join('\n');
    const stored = filesContaining(daemon.dataDir, fixture.token);
    const escapes =
      leaks.length +
      stored.length +
      damage.copiedIn.length +
      damage.writtenOutside.length +
      damage.gitWrites.length +
      (rootChanged ? 1 : 0);
    const calls = executed();

    log(
      `${calls} tool calls executed in ${turns} turns against ${swaps} swaps in ${(elapsed / 1000).toFixed(1)} s ` +
        `(${[...statuses].map(([s, n]) => `${n} ${s}`).join(', ')})`,
    );
    log(
      `escapes: ${leaks.length} on the wire, ${stored.length} stored in the data dir, ` +
        `${damage.copiedIn.length} copied into the workspace, ${damage.writtenOutside.length} written outside, ` +
        `${damage.gitWrites.length} written in .git/, ${rootChanged ? 1 : 0} created next to the workspace ` +
        `(target 0) ${escapes === 0 ? 'OK' : 'FAILED'}`,
    );
    judge.require(
      calls >= scale.raceCalls,
      `${calls} tool calls executed, fewer than ${scale.raceCalls}`,
    );
    judge.require(swaps > 1000, `the swapper made only ${swaps} swaps`);
    judge.require((statuses.get('done') ?? 0) >= 50, 'fewer than 50 calls succeeded between swaps');
    judge.require(escapes === 0, `${escapes} escapes`);
    for (const leak of leaks.slice(0, 3)) log(`  leak on the wire: ${leak}`);
    for (const path of stored.slice(0, 3)) log(`  canary stored in ${path}`);
    for (const [k] of [...damage.copiedIn, ...damage.writtenOutside, ...damage.gitWrites].slice(
      0,
      3,
    ))
      log(`  changed: ${k}`);
    judge.require(driver.gaps.length === 0, `seq gaps: ${driver.gaps.slice(0, 3).join('; ')}`);
    judge.require(daemon.alive(), 'the daemon exited');
    return judge.result(`${calls} calls, ${swaps} swaps, ${escapes} escapes`);
  } finally {
    if (!swapperStopped) swapper.child.kill('SIGKILL');
    await daemon.close();
    rmSync(root, { recursive: true, force: true });
  }
}
