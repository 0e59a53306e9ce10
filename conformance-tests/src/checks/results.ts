/** What scenarios observe, and how observations become one verdict per check. */
import { CHECKS, getCheck, type CheckDef, type Role, type Tier } from './registry.js';

export type Status = 'PASS' | 'FAIL' | 'SKIPPED';

export interface Observation {
  check: string;
  scenario: string;
  status: Status;
  message: string;
}

/** Collects one scenario's observations; scenarios run in parallel, each with its own. */
export class Recorder {
  readonly observations: Observation[] = [];
  readonly harnessErrors: string[] = [];

  constructor(readonly scenario: string) {}

  private add(check: string, status: Status, message: string): void {
    getCheck(check); // a typo in a check id is a harness bug, caught at once
    this.observations.push({ check, scenario: this.scenario, status, message });
  }

  pass(check: string, message = ''): void {
    this.add(check, 'PASS', message);
  }

  fail(check: string, message: string): void {
    this.add(check, 'FAIL', message);
  }

  skip(check: string, reason: string): void {
    this.add(check, 'SKIPPED', reason);
  }

  /** PASS when `ok`, else FAIL with `message`; returns `ok`. */
  expect(check: string, ok: boolean, message: string): boolean {
    if (ok) this.pass(check);
    else this.fail(check, message);
    return ok;
  }

  /** The suite itself misbehaved (sent an invalid message by mistake, threw). */
  harnessError(message: string): void {
    this.harnessErrors.push(message);
  }

  recorded(check: string): boolean {
    return this.observations.some((o) => o.check === check);
  }

  failed(): boolean {
    return this.observations.some((o) => o.status === 'FAIL');
  }
}

export interface CheckResult {
  id: string;
  tier: Tier;
  role: Role;
  spec: string;
  title: string;
  status: Status;
  /** Failure messages, or the skip reason; empty for a clean pass. */
  messages: string[];
  /** Scenarios that observed this check. */
  scenarios: string[];
  /** Set by a baseline: the failure was expected. */
  expectedFailure?: boolean;
}

/** FAIL if any scenario saw a failure; else PASS if any saw a pass; else SKIPPED. */
export function aggregate(role: Role, observations: readonly Observation[]): CheckResult[] {
  return CHECKS.filter((def) => def.role === role).map((def) =>
    resultFor(
      def,
      observations.filter((o) => o.check === def.id),
    ),
  );
}

function resultFor(def: CheckDef, seen: Observation[]): CheckResult {
  const status: Status = seen.some((o) => o.status === 'FAIL')
    ? 'FAIL'
    : seen.some((o) => o.status === 'PASS')
      ? 'PASS'
      : 'SKIPPED';
  const relevant = seen.filter((o) => o.status === status);
  const messages = [
    ...new Set(
      relevant.map((o) => (o.message ? `[${o.scenario}] ${o.message}` : '')).filter(Boolean),
    ),
  ];
  if (status === 'SKIPPED' && messages.length === 0)
    messages.push('not exercised by any scenario that ran');
  return {
    id: def.id,
    tier: def.tier,
    role: def.role,
    spec: `spec/${def.spec}`,
    title: def.title,
    status,
    messages: messages.slice(0, 10),
    scenarios: [...new Set(seen.map((o) => o.scenario))],
  };
}
