/**
 * No false positives: the reference daemon, varied in ways the spec allows
 * (`--variant`), still passes every check. A check that fails one of these
 * would fail a correct daemon written by someone else.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { timeouts } from '../src/harness/connection.js';
import { makeTempDir, removeDir, spawnCommand, waitForSocket } from '../src/harness/process.js';
import { streamBounds } from '../src/scenarios/daemon/bounds.js';
import { runDaemonSuite, type SuiteResult } from '../src/suite.js';
import { DAEMON, pool } from './helpers.js';

const node = `"${process.execPath}"`;

/** The variants the reference daemon knows, as it lists them for an unknown one. */
function variants(): string[] {
  const run = spawnSync(process.execPath, [DAEMON, '--variant', 'conformance-none'], {
    encoding: 'utf8',
  });
  const known = /known: (.*)/.exec(run.stderr)?.[1];
  assert.ok(known, `the reference daemon did not list its variants: ${run.stderr}`);
  return known.split(', ');
}

async function overSocket(variant: string): Promise<SuiteResult> {
  const dir = makeTempDir('arbor-conformance-variant-');
  const socket = path.join(dir, 'daemon.sock');
  const tokenFile = path.join(dir, 'token');
  writeFileSync(tokenFile, 'conformance-variant-token\n');
  // A long deadline for the token: on a busy machine 2 s can pass before a connection is read.
  const daemon = spawnCommand(
    `${node} "${DAEMON}" --listen "${socket}" --token-file "${tokenFile}" --variant ${variant} --auth-timeout-ms 10000`,
  );
  daemon.child.stdout?.resume();
  daemon.child.stderr?.resume();
  try {
    await waitForSocket(socket, 5000);
    return await runDaemonSuite(
      { kind: 'socket', address: socket, token: 'conformance-variant-token' },
      { concurrency: 8 },
    );
  } finally {
    daemon.kill();
    await daemon.exit;
    removeDir(dir);
  }
}

const overStdio = (variant: string): Promise<SuiteResult> =>
  runDaemonSuite(
    { kind: 'stdio', command: `${node} "${DAEMON}" --stdio --variant ${variant}` },
    { concurrency: 6 },
  );

/** Variants of the byte stream also run over stdio, where stdout's pipe splits differently. */
const RUNS = [
  ...variants().map((variant) => ({ variant, mode: 'socket' as const })),
  { variant: 'one-byte-writes', mode: 'stdio' as const },
  { variant: 'coalesced-writes', mode: 'stdio' as const },
  { variant: 'extra-headers', mode: 'stdio' as const },
];

describe('a correct daemon varied as the spec allows passes every check', function () {
  this.timeout(180_000);
  const results = new Map<string, SuiteResult>();
  const bytes = streamBounds.slowConsumerBytes;
  const requestMs = timeouts.requestMs;
  before(async () => {
    // A correct daemon answers at once; the long timeout only keeps a busy machine, where
    // many daemon processes start at once, from failing the run.
    timeouts.requestMs = 15_000;
    // As in fixtures.test.ts: well past the reference daemon's 2 MiB, cheap enough.
    streamBounds.slowConsumerBytes = 6 * 1024 * 1024;
    const runs = await pool(RUNS, 3, ({ variant, mode }) =>
      mode === 'socket' ? overSocket(variant) : overStdio(variant),
    );
    RUNS.forEach(({ variant, mode }, i) => results.set(`${variant} ${mode}`, runs[i]!));
  });
  after(() => {
    streamBounds.slowConsumerBytes = bytes;
    timeouts.requestMs = requestMs;
  });

  for (const { variant, mode } of RUNS) {
    it(`--variant ${variant} over ${mode}`, () => {
      const result = results.get(`${variant} ${mode}`)!;
      const failing = result.report.checks
        .filter((c) => c.status === 'FAIL')
        .map((c) => `${c.id}: ${c.messages.join(' | ')}`);
      assert.deepEqual(failing, []);
      assert.deepEqual(result.report.verdict.harnessErrors, []);
      // The variant was exercised: checks passed, not just skipped.
      assert.ok(result.report.checks.filter((c) => c.status === 'PASS').length > 50);
    });
  }
});
