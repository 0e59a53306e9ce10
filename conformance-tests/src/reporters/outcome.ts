/** What one check's result means for the run, the same in every report format. */
import type { Report } from '../checks/report.js';
import type { CheckResult } from '../checks/results.js';

/**
 * `fail` fails the run; `stale` is a baselined check that passes now (fails the
 * run too); `warn` failed but does not count (SHOULD without --strict, INFO);
 * `xfail` failed as the baseline expects.
 */
export type Outcome = 'pass' | 'fail' | 'stale' | 'warn' | 'xfail' | 'skip';

export function outcomeOf(check: CheckResult, report: Report): Outcome {
  if (check.status === 'SKIPPED') return 'skip';
  if (check.status === 'PASS')
    return report.verdict.stale.some((s) => s.id === check.id) ? 'stale' : 'pass';
  if (check.expectedFailure) return 'xfail';
  return report.verdict.failed.includes(check.id) ? 'fail' : 'warn';
}

/** Stale baseline entries that name no check of this run (the others are `stale` outcomes). */
export function staleWithoutCheck(report: Report): Report['verdict']['stale'] {
  const judged = new Set(report.checks.map((c) => c.id));
  return report.verdict.stale.filter((s) => !judged.has(s.id));
}
