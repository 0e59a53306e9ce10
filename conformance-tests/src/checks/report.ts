/** Turning check results into a verdict, and into pretty, JSON and JUnit reports. */
import type { CheckResult } from './results.js';
import { findCheck, type Role } from './registry.js';

export interface Verdict {
  /** 0 pass, 1 fail, 2 harness or usage error. */
  exitCode: 0 | 1 | 2;
  failed: string[];
  /** Baselined checks that no longer fail: the baseline must be updated. */
  stale: string[];
  harnessErrors: string[];
}

export interface Report {
  tool: 'arbor-conformance';
  role: Role;
  target: string;
  protocolVersion: number;
  startedAt: string;
  durationMs: number;
  summary: Record<'PASS' | 'FAIL' | 'SKIPPED', number>;
  verdict: Verdict;
  checks: CheckResult[];
  scenarios: { id: string; durationMs: number; failed: boolean }[];
}

export class BaselineError extends Error {}

/**
 * Expected failures, one check id per line as a YAML-style list (`- id`,
 * `#` comments), or a JSON array of ids. A hand-written reader instead of a
 * YAML dependency: the format is a flat list and nothing more is accepted.
 */
export function parseBaseline(text: string): string[] {
  const trimmed = text.trim();
  let ids: string[];
  if (trimmed.startsWith('[')) {
    const parsed: unknown = JSON.parse(trimmed);
    if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string'))
      throw new BaselineError('a JSON baseline must be an array of check ids');
    ids = parsed;
  } else {
    ids = [];
    for (const [n, raw] of text.split(/\r?\n/).entries()) {
      const line = raw.replace(/#.*$/, '').trim();
      if (line === '' || /^[\w-]+:$/.test(line)) continue; // blank, comment, or a list's key line
      const match = /^-\s+["']?([\w.-]+)["']?$/.exec(line);
      if (!match)
        throw new BaselineError(
          `baseline line ${n + 1}: expected "- <check-id>", got ${JSON.stringify(raw)}`,
        );
      ids.push(match[1]!);
    }
  }
  const unknown = ids.filter((id) => !findCheck(id));
  if (unknown.length > 0)
    throw new BaselineError(`baseline names unknown check ids: ${unknown.join(', ')}`);
  return ids;
}

export function decide(
  checks: CheckResult[],
  harnessErrors: string[],
  baseline: readonly string[],
  strict: boolean,
): Verdict {
  const expected = new Set(baseline);
  const counts = (c: CheckResult): boolean =>
    c.tier === 'MUST' || c.tier === 'CAPABILITY' || (strict && c.tier === 'SHOULD');
  const failed: string[] = [];
  const stale: string[] = [];
  for (const c of checks) {
    if (c.status === 'FAIL' && expected.has(c.id)) c.expectedFailure = true;
    else if (c.status === 'FAIL' && counts(c)) failed.push(c.id);
    if (c.status === 'PASS' && expected.has(c.id)) stale.push(c.id);
  }
  const exitCode = harnessErrors.length > 0 ? 2 : failed.length > 0 || stale.length > 0 ? 1 : 0;
  return { exitCode, failed, stale, harnessErrors };
}

export function summarize(checks: CheckResult[]): Report['summary'] {
  const summary = { PASS: 0, FAIL: 0, SKIPPED: 0 };
  for (const c of checks) summary[c.status]++;
  return summary;
}

export function formatPretty(report: Report): string {
  const lines = [
    `arbor-conformance ${report.role} — ${report.target} (protocol ${report.protocolVersion})`,
    '',
  ];
  for (const c of report.checks) {
    const mark = c.status === 'FAIL' && c.expectedFailure ? 'XFAIL' : c.status;
    lines.push(`${mark.padEnd(7)} ${c.tier.padEnd(10)} ${c.id.padEnd(46)} ${c.spec}`);
    if (c.status !== 'PASS') for (const m of c.messages) lines.push(`        ${m}`);
  }
  const { PASS, FAIL, SKIPPED } = report.summary;
  lines.push(
    '',
    `${PASS} passed, ${FAIL} failed, ${SKIPPED} skipped in ${(report.durationMs / 1000).toFixed(1)} s`,
  );
  const v = report.verdict;
  if (v.stale.length)
    lines.push(
      `stale baseline entries (these checks pass now; remove them): ${v.stale.join(', ')}`,
    );
  for (const e of v.harnessErrors) lines.push(`HARNESS ERROR ${e}`);
  lines.push(
    v.exitCode === 0
      ? 'verdict: PASS'
      : v.exitCode === 1
        ? `verdict: FAIL (${[...v.failed, ...v.stale].join(', ')})`
        : 'verdict: HARNESS ERROR',
  );
  return `${lines.join('\n')}\n`;
}

export function formatJson(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

const xml = (s: string): string =>
  s.replace(
    /[<>&"']/g,
    (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[ch]!,
  );

export function formatJunit(report: Report): string {
  const cases = report.checks.map((c) => {
    const name = `name="${xml(c.id)}" classname="${xml(`arbor-conformance.${report.role}.${c.tier}`)}"`;
    const detail = xml(`${c.title} (${c.spec})\n${c.messages.join('\n')}`);
    if (c.status === 'FAIL' && !c.expectedFailure)
      return `    <testcase ${name}><failure message="${xml(c.messages[0] ?? c.title)}">${detail}</failure></testcase>`;
    if (c.status === 'SKIPPED' || c.expectedFailure)
      return `    <testcase ${name}><skipped message="${xml(c.expectedFailure ? 'expected failure (baseline)' : (c.messages[0] ?? ''))}"/></testcase>`;
    return `    <testcase ${name}/>`;
  });
  const failures = report.checks.filter((c) => c.status === 'FAIL' && !c.expectedFailure).length;
  const skipped = report.checks.filter((c) => c.status === 'SKIPPED' || c.expectedFailure).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${report.checks.length}" failures="${failures}" errors="${report.verdict.harnessErrors.length}">`,
    `  <testsuite name="arbor-conformance ${report.role}" tests="${report.checks.length}" failures="${failures}" skipped="${skipped}" errors="${report.verdict.harnessErrors.length}" time="${(report.durationMs / 1000).toFixed(3)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
