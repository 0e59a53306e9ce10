/** Turning check results into a verdict and a report (src/reporters/ renders it). */
import type { CheckResult } from './results.js';
import { findCheck, type Role } from './registry.js';

export interface Verdict {
  /** 0 pass, 1 fail, 2 harness or usage error. */
  exitCode: 0 | 1 | 2;
  failed: string[];
  /** Baseline entries that no longer fail: the baseline must be updated. */
  stale: StaleEntry[];
  harnessErrors: string[];
}

export interface StaleEntry {
  id: string;
  /** Why the entry is stale, e.g. "passes now". */
  reason: string;
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
  const stale: StaleEntry[] = [];
  for (const c of checks) {
    // Reset first: a report is decided again when --write-baseline replaces the baseline.
    delete c.expectedFailure;
    if (c.status === 'FAIL' && expected.has(c.id)) c.expectedFailure = true;
    else if (c.status === 'FAIL' && counts(c)) failed.push(c.id);
    if (c.status === 'PASS' && expected.has(c.id)) stale.push({ id: c.id, reason: 'passes now' });
  }
  const judged = new Set(checks.map((c) => c.id));
  for (const id of expected) {
    if (judged.has(id)) continue;
    const def = findCheck(id);
    stale.push({
      id,
      reason: def ? `is a ${def.role} check, not judged in this run` : 'no such check',
    });
  }
  const exitCode = harnessErrors.length > 0 ? 2 : failed.length > 0 || stale.length > 0 ? 1 : 0;
  return { exitCode, failed, stale, harnessErrors };
}

export function summarize(checks: CheckResult[]): Report['summary'] {
  const summary = { PASS: 0, FAIL: 0, SKIPPED: 0 };
  for (const c of checks) summary[c.status]++;
  return summary;
}
