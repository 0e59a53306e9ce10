/** The CLI: exit codes, report formats, -o, and baselines that cannot rot. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseBaseline } from '../src/checks/report.js';
import { makeTempDir, removeDir } from '../src/harness/process.js';
import { CLI, clientCommand, daemonCommand } from './helpers.js';

const exec = promisify(execFile);

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ['--import', 'tsx', CLI, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

// Only the cheap scenarios: the CLI is under test here, not the fixtures.
const FAST = [
  '--scenario',
  'daemon-batch',
  '--scenario',
  'daemon-jsonrpc-errors',
  '--timeout',
  '1500',
];

describe('arbor-conformance CLI', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = makeTempDir('arbor-conformance-cli-');
  });
  afterEach(() => removeDir(dir));

  it('exits 0 against the reference daemon and 1 against a broken one', async () => {
    const [good, bad] = await Promise.all([
      cli('daemon', '--command', daemonCommand(), ...FAST),
      cli('daemon', '--command', daemonCommand('batch-success'), ...FAST),
    ]);
    assert.equal(good.code, 0, good.stdout + good.stderr);
    assert.match(good.stdout, /verdict: PASS/);
    assert.equal(bad.code, 1, bad.stdout + bad.stderr);
    assert.match(bad.stdout, /FAIL +MUST +daemon\.jsonrpc\.batch-rejected/);
  });

  it('exits 2 on usage errors', async () => {
    const results = await Promise.all([
      cli('daemon'),
      cli('bogus'),
      cli('daemon', '--command', 'x', '--format', 'yaml'),
      cli('client', '--command', 'x', '--transport', 'pigeon'),
    ]);
    for (const r of results) assert.equal(r.code, 2, r.stdout + r.stderr);
  });

  it('writes JSON and JUnit reports, checks.json and transcripts of failing scenarios', async () => {
    const out = path.join(dir, 'out');
    const json = await cli(
      'daemon',
      '--command',
      daemonCommand('batch-success'),
      ...FAST,
      '--format',
      'json',
      '-o',
      out,
    );
    const report = JSON.parse(json.stdout) as {
      verdict: { exitCode: number };
      checks: { id: string; status: string; spec: string }[];
    };
    assert.equal(report.verdict.exitCode, 1);
    assert.equal(
      report.checks.find((c) => c.id === 'daemon.jsonrpc.batch-rejected')?.status,
      'FAIL',
    );
    assert.match(report.checks[0]!.spec, /^spec\/[a-z-]+\.md#[a-z0-9-]+$/);
    assert.deepEqual(
      JSON.parse(readFileSync(path.join(out, 'checks.json'), 'utf8')).checks.length,
      report.checks.length,
    );
    assert.deepEqual(readdirSync(path.join(out, 'transcripts')), ['daemon-batch.txt']);
    assert.match(
      readFileSync(path.join(out, 'transcripts', 'daemon-batch.txt'), 'utf8'),
      /FAIL daemon\.jsonrpc\.batch-rejected/,
    );

    const junit = await cli(
      'daemon',
      '--command',
      daemonCommand('batch-success'),
      ...FAST,
      '--format',
      'junit',
    );
    assert.match(junit.stdout, /^<\?xml/);
    assert.match(junit.stdout, /<testcase name="daemon\.jsonrpc\.batch-rejected"[^>]*><failure /);
  });

  it('a baselined failure passes the run; a baselined check that passes fails it', async () => {
    const baseline = path.join(dir, 'expected-failures.yml');
    writeFileSync(
      baseline,
      '# known defects\nexpected-failures:\n  - daemon.jsonrpc.batch-rejected\n',
    );
    const [expected, stale] = await Promise.all([
      cli(
        'daemon',
        '--command',
        daemonCommand('batch-success'),
        ...FAST,
        '--expected-failures',
        baseline,
      ),
      cli('daemon', '--command', daemonCommand(), ...FAST, '--expected-failures', baseline),
    ]);
    assert.equal(expected.code, 0, expected.stdout);
    assert.match(expected.stdout, /XFAIL/);
    assert.equal(stale.code, 1, stale.stdout);
    assert.match(stale.stdout, /stale baseline entries .*daemon\.jsonrpc\.batch-rejected/);
  });

  it('rejects a baseline naming unknown checks', async () => {
    const baseline = path.join(dir, 'bad.yml');
    writeFileSync(baseline, '- no.such.check\n');
    const r = await cli(
      'daemon',
      '--command',
      daemonCommand(),
      ...FAST,
      '--expected-failures',
      baseline,
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown check ids: no\.such\.check/);
  });

  it('lists checks with tiers and scenarios', async () => {
    const r = await cli('list', '--format', 'json');
    const listed = JSON.parse(r.stdout) as {
      checks: { id: string; tier: string }[];
      scenarios: { id: string }[];
    };
    assert.ok(listed.checks.some((c) => c.id === 'client.tree.rebuild' && c.tier === 'CAPABILITY'));
    assert.ok(listed.scenarios.some((s) => s.id === 'client-seq-gap'));
  });

  it('runs client scenarios against a client command', async () => {
    const r = await cli(
      'client',
      '--command',
      clientCommand(),
      '--scenario',
      'client-unknown-messages',
      '--transport',
      'socket',
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.ok(existsSync(CLI));
  });
});

describe('baseline files', () => {
  it('reads "- id" lists, comments and JSON arrays', () => {
    assert.deepEqual(
      parseBaseline('# c\n- daemon.jsonrpc.parse-error  # why\n\n- "client.tree.rebuild"\n'),
      ['daemon.jsonrpc.parse-error', 'client.tree.rebuild'],
    );
    assert.deepEqual(parseBaseline('["daemon.jsonrpc.parse-error"]'), [
      'daemon.jsonrpc.parse-error',
    ]);
    assert.throws(() => parseBaseline('daemon.jsonrpc.parse-error\n'), /expected "- <check-id>"/);
  });
});
