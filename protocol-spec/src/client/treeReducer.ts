/**
 * TreeReducer: rebuilds one turn's execution tree from `tree/update` upserts
 * or from a stored ExecutionTreeSnapshot — one model for live and reloaded
 * turns. Pure: no I/O, no timers; the caller feeds it validated messages.
 *
 * Upserts merge by id: optional fields absent from an upsert keep their earlier
 * value. A node whose parent has not arrived yet is held, not dropped, and
 * shows up under its parent the moment the parent arrives.
 */
import type { ExecutionTreeNode, ExecutionTreeSnapshot } from '../tree.js';

/** What a chunk needs to be placed: its seq orders it, its nodeId places it. */
export interface TextChunk {
  seq: number;
  nodeId: string;
  text: string;
}

interface NodeText {
  chunks: { seq: number; text: string }[];
  joined: string | undefined;
}

const ROOT = Symbol('root');
type ParentKey = string | typeof ROOT;

export class TreeReducer {
  readonly #nodes = new Map<string, ExecutionTreeNode>();
  /** Child ids per parent id in arrival order, kept even while the parent is unknown. */
  readonly #children = new Map<ParentKey, string[]>();
  readonly #text = new Map<string, NodeText>();

  static fromSnapshot(snapshot: ExecutionTreeSnapshot): TreeReducer {
    const reducer = new TreeReducer();
    reducer.reset(snapshot);
    return reducer;
  }

  /** Replaces every node with the snapshot's (none when absent). Streamed text is kept. */
  reset(snapshot?: ExecutionTreeSnapshot): void {
    this.#nodes.clear();
    this.#children.clear();
    if (snapshot) this.upsert(snapshot.nodes);
  }

  /** Merges upserts by id. Returns the ids of the nodes that changed, in order. */
  upsert(nodes: readonly ExecutionTreeNode[]): string[] {
    const changed: string[] = [];
    for (const incoming of nodes) {
      const previous = this.#nodes.get(incoming.id);
      const merged = previous ? mergeNode(previous, incoming) : incoming;
      if (previous && previous.parentId !== merged.parentId) {
        this.#unlink(previous);
        this.#link(merged);
      } else if (!previous) {
        this.#link(merged);
      }
      this.#nodes.set(merged.id, merged);
      changed.push(merged.id);
    }
    return changed;
  }

  /**
   * Adds streamed text to its node, in seq order whatever the arrival order;
   * a chunk with a seq already seen for that node is ignored. Returns whether it was added.
   */
  appendText(chunk: TextChunk): boolean {
    let entry = this.#text.get(chunk.nodeId);
    if (!entry) {
      entry = { chunks: [], joined: undefined };
      this.#text.set(chunk.nodeId, entry);
    }
    const { chunks } = entry;
    let at = chunks.length;
    while (at > 0 && chunks[at - 1]!.seq > chunk.seq) at--;
    if (at > 0 && chunks[at - 1]!.seq === chunk.seq) return false;
    chunks.splice(at, 0, { seq: chunk.seq, text: chunk.text });
    entry.joined = undefined;
    return true;
  }

  /** All text streamed into a node so far (the turn node's text is the answer). */
  textOf(nodeId: string): string {
    const entry = this.#text.get(nodeId);
    if (!entry) return '';
    entry.joined ??= entry.chunks.map((c) => c.text).join('');
    return entry.joined;
  }

  /**
   * Replaces all streamed text with a snapshot's (`texts` of an attach
   * snapshot), as of `asOfSeq`: chunks with a higher seq append to it.
   */
  resetText(texts: readonly { nodeId: string; text: string }[], asOfSeq: number): void {
    this.#text.clear();
    for (const { nodeId, text } of texts) {
      if (text.length > 0)
        this.#text.set(nodeId, { chunks: [{ seq: asOfSeq, text }], joined: undefined });
    }
  }

  clearText(): void {
    this.#text.clear();
  }

  get(id: string): ExecutionTreeNode | undefined {
    return this.#nodes.get(id);
  }

  /** Number of nodes known, attached or held. */
  get size(): number {
    return this.#nodes.size;
  }

  /** Nodes whose parentId is null (the turn node), in arrival order. */
  roots(): ExecutionTreeNode[] {
    return this.#resolve(this.#children.get(ROOT));
  }

  /** A node's children in arrival order. */
  children(id: string): ExecutionTreeNode[] {
    return this.#resolve(this.#children.get(id));
  }

  /** Nodes not reachable from a root yet: their parent (or an ancestor) has not arrived. */
  detached(): ExecutionTreeNode[] {
    const reachable = new Set(this.#walk().map((n) => n.id));
    return [...this.#nodes.values()].filter((n) => !reachable.has(n.id));
  }

  /**
   * The attached tree as a snapshot: depth-first, parents before children,
   * children in order, so `fromSnapshot(toSnapshot())` rebuilds the same tree.
   * Held nodes are left out: a snapshot must never name an unknown parent.
   */
  toSnapshot(): ExecutionTreeSnapshot {
    return { version: 1, nodes: this.#walk() };
  }

  /** Iterative depth-first walk from the roots; a visited set keeps a bad cycle finite. */
  #walk(): ExecutionTreeNode[] {
    const out: ExecutionTreeNode[] = [];
    const visited = new Set<string>();
    const stack = [...(this.#children.get(ROOT) ?? [])].reverse();
    while (stack.length > 0) {
      const id = stack.pop()!;
      const node = this.#nodes.get(id);
      if (!node || visited.has(id)) continue;
      visited.add(id);
      out.push(node);
      const kids = this.#children.get(id);
      if (kids) for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
    }
    return out;
  }

  #resolve(ids: readonly string[] | undefined): ExecutionTreeNode[] {
    if (!ids) return [];
    const out: ExecutionTreeNode[] = [];
    for (const id of ids) {
      const node = this.#nodes.get(id);
      if (node) out.push(node);
    }
    return out;
  }

  #link(node: ExecutionTreeNode): void {
    const key: ParentKey = node.parentId ?? ROOT;
    let list = this.#children.get(key);
    if (!list) {
      list = [];
      this.#children.set(key, list);
    }
    list.push(node.id);
  }

  #unlink(node: ExecutionTreeNode): void {
    const list = this.#children.get(node.parentId ?? ROOT);
    const at = list?.indexOf(node.id) ?? -1;
    if (list && at >= 0) list.splice(at, 1);
  }
}

/** Fields present in the upsert win; fields it leaves out keep their earlier value. */
function mergeNode(previous: ExecutionTreeNode, incoming: ExecutionTreeNode): ExecutionTreeNode {
  const merged: Record<string, unknown> = { ...previous };
  for (const [key, value] of Object.entries(incoming)) {
    if (value !== undefined) merged[key] = value;
  }
  return merged as ExecutionTreeNode;
}
