/**
 * The rules in force for one workspace, and the decision they make about a
 * call: any deny rule that touches it wins, then any ask rule, then allow
 * rules, which must cover the whole call (every simple command of a command
 * line, every path of a patch). Undefined: no rule decides, the mode does.
 */
import type { DecidingRule, PermissionRuleInfo, RuleEffect } from '@arbor/protocol';
import { commandWords } from './commandWords.js';
import type { PermissionRule } from './permissionRule.js';
import type { RuleSubject } from './ruleSubjects.js';

const ORDER: Record<RuleEffect, number> = { deny: 0, ask: 1, allow: 2 };

export class RuleSet {
  static readonly EMPTY = new RuleSet([], []);

  constructor(
    private readonly rules: readonly PermissionRule[],
    /** Rules read but not applied, with why (tools/list shows them). */
    private readonly ignored: readonly PermissionRuleInfo[],
  ) {}

  /** No rule at all: nothing to decide, nothing to list. */
  get empty(): boolean {
    return this.rules.length === 0 && this.ignored.length === 0;
  }

  decide(tool: string, subject: RuleSubject | undefined): DecidingRule | undefined {
    if (this.rules.length === 0) return undefined;
    const words = subject?.kind === 'command' ? commandWords(subject.command) : undefined;
    for (const effect of ['deny', 'ask'] as const) {
      const hit = this.rules.find((r) => r.effect === effect && r.touchesAny(tool, subject, words));
      if (hit !== undefined) return hit.deciding;
    }
    const allows = this.rules.filter((r) => r.effect === 'allow' && r.namesTool(tool));
    if (allows.length === 0) return undefined;
    if (words === undefined) return allows.find((r) => r.coversAll(tool, subject))?.deciding;
    const whole = allows.find((r) => r.coversAll(tool, undefined));
    if (whole !== undefined) return whole.deciding;
    if (words.opaque || words.segments.length === 0) return undefined;
    const covering = words.segments.map((segment) =>
      allows.find((r) => r.coversAll(tool, subject, segment)),
    );
    return covering.every((r) => r !== undefined) ? covering[0]!.deciding : undefined;
  }

  /** Every rule, deny first, for tools/list. */
  list(): PermissionRuleInfo[] {
    const applied = this.rules.map((r) => r.deciding);
    return [...applied, ...this.ignored].sort((a, b) => ORDER[a.effect] - ORDER[b.effect]);
  }
}
