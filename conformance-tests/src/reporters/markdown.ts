/**
 * A Markdown summary for a CI job page (GitHub's $GITHUB_STEP_SUMMARY, a merge
 * request note): the verdict and counts first, then only what needs a reader's
 * attention, with every check in a collapsed table at the end.
 */
import type { Report } from '../checks/report.js';
import type { CheckResult } from '../checks/results.js';
import { outcomeOf, staleWithoutCheck, type Outcome } from './outcome.js';

/** Safe in a table cell or list item: no HTML, no cell breaks, one line. */
export function mdInline(s: string): string {
  return s
    .replace(/[\\`*_[\]|<>]/g, (ch) => `\\${ch}`)
    .replace(/\r?\n/g, ' ')
    .trim();
}

const VERDICT = { 0: 'PASS', 1: 'FAIL', 2: 'HARNESS ERROR' } as const;

function section(title: string, items: string[]): string[] {
  return items.length === 0 ? [] : [`### ${title}`, '', ...items, ''];
}

function checkItem(c: CheckResult): string {
  const head = `- \`${c.id}\` (${c.tier}, ${mdInline(c.spec)}): ${mdInline(c.title)}`;
  return [head, ...c.messages.map((m) => `  - ${mdInline(m)}`)].join('\n');
}

export function formatMarkdown(report: Report): string {
  const by = (o: Outcome): CheckResult[] => report.checks.filter((c) => outcomeOf(c, report) === o);
  const v = report.verdict;
  const staleEntries = [
    ...by('stale').map((c) => `- \`${c.id}\`: passes now`),
    ...staleWithoutCheck(report).map((s) => `- \`${mdInline(s.id)}\`: ${mdInline(s.reason)}`),
  ];
  const lines = [
    `## arbor-conformance ${report.role}: ${VERDICT[v.exitCode]}`,
    '',
    `Target: \`${report.target.replace(/`/g, "'")}\`, protocol ${report.protocolVersion}, ${(report.durationMs / 1000).toFixed(1)} s.`,
    '',
    '| passed | failed | warnings | expected failures | skipped |',
    '|---:|---:|---:|---:|---:|',
    `| ${by('pass').length + by('stale').length} | ${by('fail').length} | ${by('warn').length} | ${by('xfail').length} | ${by('skip').length} |`,
    '',
    ...section('Failures', by('fail').map(checkItem)),
    ...section('Stale baseline entries (remove them from the baseline)', staleEntries),
    ...section(
      'Harness errors (a bug of the suite, not of the target)',
      v.harnessErrors.map((e) => `- ${mdInline(e)}`),
    ),
    ...section('Warnings (SHOULD; fail the run only with --strict)', by('warn').map(checkItem)),
    ...section(
      'Expected failures (baseline)',
      by('xfail').map((c) => `- \`${c.id}\` (${c.tier})`),
    ),
    '<details><summary>All checks</summary>',
    '',
    '| result | tier | check | spec |',
    '|---|---|---|---|',
    ...report.checks.map(
      (c) =>
        `| ${outcomeOf(c, report).toUpperCase()} | ${c.tier} | \`${c.id}\` | ${mdInline(c.spec)} |`,
    ),
    '',
    '</details>',
    '',
  ];
  return lines.join('\n');
}
