/**
 * Rebuilds what a turn produced from its stored events, for a turn whose
 * daemon died before commitTurn (turns.md#turns-partial-kept): every event
 * is stored before it is sent, so the log holds the turn's streamed text and
 * tree even though its answer was never committed.
 *
 * The fold is the client's one (tree.md#upsert): `tree/update` nodes are
 * merged by id, `chat/chunk` text is appended per node. The answer is the
 * text of the turn node, as the root loop's text is for a committed turn;
 * the parts and cost are folded by the same TurnTranscript a live turn's
 * commit uses, so an interrupted turn loads in the same shape.
 * Rows that do not match the protocol's schemas are skipped: this runs at
 * startup and must never stop the daemon from starting.
 */
import {
  ChatChunkParams,
  CostSummaryParams,
  FINAL_NODE_STATUSES,
  Methods,
  TreeUpdateParams,
  type ExecutionTreeNode,
  type ExecutionTreeSnapshot,
  type NodeStatus,
  type StoredPart,
  type StoredTurnCost,
} from '@arbor/protocol';
import { TurnTranscript } from '@arbor/protocol/client';

/** One row of the events table: `params` as stored (JSON text), or already parsed. */
export interface StoredEventRow {
  readonly method: string;
  readonly params: unknown;
}

export interface ReplayedTurn {
  /** Text the turn node streamed, in seq order: the partial answer. */
  text: string;
  /** Parents first, every node in a final status. */
  tree: ExecutionTreeSnapshot;
  /** Text runs and nodes in stream order (sessions.md#stored-parts), as far as the log goes. */
  parts: StoredPart[];
  /** The turn's cost/summary, if it got as far as sending one. */
  cost?: StoredTurnCost;
}

/** tree.md#tree-turn-node-status: any stop reason but end_turn, max_iterations or cancelled ends the turn node `error`. */
const INTERRUPTED_TURN_STATUS: NodeStatus = 'error';
/** tree.md#statuses: `cancelled` is "stopped by the end of the turn before it finished". */
const INTERRUPTED_NODE_STATUS: NodeStatus = 'cancelled';

/**
 * Folds the events of `turnId` out of `events` (a session's log, oldest
 * first; other turns' events are ignored). undefined when the log holds
 * nothing of the turn (it died before its first event, or retention pruned them).
 */
export function replayTurn(
  turnId: string,
  events: Iterable<StoredEventRow>,
): ReplayedTurn | undefined {
  const nodes = new Map<string, ExecutionTreeNode>();
  const transcript = new TurnTranscript();
  let found = false;
  for (const row of events) {
    if (row.method === Methods.TreeUpdate.method) {
      const parsed = TreeUpdateParams.safeParse(parseParams(row.params));
      if (!parsed.success || parsed.data.turnId !== turnId) continue;
      found = true;
      for (const node of parsed.data.nodes) nodes.set(node.id, { ...nodes.get(node.id), ...node });
      transcript.nodes(parsed.data.nodes);
    } else if (row.method === Methods.ChatChunk.method) {
      const parsed = ChatChunkParams.safeParse(parseParams(row.params));
      if (!parsed.success || parsed.data.turnId !== turnId) continue;
      found = true;
      transcript.text(parsed.data.nodeId, parsed.data.text);
    } else if (row.method === Methods.CostSummary.method) {
      const parsed = CostSummaryParams.safeParse(parseParams(row.params));
      if (!parsed.success || parsed.data.turnId !== turnId) continue;
      transcript.cost(parsed.data);
    }
  }
  if (!found) return undefined;

  // The turn node's announcement may have been pruned (or be unusable): a bare one stands in.
  const root = nodes.get(turnId);
  if (root?.parentId !== null || root.kind !== 'turn') {
    nodes.set(turnId, {
      id: turnId,
      parentId: null,
      kind: 'turn',
      name: 'turn',
      status: INTERRUPTED_TURN_STATUS,
      depth: 0,
    });
  }
  const tree: ExecutionTreeSnapshot = {
    version: 1,
    nodes: parentsFirst(nodes, turnId).map((node) => closed(node, turnId)),
  };
  // Refolded against the tree: a node left out of it names no card a client could draw.
  const parts = TurnTranscript.fromParts(transcript.parts, tree).parts;
  const cost = transcript.costSummary;
  return { text: transcript.textOf(turnId), tree, parts, ...(cost && { cost }) };
}

function parseParams(params: unknown): unknown {
  if (typeof params !== 'string') return params;
  try {
    return JSON.parse(params) as unknown;
  } catch {
    return undefined;
  }
}

/** A node still live when the daemon died ends in the status an interrupted turn gives it. */
function closed(node: ExecutionTreeNode, turnId: string): ExecutionTreeNode {
  if (FINAL_NODE_STATUSES.includes(node.status)) return node;
  if (node.id === turnId) return { ...node, status: INTERRUPTED_TURN_STATUS };
  return {
    ...node,
    status: INTERRUPTED_NODE_STATUS,
    // As a cancel does (approvals.md#approvals-cancelled): the pending approval ended `cancelled`.
    ...(node.status === 'awaiting_approval' && { approval: 'cancelled' as const }),
  };
}

/**
 * First-seen order, but every node after its parent (tree.md#tree-parent-first);
 * nodes that do not lead up to the turn node (their parent's events were all
 * pruned, or a corrupt cycle) are left out, since no client could place them.
 */
function parentsFirst(nodes: Map<string, ExecutionTreeNode>, rootId: string): ExecutionTreeNode[] {
  const ordered: ExecutionTreeNode[] = [];
  const placed = new Set<string>();
  const unplaceable = new Set<string>();
  for (const start of nodes.values()) {
    // Walk up to the first placed ancestor (or the root), then place the path top-down.
    const path: ExecutionTreeNode[] = [];
    const onPath = new Set<string>();
    let node: ExecutionTreeNode | undefined = start;
    let reachesRoot = false;
    while (node && !placed.has(node.id)) {
      if (unplaceable.has(node.id) || onPath.has(node.id)) break;
      path.push(node);
      onPath.add(node.id);
      if (node.id === rootId) {
        reachesRoot = true;
        break;
      }
      node = node.parentId === null ? undefined : nodes.get(node.parentId);
    }
    if (node && placed.has(node.id)) reachesRoot = true;
    for (const step of path.reverse()) {
      if (reachesRoot) {
        placed.add(step.id);
        ordered.push(step);
      } else unplaceable.add(step.id);
    }
  }
  return ordered;
}
