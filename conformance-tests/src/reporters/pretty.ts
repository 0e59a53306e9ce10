/** The terminal report: one line per check, messages under what did not pass. */
import type { Report } from '../checks/report.js';
import { outcomeOf, type Outcome } from './outcome.js';

const MARK: Record<Outcome, string> = {
  pass: 'PASS',
  fail: 'FAIL',
  stale: 'STALE',
  warn: 'WARN',
  xfail: 'XFAIL',
  skip: 'SKIPPED',
};

export function formatPretty(report: Report): string {
  const lines = [
    `arbor-conformance ${report.role} — ${report.target} (protocol ${report.protocolVersion})`,
    '',
  ];
  for (const c of report.checks) {
    const outcome = outcomeOf(c, report);
    lines.push(`${MARK[outcome].padEnd(7)} ${c.tier.padEnd(10)} ${c.id.padEnd(46)} ${c.spec}`);
    if (outcome !== 'pass' && outcome !== 'stale')
      for (const m of c.messages) lines.push(`        ${m}`);
  }
  const { PASS, FAIL, SKIPPED } = report.summary;
  lines.push(
    '',
    `${PASS} passed, ${FAIL} failed, ${SKIPPED} skipped in ${(report.durationMs / 1000).toFixed(1)} s`,
  );
  const v = report.verdict;
  if (v.stale.length)
    lines.push(
      `stale baseline entries (remove them from the baseline): ${v.stale.map((s) => `${s.id} (${s.reason})`).join(', ')}`,
    );
  for (const e of v.harnessErrors) lines.push(`HARNESS ERROR ${e}`);
  lines.push(
    v.exitCode === 0
      ? 'verdict: PASS'
      : v.exitCode === 1
        ? `verdict: FAIL (${[...v.failed, ...v.stale.map((s) => s.id)].join(', ')})`
        : 'verdict: HARNESS ERROR',
  );
  return `${lines.join('\n')}\n`;
}
