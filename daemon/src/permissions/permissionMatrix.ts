/**
 * The mode × category table of approvals.md#permission-matrix, with its
 * exceptions (permission rules, always-ask tools, protected paths). Pure: the
 * gate feeds it the session's mode as it is when the call is checked.
 */
import type { PermissionMode, RuleEffect, ToolCategory } from '@arbor/protocol';

/** deny: a deny rule refuses the call in every mode. */
export type GateVerdict = 'run' | 'ask' | 'block' | 'deny';

export interface CallTraits {
  category: ToolCategory;
  /** On the daemon's always-ask (HITL) list. */
  alwaysAsk: boolean;
  /** A write whose target is inside the workspace's `.git/` or the daemon's data dir. */
  protectedPath: boolean;
  /** The effect of the permission rule that decides the call, if one does. */
  rule?: RuleEffect;
  /** What the call's PreToolUse hooks decided, if they did: it counts like a rule of that effect. */
  hook?: RuleEffect;
}

const TABLE: Record<PermissionMode, Record<ToolCategory, GateVerdict>> = {
  plan: { read: 'run', write: 'block', execute: 'block', external: 'block' },
  default: { read: 'run', write: 'ask', execute: 'ask', external: 'ask' },
  auto: { read: 'run', write: 'run', execute: 'run', external: 'run' },
};

export function decideCall(mode: PermissionMode, call: CallTraits): GateVerdict {
  if (call.rule === 'deny' || call.hook === 'deny') return 'deny';
  if (call.alwaysAsk || call.rule === 'ask' || call.hook === 'ask') {
    // Always-ask tools are blocked in plan unless they only read, which asks.
    if (mode === 'plan') return call.category === 'read' ? 'ask' : 'block';
    return 'ask';
  }
  if (call.protectedPath && call.category === 'write') return mode === 'plan' ? 'block' : 'ask';
  // An allow rule (or hook) stands for the user's yes; plan mode still blocks every non-read call.
  if ((call.rule === 'allow' || call.hook === 'allow') && mode === 'default') return 'run';
  return TABLE[mode][call.category];
}

/** Grants (and "always allow") never cover always-ask tools, ask rules or hooks, or protected paths. */
export function grantsApply(call: CallTraits): boolean {
  return (
    !call.alwaysAsk &&
    call.rule !== 'ask' &&
    call.hook !== 'ask' &&
    !(call.protectedPath && call.category === 'write')
  );
}

/** Categories the daemon does not know count as external. */
export function knownCategory(category: unknown): ToolCategory {
  return category === 'read' || category === 'write' || category === 'execute'
    ? category
    : 'external';
}
