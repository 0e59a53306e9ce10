/**
 * The mode × category table of approvals.md#permission-matrix, with its two
 * exceptions (always-ask tools, protected paths). Pure: the gate feeds it
 * the session's mode as it is when the call is checked.
 */
import type { PermissionMode, ToolCategory } from '@arbor/protocol';

export type GateVerdict = 'run' | 'ask' | 'block';

export interface CallTraits {
  category: ToolCategory;
  /** On the daemon's always-ask (HITL) list. */
  alwaysAsk: boolean;
  /** A write whose target is inside the workspace's `.git/` or the daemon's data dir. */
  protectedPath: boolean;
}

const TABLE: Record<PermissionMode, Record<ToolCategory, GateVerdict>> = {
  plan: { read: 'run', write: 'block', execute: 'block', external: 'block' },
  default: { read: 'run', write: 'ask', execute: 'ask', external: 'ask' },
  auto: { read: 'run', write: 'run', execute: 'run', external: 'run' },
};

export function decideCall(mode: PermissionMode, call: CallTraits): GateVerdict {
  if (call.alwaysAsk) {
    // Always-ask tools are blocked in plan unless they only read, which asks.
    if (mode === 'plan') return call.category === 'read' ? 'ask' : 'block';
    return 'ask';
  }
  if (call.protectedPath && call.category === 'write') return mode === 'plan' ? 'block' : 'ask';
  return TABLE[mode][call.category];
}

/** Grants never cover always-ask tools or protected paths. */
export function grantsApply(call: CallTraits): boolean {
  return !call.alwaysAsk && !(call.protectedPath && call.category === 'write');
}

/** Categories the daemon does not know count as external. */
export function knownCategory(category: unknown): ToolCategory {
  return category === 'read' || category === 'write' || category === 'execute'
    ? category
    : 'external';
}
