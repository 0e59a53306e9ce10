/** The CLI: exit codes, reporters and report files, -o, and baselines that cannot rot. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { main } from '../src/cli.js';
import { timeouts } from '../src/harness/connection.js';
import { makeTempDir, removeDir } from '../src/harness/process.js';
import { streamBounds } from '../src/scenarios/daemon/bounds.js';
import { CLI, clientCommand, daemonCommand } from './helpers.js';
import { all, parseXml } from './xml.js';

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

/** main() with stdout and stderr captured, and the process-wide settings it sets restored. */
async function inProcess(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const captured = { stdout: '', stderr: '' };
  const saved = {
    out: process.stdout.write,
    err: process.stderr.write,
    requestMs: timeouts.requestMs,
    slowConsumerBytes: streamBounds.slowConsumerBytes,
  };
  const capture =
    (to: 'stdout' | 'stderr') =>
    (chunk: string): boolean => {
      captured[to] += chunk;
      return true;
    };
  process.stdout.write = capture('stdout') as typeof process.stdout.write;
  process.stderr.write = capture('stderr') as typeof process.stderr.write;
  try {
    const code = await main(args);
    return { code, ...captured };
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    timeouts.requestMs = saved.requestMs;
    streamBounds.slowConsumerBytes = saved.slowConsumerBytes;
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
  this.timeout(60_000); // each case spawns the CLI and a daemon; the machine may be shared
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

  it('exits 2 on usage errors, naming the mistake', async () => {
    // In-process: a usage error returns before anything is spawned, so a process per case buys nothing.
    const cases: [string[], RegExp][] = [
      [['daemon'], /daemon needs --command or --socket/],
      [['bogus'], /expected exactly one of: daemon, client, list/],
      [['daemon', '--command', 'x', '--format', 'yaml'], /unknown --reporter yaml/],
      [['daemon', '--command', 'x', '--reporter', 'yaml'], /unknown --reporter yaml/],
      [['daemon', '--command', 'x', '--reporter', 'json', '--format', 'junit'], /disagree/],
      [['list', '--reporter', 'junit'], /list reports as pretty or json/],
      [
        ['daemon', '--command', 'x', '--baseline', path.join(dir, 'missing.yml')],
        /no such baseline file/,
      ],
      [
        ['daemon', '--command', 'x', '--baseline', 'a.yml', '--expected-failures', 'b.yml'],
        /disagree/,
      ],
      [['daemon', '--command', 'x', '--baseline', writeBad()], /expected "- <check-id>"/],
      [
        ['client', '--command', 'x', '--transport', 'pigeon'],
        /--transport must be stdio or socket/,
      ],
      [['daemon', '--command', 'x', '--check', 'daemon.no-such-check'], /is not a daemon check/],
      [['client', '--command', 'x', '--check', 'daemon.sessions.detach'], /is not a client check/],
    ];
    for (const [args, message] of cases) {
      const r = await inProcess(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
    }

    function writeBad(): string {
      const file = path.join(dir, 'bad.yml');
      writeFileSync(file, 'daemon.jsonrpc.parse-error\n');
      return file;
    }
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
      cli('daemon', '--command', daemonCommand('batch-success'), ...FAST, '--baseline', baseline),
      // --expected-failures: the option's older name
      cli('daemon', '--command', daemonCommand(), ...FAST, '--expected-failures', baseline),
    ]);
    assert.equal(expected.code, 0, expected.stdout);
    assert.match(expected.stdout, /XFAIL/);
    assert.equal(stale.code, 1, stale.stdout);
    assert.match(
      stale.stdout,
      /stale baseline entries .*daemon\.jsonrpc\.batch-rejected \(passes now\)/,
    );
  });

  it('a baseline entry naming no check fails the run, saying so', async () => {
    const baseline = path.join(dir, 'renamed.yml');
    writeFileSync(baseline, '- daemon.jsonrpc.no-such-check\n');
    const r = await cli('daemon', '--command', daemonCommand(), ...FAST, '--baseline', baseline);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /stale baseline entries .*daemon\.jsonrpc\.no-such-check \(no such check\)/,
    );
  });

  it('--write-baseline records the failures; the run passes against it, and fails once they are fixed', async () => {
    const baseline = path.join(dir, 'baseline.yml');
    const written = await cli(
      'daemon',
      '--command',
      daemonCommand('batch-success'),
      ...FAST,
      '--write-baseline',
      baseline,
    );
    assert.equal(written.code, 0, written.stdout + written.stderr);
    assert.match(written.stderr, /wrote 1 expected failures to /);
    assert.match(readFileSync(baseline, 'utf8'), /^- daemon\.jsonrpc\.batch-rejected {2}# MUST /m);
    const fixed = await cli(
      'daemon',
      '--command',
      daemonCommand(),
      ...FAST,
      '--baseline',
      baseline,
    );
    assert.equal(fixed.code, 1, fixed.stdout);
    assert.match(fixed.stdout, /^STALE +MUST +daemon\.jsonrpc\.batch-rejected/m);
  });

  it('writes JUnit XML and a Markdown summary besides the report on stdout', async () => {
    const junit = path.join(dir, 'junit.xml');
    const summary = path.join(dir, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const out = path.join(dir, 'out');
    const r = await cli(
      'daemon',
      '--command',
      daemonCommand('batch-success'),
      ...FAST,
      '--reporter',
      'markdown',
      '--junit',
      junit,
      '--summary',
      summary,
      '-o',
      out,
    );
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^## arbor-conformance daemon: FAIL\n/);
    for (const file of [junit, path.join(out, 'junit.xml')]) {
      const doc = parseXml(readFileSync(file, 'utf8'));
      const failures = all(doc, 'failure');
      assert.equal(doc.attributes.failures, '1');
      assert.equal(failures.length, 1);
      const failed = all(doc, 'testcase').find((c) => all(c, 'failure').length > 0);
      assert.equal(failed?.attributes.name, 'daemon.jsonrpc.batch-rejected');
      assert.ok(Number(doc.attributes.skipped) > 0, 'checks of scenarios not run are skipped');
    }
    // Appended, as $GITHUB_STEP_SUMMARY wants.
    assert.equal(readFileSync(summary, 'utf8'), `# earlier step\n${r.stdout}`);
    assert.equal(readFileSync(path.join(out, 'summary.md'), 'utf8'), r.stdout);
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
