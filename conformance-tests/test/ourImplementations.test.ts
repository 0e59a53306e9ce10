/**
 * CI for our own implementations, with no baseline: the Arbor daemon (stdio
 * and socket) and the client core's conformance driver (stdio and socket)
 * must pass, and no MUST or CAPABILITY check may be SKIPPED for any reason
 * but a capability the implementation does not advertise — a scenario that
 * silently stops reaching its checks fails here.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckResult } from '../src/checks/results.js';
import { timeouts } from '../src/harness/connection.js';
import { makeTempDir, removeDir, spawnCommand, waitForSocket } from '../src/harness/process.js';
import { runClientSuite, runDaemonSuite, type SuiteResult } from '../src/suite.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const ARBOR = path.join(REPO, 'daemon', 'bin', 'arbor.js');
const DAEMON_BUNDLE = path.join(REPO, 'daemon', 'dist', 'bundle', 'arbor.js');
const DRIVER = path.join(REPO, 'protocol-spec', 'dist', 'client', 'conformanceDriverMain.js');
const node = `"${process.execPath}"`;

/** The skip reasons a correct run may show: the implementation lacks the capability. */
const CAPABILITY_ABSENT = /does not (advertise|declare) capabilities\./;
/**
 * Checks that judge only what a daemon does without a capability: ours
 * advertises every one, so they can only be skipped (each has a one-defect
 * fixture that does not advertise it).
 */
const NEEDS_CAPABILITY_ABSENT = new Set(['daemon.versioning.capability-not-negotiated']);

/** Builds what the runs spawn when it is missing (a fresh clone after `npm ci`). */
function ensureBuilt(): void {
  if (!existsSync(DAEMON_BUNDLE))
    execFileSync('npm', ['run', '--silent', 'bundle', '-w', 'daemon'], {
      cwd: REPO,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  if (!existsSync(DRIVER))
    execFileSync('npx', ['tsc', '-b', 'protocol-spec'], {
      cwd: REPO,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
}

/**
 * The user configuration both daemon runs get: web_fetch on the always-ask
 * list, so that daemon.approvals.always-ask finds a tool to judge (the suite
 * learns it from tools/list, as from any daemon).
 */
function writeConfig(dir: string): string {
  const file = path.join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ alwaysAsk: ['web_fetch'] }));
  return file;
}

async function daemonOverSocket(config: string): Promise<SuiteResult> {
  const dir = makeTempDir('arbor-conformance-ours-');
  const socket = path.join(dir, 'daemon.sock');
  const daemon = spawnCommand(
    `${node} "${ARBOR}" daemon --listen "${socket}" --data-dir "${dir}" --provider scripted --config "${config}"`,
  );
  daemon.child.stdout?.resume();
  daemon.child.stderr?.resume();
  try {
    await waitForSocket(socket, 10_000);
    const token = readFileSync(path.join(dir, 'token'), 'utf8').trim();
    return await runDaemonSuite({ kind: 'socket', address: socket, token }, { concurrency: 4 });
  } finally {
    daemon.kill();
    await daemon.exit;
    removeDir(dir);
  }
}

/** Over several runs of one implementation: a check counts as reached if any run reached it. */
function unreached(results: readonly SuiteResult[]): string[] {
  const byId = new Map<string, CheckResult[]>();
  for (const result of results)
    for (const check of result.report.checks)
      byId.set(check.id, [...(byId.get(check.id) ?? []), check]);
  const problems: string[] = [];
  for (const [id, runs] of byId) {
    if (runs[0]!.tier !== 'MUST' && runs[0]!.tier !== 'CAPABILITY') continue;
    if (runs.some((c) => c.status !== 'SKIPPED') || NEEDS_CAPABILITY_ABSENT.has(id)) continue;
    const reasons = runs.flatMap((c) => c.messages);
    if (!reasons.every((m) => CAPABILITY_ABSENT.test(m)))
      problems.push(`${id}: SKIPPED (${reasons.join(' | ')})`);
  }
  return problems;
}

function assertPassed(result: SuiteResult): void {
  const failing = result.report.checks
    .filter((c) => c.status === 'FAIL')
    .map((c) => `${c.id}: ${c.messages.join(' | ')}`);
  assert.deepEqual(failing, [], `${result.report.target}\n${failing.join('\n')}`);
  assert.deepEqual(result.report.verdict.harnessErrors, []);
  assert.equal(result.report.verdict.exitCode, 0);
}

describe('our implementations pass the suite, without a baseline', function () {
  this.timeout(60_000);
  const daemon: SuiteResult[] = [];
  const client: SuiteResult[] = [];

  // Correct implementations answer at once, so a long timeout costs nothing here, and it
  // keeps a busy CI machine (many processes start at once) from failing the run.
  let requestMs = timeouts.requestMs;
  let configDir = '';
  before(async function () {
    this.timeout(120_000); // a first build of the daemon bundle and the driver
    ensureBuilt();
    requestMs = timeouts.requestMs;
    timeouts.requestMs = 15_000;
    configDir = makeTempDir('arbor-conformance-config-');
    const config = writeConfig(configDir);
    const runs = await Promise.all([
      runDaemonSuite(
        {
          kind: 'stdio',
          command: `${node} "${ARBOR}" daemon --stdio --data-dir {tmp} --provider scripted --config "${config}"`,
        },
        { concurrency: 4 },
      ),
      daemonOverSocket(config),
      runClientSuite({ command: `${node} "${DRIVER}"`, transport: 'stdio' }, { concurrency: 4 }),
      runClientSuite({ command: `${node} "${DRIVER}"`, transport: 'socket' }, { concurrency: 4 }),
    ]);
    daemon.push(runs[0], runs[1]);
    client.push(runs[2], runs[3]);
  });
  after(() => {
    timeouts.requestMs = requestMs;
    if (configDir) removeDir(configDir);
  });

  it('the Arbor daemon passes over stdio', () => assertPassed(daemon[0]!));
  it('the Arbor daemon passes over a socket', () => assertPassed(daemon[1]!));
  it('the Arbor daemon reaches every MUST and CAPABILITY check it advertises', () =>
    assert.deepEqual(unreached(daemon), []));
  it('the budget scenario is reached: setScript budgets end the turn with budget/exceeded', () => {
    for (const id of ['daemon.testing.set-budgets', 'daemon.budget.exceeded-notified'])
      assert.ok(
        daemon.some((r) => r.report.checks.find((c) => c.id === id)?.status === 'PASS'),
        `${id} did not pass`,
      );
  });

  it("the client core's conformance driver passes over stdio", () => assertPassed(client[0]!));
  it("the client core's conformance driver passes over a socket", () => assertPassed(client[1]!));
  it("the client core's driver reaches every MUST and CAPABILITY check", () =>
    assert.deepEqual(unreached(client), []));
});
