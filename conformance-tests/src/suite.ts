/** Runs a whole suite against one implementation and builds its report. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { decide, summarize, type Report } from './checks/report.js';
import { aggregate } from './checks/results.js';
import { getCheck, type Role } from './checks/registry.js';
import { WIRE_CHECKS } from './checks/registry/wire.js';
import { runScenarios, type RunOutput } from './runner.js';
import { makeDaemonContext, type DaemonTarget } from './scenarios/daemon/context.js';
import { DAEMON_SCENARIOS } from './scenarios/daemon/index.js';
import { makeClientContext, type ClientTarget } from './scenarios/client/context.js';
import { CLIENT_SCENARIOS } from './scenarios/client/index.js';

export interface SuiteOptions {
  protocolVersion?: number;
  concurrency?: number;
  baseline?: readonly string[];
  strict?: boolean;
  /** Only scenarios whose id contains one of these strings. */
  only?: readonly string[];
  /**
   * Only scenarios that can judge one of these checks (see scenariosJudging);
   * a check no scenario of the role can judge is an error, not an empty run.
   */
  checks?: readonly string[];
}

export interface SuiteResult {
  report: Report;
  output: RunOutput;
}

/** The always-on checks: the connection judges them in every scenario (harness/connection.ts). */
const ALWAYS_ON = new Set(WIRE_CHECKS.map((def) => def.id));

/**
 * The scenarios of `role` that can judge `check`: every one for an always-on
 * (`*.wire.*`) check, else those that list it in their `checks`.
 */
export function scenariosJudging(role: Role, check: string): string[] {
  const def = getCheck(check);
  if (def.role !== role) throw new Error(`${check} judges a ${def.role}, not a ${role}`);
  const all = role === 'daemon' ? DAEMON_SCENARIOS : CLIENT_SCENARIOS;
  return all.filter((s) => ALWAYS_ON.has(check) || s.checks.includes(check)).map((s) => s.id);
}

function select<T extends { id: string }>(
  role: Role,
  all: readonly T[],
  options: SuiteOptions,
): T[] {
  const { only, checks } = options;
  let chosen =
    only && only.length > 0 ? all.filter((s) => only.some((o) => s.id.includes(o))) : [...all];
  if (checks && checks.length > 0) {
    const judging = new Set<string>();
    for (const check of checks) {
      const ids = scenariosJudging(role, check);
      if (ids.length === 0) throw new Error(`no ${role} scenario judges ${check}`);
      ids.forEach((id) => judging.add(id));
    }
    chosen = chosen.filter((s) => judging.has(s.id));
  }
  return chosen;
}

function finish(
  role: Role,
  target: string,
  options: SuiteOptions,
  started: number,
  output: RunOutput,
): SuiteResult {
  const checks = aggregate(role, output.observations);
  const verdict = decide(
    checks,
    output.harnessErrors,
    options.baseline ?? [],
    options.strict ?? false,
  );
  const report: Report = {
    tool: 'arbor-conformance',
    role,
    target,
    protocolVersion: options.protocolVersion ?? 1,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    summary: summarize(checks),
    verdict,
    checks,
    scenarios: output.runs.map((r) => ({
      id: r.id,
      durationMs: r.durationMs,
      failed: r.recorder.failed() || r.recorder.harnessErrors.length > 0,
    })),
  };
  return { report, output };
}

export async function runDaemonSuite(
  target: DaemonTarget,
  options: SuiteOptions = {},
): Promise<SuiteResult> {
  const started = Date.now();
  const version = options.protocolVersion ?? 1;
  const output = await runScenarios(
    select('daemon', DAEMON_SCENARIOS, options),
    (base) => makeDaemonContext(base, target, version),
    options.concurrency ?? 4,
  );
  const label = target.kind === 'stdio' ? `stdio: ${target.command}` : `socket: ${target.address}`;
  return finish('daemon', label, options, started, output);
}

export async function runClientSuite(
  target: ClientTarget,
  options: SuiteOptions = {},
): Promise<SuiteResult> {
  const started = Date.now();
  const version = options.protocolVersion ?? 1;
  const output = await runScenarios(
    select('client', CLIENT_SCENARIOS, options),
    (base, scenario) => makeClientContext(base, target, version, scenario.id),
    options.concurrency ?? 4,
  );
  return finish('client', `${target.transport}: ${target.command}`, options, started, output);
}

/** checks.json, plus one transcript per scenario that failed. */
export function writeOutputDir(dir: string, result: SuiteResult): string[] {
  mkdirSync(path.join(dir, 'transcripts'), { recursive: true });
  const written = [path.join(dir, 'checks.json')];
  writeFileSync(written[0]!, `${JSON.stringify(result.report, null, 2)}\n`);
  for (const run of result.output.runs) {
    if (!run.recorder.failed() && run.recorder.harnessErrors.length === 0) continue;
    const file = path.join(dir, 'transcripts', `${run.id}.txt`);
    const failures = run.recorder.observations
      .filter((o) => o.status === 'FAIL')
      .map((o) => `FAIL ${o.check}: ${o.message}`);
    const header = [
      `scenario ${run.id}`,
      ...failures,
      ...run.recorder.harnessErrors.map((e) => `HARNESS ERROR ${e}`),
      '',
    ];
    writeFileSync(file, `${header.join('\n')}\n${run.transcript.render()}\n`);
    written.push(file);
  }
  return written;
}
