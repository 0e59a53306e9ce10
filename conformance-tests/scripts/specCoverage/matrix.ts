/**
 * The coverage matrix: every normative anchor of the spec → the checks that
 * judge it (with the scenarios that run them and their tier), or why it
 * cannot be observed from outside, or an explicit gap (observable, not yet
 * judged). `problems()` lists every way the matrix and the code disagree.
 */
import { CHECKS, type CheckDef } from '../../src/checks/registry.js';
import { CLIENT_SCENARIOS } from '../../src/scenarios/client/index.js';
import { DAEMON_SCENARIOS } from '../../src/scenarios/daemon/index.js';
import { GAPS } from './gaps.js';
import { allAnchorRefs, specAnchors, type SpecAnchor } from './specAnchors.js';
import { UNOBSERVABLE_CLIENT } from './unobservable/client.js';
import { UNOBSERVABLE_DAEMON_AGENT } from './unobservable/daemonAgent.js';
import { UNOBSERVABLE_DAEMON_PROTOCOL } from './unobservable/daemonProtocol.js';
import type { Unobservable } from './unobservable/types.js';

export interface JudgedBy {
  readonly check: CheckDef;
  /** Scenario ids that run the check; `always` for the wire checks every scenario runs. */
  readonly scenarios: readonly string[];
}

export interface Row {
  readonly anchor: SpecAnchor;
  readonly checks: readonly JudgedBy[];
  readonly unobservable: readonly Unobservable[];
  readonly gap: boolean;
}

export const UNOBSERVABLE: readonly Unobservable[] = [
  ...UNOBSERVABLE_DAEMON_PROTOCOL,
  ...UNOBSERVABLE_DAEMON_AGENT,
  ...UNOBSERVABLE_CLIENT,
];

const citedBy = (check: CheckDef): string[] => [check.spec, ...(check.cites ?? [])];

function scenariosOf(check: CheckDef): string[] {
  if (check.id.includes('.wire.')) return ['always'];
  return [...DAEMON_SCENARIOS, ...CLIENT_SCENARIOS]
    .filter((s) => s.role === check.role && s.checks.includes(check.id))
    .map((s) => `${s.role}:${s.id}`);
}

export function buildMatrix(anchors: readonly SpecAnchor[] = specAnchors()): Row[] {
  return anchors.map((anchor) => ({
    anchor,
    checks: CHECKS.filter((c) => citedBy(c).includes(anchor.ref)).map((check) => ({
      check,
      scenarios: scenariosOf(check),
    })),
    unobservable: UNOBSERVABLE.filter((u) => u.anchor === anchor.ref),
    gap: GAPS.includes(anchor.ref),
  }));
}

/** Every disagreement between the matrix and the spec or the checks; empty when coverage is whole. */
export function problems(anchors: readonly SpecAnchor[] = specAnchors()): string[] {
  const rows = buildMatrix(anchors);
  const known = new Set(anchors.map((a) => a.ref));
  const out: string[] = [];
  for (const row of rows) {
    const ref = row.anchor.ref;
    const judged = row.checks.length > 0;
    if (row.anchor.tier === 'MUST' && !judged && row.unobservable.length === 0 && !row.gap)
      out.push(`${ref}: MUST with no check, no unobservable entry and no gap entry`);
    if (row.gap && judged)
      out.push(`${ref}: listed as a gap but judged by ${row.checks[0]!.check.id}`);
    if (row.gap && row.unobservable.length > 0) out.push(`${ref}: both a gap and unobservable`);
    if (judged && row.unobservable.length > 0)
      out.push(`${ref}: judged by ${row.checks[0]!.check.id} yet listed as unobservable`);
  }
  const existing = allAnchorRefs();
  for (const check of CHECKS)
    for (const ref of citedBy(check))
      if (!existing.has(ref)) out.push(`${check.id} cites ${ref}, which no spec page has`);
  for (const u of UNOBSERVABLE)
    if (!known.has(u.anchor)) out.push(`unobservable entry ${u.anchor} is not a normative anchor`);
  for (const ref of GAPS) if (!known.has(ref)) out.push(`gap ${ref} is not a normative anchor`);
  const seen = new Set<string>();
  for (const ref of [...UNOBSERVABLE.map((u) => u.anchor), ...GAPS]) {
    if (seen.has(ref)) out.push(`${ref} is listed twice`);
    seen.add(ref);
  }
  return out;
}
