/**
 * Open enums on the receiving side (versioning.md#open-enums). The wire
 * schemas stay closed: they say what a conformant sender may send, so the
 * conformance suite still flags a daemon that sends garbage. A client reads
 * daemon messages through `parseOpen`, which handles a value it does not know
 * in one of these fields as the field's stand-in instead of rejecting the
 * whole message.
 */
import type { z } from 'zod';
import type { ApprovalDecision, ApprovalOutcome } from './approvalTypes.js';
import type { StopReason } from './base.js';
import type { ToolServerStatus } from './tools.js';
import type { NodeKind, NodeStatus } from './tree.js';

/** Field name -> the value an unknown one is handled as. */
export const OPEN_ENUM_STAND_INS = {
  /** session/state: the turn ended, for a reason the client cannot name. */
  stopReason: 'end_turn' satisfies StopReason,
  /** tool/approvalResolved: never taken for permission granted. */
  outcome: 'rejected' satisfies ApprovalOutcome,
  /** tool/approvalResolved: a decision the client cannot name allowed this one call. */
  decision: 'allow' satisfies ApprovalDecision,
  /** A tree node's approval: never taken for permission granted. */
  approval: 'rejected' satisfies ApprovalOutcome,
  /**
   * A tree node's status: ended, without success the client could vouch for.
   * A tool server's status (tools/list servers): its tools are not there.
   */
  status: 'error' satisfies NodeStatus & ToolServerStatus,
  /** A tree node's kind: a step the client shows as it shows a tool call. */
  kind: 'tool' satisfies NodeKind,
} as const;

type OpenField = keyof typeof OPEN_ENUM_STAND_INS;

function isOpenField(key: PropertyKey | undefined): key is OpenField {
  return typeof key === 'string' && Object.hasOwn(OPEN_ENUM_STAND_INS, key);
}

/**
 * Parses `value` with `schema`; when the only problems are unknown string
 * values in open-enum fields, parses it again with each of them replaced by
 * its stand-in. Anything else fails as the closed schema says.
 */
export function parseOpen<S extends z.ZodType>(
  schema: S,
  value: unknown,
): z.ZodSafeParseResult<z.output<S>> {
  const first = schema.safeParse(value);
  if (first.success) return first;
  const unknownValues = first.error.issues.filter(
    (issue) => issue.code === 'invalid_value' && isOpenField(issue.path.at(-1)),
  );
  if (unknownValues.length === 0 || unknownValues.length !== first.error.issues.length)
    return first;
  const copy = structuredClone(value);
  for (const issue of unknownValues) {
    const parent = issue.path
      .slice(0, -1)
      .reduce<unknown>((at, key) => (at as Record<PropertyKey, unknown> | undefined)?.[key], copy);
    const field = issue.path.at(-1) as OpenField;
    const record = parent as Record<string, unknown> | undefined;
    // Only strings are open: a number where a stop reason belongs is garbage.
    if (typeof record?.[field] !== 'string') return first;
    record[field] = OPEN_ENUM_STAND_INS[field];
  }
  const second = schema.safeParse(copy);
  return second.success ? second : first;
}
