/**
 * arbor-conformance: checks an Arbor daemon or client against the protocol.
 * Exit code: 0 pass, 1 fail, 2 harness or usage error.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  BaselineError,
  formatJson,
  formatJunit,
  formatPretty,
  parseBaseline,
  type Report,
} from './checks/report.js';
import { CHECKS } from './checks/registry.js';
import { timeouts } from './harness/connection.js';
import { spawnCommand, waitForSocket, type Spawned } from './harness/process.js';
import { CLIENT_SCENARIOS } from './scenarios/client/index.js';
import { streamBounds } from './scenarios/daemon/bounds.js';
import type { DaemonTarget } from './scenarios/daemon/context.js';
import { DAEMON_SCENARIOS } from './scenarios/daemon/index.js';
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
  arbor-conformance list [--format pretty|json]

options:
  --protocol-version <n>       protocol version the suite speaks (default 1)
  --format pretty|json|junit   report on stdout (default pretty)
  -o, --output <dir>           write checks.json and transcripts of failing scenarios
  --expected-failures <file>   baseline of check ids expected to fail ("- id" lines or a JSON array);
                               a baselined check that passes fails the run
  --strict                     SHOULD failures fail the run too
  --scenario <id>              run only matching scenarios (repeatable)
  --jobs <n>                   scenarios run in parallel (default 4)
  --timeout <ms>               how long to wait for an answer (default 5000)
  --slow-consumer-mib <n>      MiB streamed to a client that reads nothing (default 32); set it
                               above your daemon's limit of unread bytes

In --command, {tmp} is replaced by a fresh temporary directory per process.
`;

class UsageError extends Error {}

const out = (text: string): void => void process.stdout.write(text);
const err = (text: string): void => void process.stderr.write(text);

function formatList(format: string): string {
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

function render(report: Report, format: string): string {
  if (format === 'json') return formatJson(report);
  if (format === 'junit') return formatJunit(report);
  return formatPretty(report);
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
        format: { type: 'string', default: 'pretty' },
        output: { type: 'string', short: 'o' },
        'expected-failures': { type: 'string' },
        strict: { type: 'boolean', default: false },
        scenario: { type: 'string', multiple: true },
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
    if (!['pretty', 'json', 'junit'].includes(values.format))
      throw new UsageError(`unknown --format ${values.format}`);
    if (mode === 'list') {
      out(formatList(values.format));
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
    let baseline: string[] = [];
    if (values['expected-failures']) {
      if (!existsSync(values['expected-failures']))
        throw new UsageError(`no such file: ${values['expected-failures']}`);
      baseline = parseBaseline(readFileSync(values['expected-failures'], 'utf8'));
    }
    const options: SuiteOptions = {
      protocolVersion,
      concurrency: jobs,
      baseline,
      strict: values.strict,
      ...(values.scenario ? { only: values.scenario } : {}),
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
    if (values.output) writeOutputDir(values.output, result);
    out(render(result.report, values.format));
    return result.report.verdict.exitCode;
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
