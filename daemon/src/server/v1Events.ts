/**
 * Enum values added after protocol 1 reach only clients that opted in with
 * `capabilities.openEnums` (versioning.md#versioning-new-values-gated); every
 * other client gets the v1 value the spec names as their stand-in: stopReason
 * `max_tokens` → `end_turn`, node kinds `compaction`, `hook` and `planner` → `tool`, approval
 * decision `allowAlways` → `allowForSession`. The store
 * and the replay log keep the real value: the mapping is per connection.
 */
import {
  Methods,
  V1_STOP_REASONS,
  type ClientCapabilities,
  type ExecutionTreeNode,
  type NodeKind,
  type StopReason,
} from '@arbor/protocol';
import type { SessionEvent } from '../session/eventBus.js';

type V1StopReason = (typeof V1_STOP_REASONS)[number];

/** max_tokens: the answer ended, cut off; a v1 client reads it as an ordinary end. */
const V1_STOP_REASON: Record<Exclude<StopReason, V1StopReason>, V1StopReason> = {
  max_tokens: 'end_turn',
};

function isV1StopReason(reason: StopReason): reason is V1StopReason {
  return (V1_STOP_REASONS as readonly string[]).includes(reason);
}

/** Node kinds after protocol 1 and their v1 stand-ins. */
const V1_NODE_KIND: Readonly<Record<string, NodeKind>> = {
  compaction: 'tool',
  hook: 'tool',
  planner: 'tool',
};

/** The event as this client may receive it. */
export function eventForClient(
  event: SessionEvent,
  capabilities: ClientCapabilities,
): SessionEvent {
  if (capabilities.openEnums !== undefined) return event;
  if (event.method === Methods.TreeUpdate.method) return withV1Nodes(event);
  if (event.method === Methods.ApprovalResolved.method) return withV1Decision(event);
  if (event.method !== Methods.SessionState.method) return event;
  const stopReason = event.params['stopReason'] as StopReason | undefined;
  if (stopReason === undefined || isV1StopReason(stopReason)) return event;
  return { ...event, params: { ...event.params, stopReason: V1_STOP_REASON[stopReason] } };
}

/** allowAlways (1.1) reads as allowForSession, what it grants in the session itself. */
function withV1Decision(event: SessionEvent): SessionEvent {
  if (event.params['decision'] !== 'allowAlways') return event;
  return { ...event, params: { ...event.params, decision: 'allowForSession' } };
}

/** A tree/update, on the hot path of every turn: only its nodes are looked at, and copied when one changes. */
function withV1Nodes(event: SessionEvent): SessionEvent {
  const nodes = event.params['nodes'] as readonly ExecutionTreeNode[];
  if (!nodes.some((node) => Object.hasOwn(V1_NODE_KIND, node.kind))) return event;
  return {
    ...event,
    params: {
      ...event.params,
      nodes: nodes.map((node) =>
        Object.hasOwn(V1_NODE_KIND, node.kind) ? { ...node, kind: V1_NODE_KIND[node.kind]! } : node,
      ),
    },
  };
}

/**
 * A result holding tree nodes (session/load's stored trees and parts, an
 * attach snapshot) as this client may receive it: every node of a kind added
 * after protocol 1 becomes its stand-in. Copies only what it changes.
 */
export function resultForClient<T>(result: T, capabilities: ClientCapabilities): T {
  return capabilities.openEnums === undefined ? withV1NodeKinds(result) : result;
}

function withV1NodeKinds<T>(value: T): T {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = withV1NodeKinds(item);
      if (next !== item) (copy ??= [...value])[i] = next;
    });
    return (copy ?? value) as T;
  }
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(record)) {
    const next =
      key === 'kind' && typeof item === 'string' && 'parentId' in record
        ? (V1_NODE_KIND[item] ?? item)
        : withV1NodeKinds(item);
    if (next !== item) (copy ??= { ...record })[key] = next;
  }
  return (copy ?? value) as T;
}
