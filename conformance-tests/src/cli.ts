/**
 * arbor-conformance: checks an Arbor daemon or client against the protocol.
 * Exit code: 0 pass, 1 fail, 2 harness or usage error.
 */
import { appendFileSync, existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { BaselineError, formatBaseline, parseBaseline } from './checks/baseline.js';
import { decide } from './checks/report.js';
import { CHECKS } from './checks/registry.js';
import { timeouts } from './harness/connection.js';
import { spawnCommand, waitForSocket, type Spawned } from './harness/process.js';
import { CLIENT_SCENARIOS } from './scenarios/client/index.js';
import { streamBounds } from './scenarios/daemon/bounds.js';
import type { DaemonTarget } from './scenarios/daemon/context.js';
import { DAEMON_SCENARIOS } from './scenarios/daemon/index.js';
import { REPORTERS, isReporter } from './reporters/index.js';
import {
  runClientSuite,
  runDaemonSuite,
  writeOutputDir,
  type SuiteOptions,
  type SuiteResult,
} from './suite.js';

const USAGE = `usage:
  arbor-conformance daemon --command "<starts a daemon on stdio>" [options]
  arbor-conformance daemon --socket <path|127.0.0.1:port> --token-file <file> [--command "<starts it>"] [options]
  arbor-conformance client --command "<starts the client>" [--transport stdio|socket] [options]
  arbor-conformance list [--reporter pretty|json]

options:
  --protocol-version <n>       protocol version the suite speaks (default 1)
  --reporter <name>            report on stdout: pretty (default), json, junit, markdown
                               (--format is the same option)
  --junit <file>               also write the JUnit XML report to <file>
  --summary <file>             also append the Markdown summary to <file> (e.g. $GITHUB_STEP_SUMMARY)
  -o, --output <dir>           write checks.json, junit.xml, summary.md and transcripts of
                               failing scenarios
  --baseline <file>            check ids expected to fail ("- id" lines or a JSON array); an entry
                               whose check passes or no longer exists fails the run
                               (--expected-failures is the same option)
  --write-baseline <file>      write every failing check to <file> as a baseline; the run is then
                               judged against it
  --strict                     SHOULD failures fail the run too
  --scenario <id>              run only matching scenarios (repeatable)
  --check <id>                 run only the scenarios that can judge this check (repeatable;
                               every scenario for an always-on *.wire.* check)
  --jobs <n>                   scenarios run in parallel (default 4)
  --timeout <ms>               how long to wait for an answer (default 5000)
  --slow-consumer-mib <n>      MiB streamed to a client that reads nothing (default 32); set it
                               above your daemon's limit of unread bytes

In --command, {tmp} is replaced by a fresh temporary directory per process.
`;

class UsageError extends Error {}

const out = (text: string): void => void process.stdout.write(text);
const err = (text: string): void => void process.stderr.write(text);

function formatList(format: 'pretty' | 'json'): string {
  if (format === 'json') {
    return `${JSON.stringify({ checks: CHECKS, scenarios: [...DAEMON_SCENARIOS, ...CLIENT_SCENARIOS].map((s) => ({ id: s.id, role: s.role, title: s.title, checks: s.checks })) }, null, 2)}\n`;
  }
  const lines = ['checks:'];
  for (const c of CHECKS)
    lines.push(
      `  ${c.tier.padEnd(10)} ${c.id.padEnd(48)} spec/${c.spec}${c.capability ? `  (needs ${c.capability})` : ''}`,
    );
  lines.push('', 'scenarios:');
  for (const s of [...DAEMON_SCENARIOS, ...CLIENT_SCENARIOS])
    lines.push(`  ${s.id.padEnd(30)} ${s.title}`);
  return `${lines.join('\n')}\n`;
}

/** One option under two names (the older kept as an alias); both given must agree. */
function aliased(name: string, value?: string, alias?: string): string | undefined {
  if (value !== undefined && alias !== undefined && value !== alias)
    throw new UsageError(`--${name} and its alias disagree: ${value} vs ${alias}`);
  return value ?? alias;
}

function readBaseline(file: string | undefined): string[] {
  if (!file) return [];
  if (!existsSync(file)) throw new UsageError(`no such baseline file: ${file}`);
  return parseBaseline(readFileSync(file, 'utf8'));
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        command: { type: 'string' },
        socket: { type: 'string' },
        'token-file': { type: 'string' },
        transport: { type: 'string', default: 'stdio' },
        'protocol-version': { type: 'string', default: '1' },
        reporter: { type: 'string' },
        format: { type: 'string' },
        junit: { type: 'string' },
        summary: { type: 'string' },
        output: { type: 'string', short: 'o' },
        baseline: { type: 'string' },
        'expected-failures': { type: 'string' },
        'write-baseline': { type: 'string' },
        strict: { type: 'boolean', default: false },
        scenario: { type: 'string', multiple: true },
        check: { type: 'string', multiple: true },
        jobs: { type: 'string', default: '4' },
        timeout: { type: 'string', default: '5000' },
        'slow-consumer-mib': { type: 'string', default: '32' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(USAGE);
    return 0;
  }
  try {
    const mode = positionals[0];
    if (positionals.length !== 1 || !['daemon', 'client', 'list'].includes(mode ?? ''))
      throw new UsageError('expected exactly one of: daemon, client, list');
    const reporter = aliased('reporter', values.reporter, values.format) ?? 'pretty';
    if (!isReporter(reporter)) throw new UsageError(`unknown --reporter ${reporter}`);
    if (mode === 'list') {
      if (reporter !== 'pretty' && reporter !== 'json')
        throw new UsageError('list reports as pretty or json');
      out(formatList(reporter));
      return 0;
    }
    const protocolVersion = Number(values['protocol-version']);
    if (!Number.isInteger(protocolVersion) || protocolVersion < 1)
      throw new UsageError('--protocol-version must be a positive integer');
    const timeout = Number(values.timeout);
    if (!Number.isInteger(timeout) || timeout < 100)
      throw new UsageError('--timeout must be an integer of at least 100 (ms)');
    timeouts.requestMs = timeout;
    const slowConsumerMiB = Number(values['slow-consumer-mib']);
    if (!Number.isInteger(slowConsumerMiB) || slowConsumerMiB < 1)
      throw new UsageError('--slow-consumer-mib must be a positive integer');
    streamBounds.slowConsumerBytes = slowConsumerMiB * 1024 * 1024;
    const jobs = Number(values.jobs);
    if (!Number.isInteger(jobs) || jobs < 1)
      throw new UsageError('--jobs must be a positive integer');
    for (const id of values.check ?? [])
      if (!CHECKS.some((c) => c.id === id && c.role === mode))
        throw new UsageError(`--check ${id} is not a ${mode} check (see: arbor-conformance list)`);
    const baseline = readBaseline(
      aliased('baseline', values.baseline, values['expected-failures']),
    );
    const options: SuiteOptions = {
      protocolVersion,
      concurrency: jobs,
      baseline,
      strict: values.strict,
      ...(values.scenario ? { only: values.scenario } : {}),
      ...(values.check ? { checks: values.check } : {}),
    };

    let result: SuiteResult;
    if (mode === 'daemon') result = await runDaemon(values, options);
    else {
      if (!values.command) throw new UsageError('client needs --command');
      if (values.transport !== 'stdio' && values.transport !== 'socket')
        throw new UsageError('--transport must be stdio or socket');
      result = await runClientSuite(
        { command: values.command, transport: values.transport },
        options,
      );
    }
    const { report } = result;
    const writeBaseline = values['write-baseline'];
    // A run the harness broke says nothing about the target: never baseline it.
    if (writeBaseline && report.verdict.harnessErrors.length > 0)
      err(`arbor-conformance: harness errors: ${writeBaseline} not written\n`);
    else if (writeBaseline) {
      writeFileSync(
        writeBaseline,
        formatBaseline(report.checks, `${report.role}, ${report.target}`),
      );
      const failing = report.checks.filter((c) => c.status === 'FAIL').map((c) => c.id);
      report.verdict = decide(report.checks, report.verdict.harnessErrors, failing, values.strict);
      err(`arbor-conformance: wrote ${failing.length} expected failures to ${writeBaseline}\n`);
    }
    if (values.output) {
      writeOutputDir(values.output, result);
      writeFileSync(path.join(values.output, 'junit.xml'), REPORTERS.junit(report));
      writeFileSync(path.join(values.output, 'summary.md'), REPORTERS.markdown(report));
    }
    if (values.junit) writeFileSync(values.junit, REPORTERS.junit(report));
    if (values.summary) appendFileSync(values.summary, REPORTERS.markdown(report));
    out(REPORTERS[reporter](report));
    return report.verdict.exitCode;
  } catch (error) {
    if (error instanceof UsageError || error instanceof BaselineError) {
      err(`arbor-conformance: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    err(
      `arbor-conformance: harness error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 2;
  }
}

async function runDaemon(
  values: { command?: string; socket?: string; 'token-file'?: string },
  options: SuiteOptions,
): Promise<SuiteResult> {
  if (!values.socket) {
    if (!values.command) throw new UsageError('daemon needs --command or --socket');
    return runDaemonSuite({ kind: 'stdio', command: values.command }, options);
  }
  if (!values['token-file']) throw new UsageError('--socket needs --token-file');
  let started: Spawned | undefined;
  try {
    if (values.command) {
      started = spawnCommand(values.command);
      started.child.stdout?.resume();
      started.child.stderr?.resume();
    }
    await waitForSocket(values.socket, 10_000).catch(() => {
      throw new Error(`nothing listens on ${values.socket}`);
    });
    const token = readFileSync(values['token-file'], 'utf8').trim();
    const target: DaemonTarget = { kind: 'socket', address: values.socket, token };
    return await runDaemonSuite(target, options);
  } finally {
    started?.kill();
  }
}

// Run directly (`node dist/cli.js`, `tsx src/cli.ts`); bin/arbor-conformance.js imports main instead.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      err(`arbor-conformance: ${String(error)}\n`);
      process.exitCode = 2;
    },
  );
}
