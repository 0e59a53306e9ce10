/**
 * TurnTranscript: one turn's streamed output in stream order — the text runs
 * and the places where tool-call and subtask nodes appeared — folded the way
 * sessions.md#stored-parts defines `StoredMessage.parts`. The daemon folds its
 * live events with it to store a turn, the reference daemon and conformance
 * suite to check one, and a client to draw a live turn: the same fold on both
 * sides is what makes a reloaded turn look exactly like the live one.
 *
 * Pure: no I/O. Feed it events in seq order.
 */
import type { ExecutionTreeNode, ExecutionTreeSnapshot } from '../tree.js';
import type { CostSummaryParams } from '../cost.js';
import type { StoredPart, StoredTurnCost } from '../session.js';

/** What a node shows in its body, in order: its own text runs and its child nodes. */
export type FlowItem = { type: 'text'; text: string } | { type: 'node'; nodeId: string };

type NodeRef = Pick<ExecutionTreeNode, 'id' | 'parentId'>;

export class TurnTranscript {
  readonly #parts: StoredPart[] = [];
  /** Per node, its flow; adjacent text of the node is kept as one item. */
  readonly #flows = new Map<string, FlowItem[]>();
  readonly #placed = new Set<string>();
  #cost: StoredTurnCost | undefined;

  /** A stored turn: its parts (and cost) exactly as `session/load` returned them. */
  static fromParts(
    parts: readonly StoredPart[],
    tree: ExecutionTreeSnapshot | undefined,
    cost?: StoredTurnCost,
  ): TurnTranscript {
    const transcript = new TurnTranscript();
    const parentOf = new Map(tree?.nodes.map((n) => [n.id, n.parentId]));
    for (const part of parts) {
      if (part.type === 'text') transcript.text(part.nodeId, part.text);
      else {
        const parentId = parentOf.get(part.nodeId);
        // A part naming no node of the tree cannot be placed: left out, as no card exists for it.
        if (parentId !== undefined && parentId !== null)
          transcript.nodes([{ id: part.nodeId, parentId }]);
      }
    }
    if (cost) transcript.#cost = cost;
    return transcript;
  }

  /**
   * A stored turn without parts (a 1.0 daemon, or a turn stored before 1.1):
   * every node in tree order, then each node's text — cards before the answer.
   */
  static fromTree(
    tree: ExecutionTreeSnapshot | undefined,
    texts: readonly { nodeId: string; text: string }[],
  ): TurnTranscript {
    const transcript = new TurnTranscript();
    if (tree) transcript.nodes(tree.nodes);
    for (const { nodeId, text } of texts) transcript.text(nodeId, text);
    return transcript;
  }

  /** `tree/update` nodes: each node seen for the first time, other than a turn node, becomes a part. */
  nodes(nodes: readonly NodeRef[]): boolean {
    let added = false;
    for (const node of nodes) {
      if (node.parentId === null || this.#placed.has(node.id)) continue;
      this.#placed.add(node.id);
      this.#parts.push({ type: 'node', nodeId: node.id });
      this.#flow(node.parentId).push({ type: 'node', nodeId: node.id });
      added = true;
    }
    return added;
  }

  /** `chat/chunk` text into `nodeId`: extends the last part when it is text into the same node. */
  text(nodeId: string, text: string): boolean {
    if (text === '') return false;
    const last = this.#parts.at(-1);
    if (last?.type === 'text' && last.nodeId === nodeId) {
      this.#parts[this.#parts.length - 1] = { ...last, text: last.text + text };
    } else this.#parts.push({ type: 'text', nodeId, text });
    const flow = this.#flow(nodeId);
    const tail = flow.at(-1);
    if (tail?.type === 'text') flow[flow.length - 1] = { type: 'text', text: tail.text + text };
    else flow.push({ type: 'text', text });
    return true;
  }

  /** `cost/summary` of the turn: kept as sent, minus the fields that place it in a session. */
  cost(summary: CostSummaryParams | StoredTurnCost): void {
    const { sessionId: _s, seq: _q, turnId: _t, ...cost } = summary as CostSummaryParams;
    this.#cost = cost;
  }

  /** The parts as `StoredMessage.parts` carries them. */
  get parts(): StoredPart[] {
    return this.#parts.map((part) => ({ ...part }));
  }

  /** Each node's whole text, nodes in the order their text first came (a snapshot's `texts`). */
  get texts(): { nodeId: string; text: string }[] {
    const byNode = new Map<string, string>();
    for (const part of this.#parts)
      if (part.type === 'text')
        byNode.set(part.nodeId, (byNode.get(part.nodeId) ?? '') + part.text);
    return [...byNode].map(([nodeId, text]) => ({ nodeId, text }));
  }

  get costSummary(): StoredTurnCost | undefined {
    return this.#cost;
  }

  /** A node's body in order: its text runs (joined where nothing came between) and child nodes. */
  flowOf(nodeId: string): readonly FlowItem[] {
    return this.#flows.get(nodeId) ?? [];
  }

  /** All text streamed into a node. */
  textOf(nodeId: string): string {
    return this.flowOf(nodeId)
      .map((item) => (item.type === 'text' ? item.text : ''))
      .join('');
  }

  #flow(nodeId: string): FlowItem[] {
    let flow = this.#flows.get(nodeId);
    if (!flow) {
      flow = [];
      this.#flows.set(nodeId, flow);
    }
    return flow;
  }
}
