/**
 * What every turn's end must satisfy, judged over the events one client got
 * of the session (tree.md#tree-all-final-at-end, cost.md, turns.md): a
 * scenario that runs a turn to its end calls checkTurnEnd and lists
 * TURN_END_CHECKS.
 */
import { Methods, Usage } from '@arbor/protocol';
import type { Recorder } from '../../checks/results.js';
import type { JsonObject } from '../../harness/connection.js';
import { specShape } from '../../harness/specShape.js';
import type { Event } from './turns.js';

export const FINAL_STATUSES = new Set(['done', 'error', 'cancelled', 'denied', 'blocked']);

export const TURN_END_CHECKS = [
  'daemon.tree.all-final-at-end',
  'daemon.tree.turn-node-status',
  'daemon.cost.once-before-idle',
  'daemon.cost.sums',
  'daemon.turns.state-changes-only',
  'daemon.tree.fixed-fields',
  'daemon.turns.chunk-node-announced',
  'daemon.turns.chunk-code-points',
  'daemon.tree.turn-usage',
  'daemon.turns.one-idle',
] as const;

/** tree.md#tree-turn-node-status: the turn node's final status for each stop reason. */
function turnNodeStatusFor(stopReason: unknown): string {
  if (stopReason === 'end_turn' || stopReason === 'max_iterations' || stopReason === 'max_tokens')
    return 'done';
  return stopReason === 'cancelled' ? 'cancelled' : 'error';
}

const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 300) ?? 'missing';

/**
 * Judges the end of turn `turnId`; does nothing when it has no idle (that is
 * daemon.turns.idle-ends-turn's to judge). `modelCalls`: how many model calls
 * the script made the turn answer, when the scenario knows it exactly.
 */
export function checkTurnEnd(
  r: Recorder,
  events: readonly Event[],
  turnId: string,
  modelCalls?: number,
): void {
  const end = events.findIndex(
    (e) =>
      e.method === Methods.SessionState.method &&
      e.params.state === 'idle' &&
      e.params.turnId === turnId,
  );
  if (end < 0) return;
  const idle = events[end]!.params;
  const turn = events.slice(0, end).filter((e) => e.params.turnId === turnId);
  checkNodes(r, turn, idle.stopReason);
  checkCost(r, turn, idle, modelCalls);
  checkStates(r, [...turn, events[end]!]);
  checkChunks(r, turn);
  checkTurnUsage(r, turn, idle);
  // turns.md#turns-exactly-once, over every way the scenarios end turns (the caller waited a
  // moment after the idle, so a second one has arrived by now).
  const idles = events.filter(
    (e) =>
      e.method === Methods.SessionState.method &&
      e.params.state === 'idle' &&
      e.params.turnId === turnId,
  );
  r.expect(
    'daemon.turns.one-idle',
    idles.length === 1,
    `the turn ended ${String(idle.stopReason)} with ${idles.length} idle session/state: ${show(idles.map((e) => e.params))}`,
  );
}

/**
 * tree.md#tree-usage-rollup for the turn node: its last usage is the whole
 * turn's, the idle's. Judged when both carry usage.
 */
function checkTurnUsage(r: Recorder, turn: readonly Event[], idle: JsonObject): void {
  let last: unknown;
  for (const e of turn)
    if (e.method === Methods.TreeUpdate.method)
      for (const node of (e.params.nodes ?? []) as JsonObject[])
        if (node.kind === 'turn' && node.usage !== undefined) last = node.usage;
  if (last === undefined || idle.usage === undefined) return;
  r.expect(
    'daemon.tree.turn-usage',
    sameUsage(last, idle.usage),
    `the turn node's usage ${show(last)} is not the turn's, ${show(idle.usage)} (idle)`,
  );
}

const HIGH_SURROGATE = /[\uD800-\uDBFF]$/;
const LOW_SURROGATE = /^[\uDC00-\uDFFF]/;

/**
 * turns.md#chat-chunk, over the turn's chunks: each names a node announced
 * before it, and none splits a surrogate pair. (A chunk held past the turn's
 * cost/summary or idle is daemon.cost.once-before-idle's and
 * daemon.turns.idle-ends-turn's to judge.)
 */
function checkChunks(r: Recorder, turn: readonly Event[]): void {
  const announced = new Set<string>();
  const unannounced = new Set<string>();
  const split: string[] = [];
  for (const e of turn) {
    if (e.method === Methods.TreeUpdate.method)
      for (const node of (e.params.nodes ?? []) as JsonObject[]) announced.add(String(node.id));
    if (e.method !== Methods.ChatChunk.method) continue;
    const nodeId = String(e.params.nodeId);
    if (!announced.has(nodeId)) unannounced.add(nodeId);
    const text = String(e.params.text);
    if (HIGH_SURROGATE.test(text) || LOW_SURROGATE.test(text)) split.push(show(text));
  }
  r.expect(
    'daemon.turns.chunk-node-announced',
    unannounced.size === 0,
    `chat/chunk named node(s) ${[...unannounced].join(', ')} before a tree/update announced them`,
  );
  r.expect(
    'daemon.turns.chunk-code-points',
    split.length === 0,
    `chunk(s) ${split.join(', ')} begin or end inside a surrogate pair`,
  );
}

/** Every node reached a final status (whether it then kept it is tree.final-status's to judge). */
function checkNodes(r: Recorder, turn: readonly Event[], stopReason: unknown): void {
  const finished = new Map<string, boolean>();
  const turnNode: string[] = [];
  /** tree.md#tree-required-fields-always: what an upsert may never change. */
  const fixed = new Map<string, string>();
  const changed: string[] = [];
  for (const e of turn) {
    if (e.method !== Methods.TreeUpdate.method) continue;
    for (const node of (e.params.nodes ?? []) as JsonObject[]) {
      const id = String(node.id);
      finished.set(id, finished.get(id) === true || FINAL_STATUSES.has(String(node.status)));
      if (node.kind === 'turn') turnNode.push(String(node.status));
      const identity = JSON.stringify([node.parentId, node.kind, node.depth]);
      if (fixed.has(id) && fixed.get(id) !== identity)
        changed.push(`${id}: [parentId, kind, depth] ${fixed.get(id)} became ${identity}`);
      fixed.set(id, fixed.get(id) ?? identity);
    }
  }
  r.expect('daemon.tree.fixed-fields', changed.length === 0, changed.join('; '));
  const open = [...finished].filter(([, done]) => !done).map(([id]) => id);
  r.expect(
    'daemon.tree.all-final-at-end',
    open.length === 0,
    `node(s) ${open.join(', ')} never reached a final status before the turn's idle`,
  );
  const last = turnNode[turnNode.length - 1];
  // A turn node never final is all-final-at-end's to judge; a missing stopReason idle-ends-turn's.
  if (last === undefined || !FINAL_STATUSES.has(last) || stopReason === undefined) return;
  const expected = turnNodeStatusFor(stopReason);
  const early = turnNode.slice(0, -1).find((s) => s !== 'running');
  r.expect(
    'daemon.tree.turn-node-status',
    early === undefined && last === expected,
    early !== undefined
      ? `the turn node had status ${early} while the turn ran`
      : `the turn ended with stopReason ${String(stopReason)}, but its turn node ended ${last} (expected ${expected})`,
  );
}

/** The usage fields of `a` and `b` agree (an absent field counts as 0). */
/** Equal token counts; `_meta` and members of later versions are not counts. */
function sameUsage(a: unknown, b: unknown): boolean {
  const x = (specShape(Usage, a) ?? {}) as Record<string, unknown>;
  const y = (specShape(Usage, b) ?? {}) as Record<string, unknown>;
  return [...new Set([...Object.keys(x), ...Object.keys(y)])].every(
    (k) => (x[k] ?? 0) === (y[k] ?? 0),
  );
}

function sumUsage(entries: readonly JsonObject[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const entry of entries)
    for (const [k, v] of Object.entries((entry.usage ?? {}) as Record<string, unknown>))
      if (typeof v === 'number') sum[k] = (sum[k] ?? 0) + v;
  return sum;
}

function checkCost(
  r: Recorder,
  turn: readonly Event[],
  idle: JsonObject,
  modelCalls: number | undefined,
): void {
  const at = turn
    .map((e, i) => (e.method === Methods.CostSummary.method ? i : -1))
    .filter((i) => i >= 0);
  if (
    !r.expect(
      'daemon.cost.once-before-idle',
      at.length === 1 && at[0] === turn.length - 1,
      at.length !== 1
        ? `the turn sent ${at.length} cost/summary before its idle, expected exactly one`
        : `${turn[turn.length - 1]!.method} of the turn came after its cost/summary, before idle`,
    )
  )
    return;
  const summary = turn[at[0]!]!.params;
  const byModel = (summary.byModel ?? []) as JsonObject[];
  const calls = byModel.reduce((n, m) => n + (typeof m.calls === 'number' ? m.calls : 0), 0);
  const problems = [
    !sameUsage(summary.usage, idle.usage) &&
      `cost/summary usage ${show(summary.usage)} differs from the idle usage ${show(idle.usage)}`,
    !sameUsage(summary.usage, sumUsage(byModel)) &&
      `cost/summary usage ${show(summary.usage)} is not the sum of byModel ${show(byModel)}`,
    modelCalls !== undefined &&
      calls !== modelCalls &&
      `byModel counts ${calls} model call(s); the script made the turn's model answer ${modelCalls} time(s)`,
  ].filter(Boolean);
  r.expect('daemon.cost.sums', problems.length === 0, problems.join('; '));
}

function checkStates(r: Recorder, turn: readonly Event[]): void {
  const states = turn
    .filter((e) => e.method === Methods.SessionState.method)
    .map((e) => String(e.params.state));
  const repeated = states.findIndex((s, i) => i > 0 && s === states[i - 1]);
  r.expect(
    'daemon.turns.state-changes-only',
    repeated < 0,
    `session/state ${states[repeated]} was reported twice in a row for the turn (${states.join(' → ')})`,
  );
}
