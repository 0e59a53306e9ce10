/**
 * ExecutionTree: the turn node plus one node per tool call and subtask. Every
 * change goes out as a `tree/update` upsert; a node is created (and announced)
 * only under an existing parent, so parents always come first. Usage spent in
 * a node rolls up to every ancestor. The snapshot is the flat list in creation
 * order, which is parents-first as well.
 */
import {
  FINAL_NODE_STATUSES,
  OUTPUT_MAX_CHARS,
  PREVIEW_MAX_CHARS,
  type ApprovalOutcome,
  type DecidingRule,
  type ExecutionTreeNode,
  type ExecutionTreeSnapshot,
  type InjectedArgs,
  type InstructionsFile,
  type NodeKind,
  type NodeProgress,
  type NodeStatus,
  type TurnChanges,
  type Usage,
} from '@arbor/protocol';
import { daemonSecrets } from '../security/secretRedactor.js';
import { maskUrlCredentials } from '../security/urlCredentials.js';
import { addUsage } from './usageAccountant.js';

const ELLIPSIS = '…';
/** ExecutionTreeNode.title's limit. */
const TITLE_MAX_CHARS = 500;

/** More than the longest URL credential maskUrlCredentials matches. */
const MASK_SLACK_CHARS = 2048;

/**
 * Cuts a preview to the protocol's limit, marking the cut. URL credentials
 * are masked: an argument preview goes out before any tool could make them
 * known secrets.
 */
export function preview(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  // Masked before the cut, over a head long enough to hold any credential that reaches into the preview.
  return cutText(
    maskUrlCredentials(text.slice(0, PREVIEW_MAX_CHARS + MASK_SLACK_CHARS)),
    PREVIEW_MAX_CHARS,
  );
}

/**
 * At most `max` UTF-16 code units (hence at most `max` code points too), never
 * splitting a surrogate pair; a cut text ends with an ellipsis.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - ELLIPSIS.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end) + ELLIPSIS;
}

export interface NewNode {
  parentId: string;
  kind: Exclude<NodeKind, 'turn'>;
  name: string;
  title?: string;
  depth: number;
  args?: unknown;
  /** What the model gave besides the tool's arguments (agent/injectedArgs.ts). */
  injectedArgs?: InjectedArgs;
  status?: NodeStatus;
}

export interface NodeEnd {
  status: NodeStatus;
  result?: unknown;
  isError?: boolean;
  approval?: ApprovalOutcome;
  /** The whole result was kept as this artifact (the model got a preview). */
  artifactId?: string;
  /** The turn node only: the workspace files the turn changed (checkpoints.md#checkpoints-turn-changes). */
  changes?: TurnChanges;
}

/** How often a running tool's output is sent, at most: often enough to watch, not an upsert per write. */
const OUTPUT_COALESCE_MS = 100;

export class ExecutionTree {
  private readonly nodes = new Map<string, ExecutionTreeNode>();
  /** Output of running nodes not sent yet, with the timer that sends it. */
  private readonly outputs = new Map<string, { tail: string; timer?: NodeJS.Timeout }>();
  private readonly startTimes = new Map<string, number>();
  private nextId = 1;
  readonly rootId: string;

  constructor(
    turnId: string,
    /** Receives every upsert (already ordered parents-first). */
    private readonly publish: (nodes: ExecutionTreeNode[]) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.rootId = turnId;
    this.insert({
      id: turnId,
      parentId: null,
      kind: 'turn',
      name: 'turn',
      status: 'running',
      depth: 0,
    });
    this.markStarted(turnId);
    this.emit(turnId);
  }

  get(id: string): Readonly<ExecutionTreeNode> | undefined {
    return this.nodes.get(id);
  }

  add(node: NewNode): string {
    if (!this.nodes.has(node.parentId))
      throw new Error(`tree node ${node.parentId} does not exist`);
    const id = `n${this.nextId++}`;
    this.insert({
      id,
      parentId: node.parentId,
      kind: node.kind,
      name: node.name,
      ...(node.title === undefined ? {} : { title: cutText(node.title, TITLE_MAX_CHARS) }),
      status: node.status ?? 'pending',
      depth: node.depth,
      ...(node.args === undefined ? {} : { argsPreview: preview(node.args) }),
      ...(node.injectedArgs && { injectedArgs: node.injectedArgs }),
    });
    if (node.status === 'running') this.markStarted(id);
    this.emit(id);
    return id;
  }

  start(id: string): void {
    const node = this.require(id);
    node.status = 'running';
    this.markStarted(id);
    this.emit(id);
  }

  setStatus(id: string, status: NodeStatus, approval?: ApprovalOutcome): void {
    const node = this.require(id);
    node.status = status;
    if (approval !== undefined) node.approval = approval;
    this.emit(id);
  }

  /** The call waits on the user: `approvalId` is the toolCallId its tool/approvalRequest carries. */
  awaitApproval(id: string, approvalId: string): void {
    const node = this.require(id);
    node.status = 'awaiting_approval';
    node.approvalId = approvalId;
    this.emit(id);
  }

  /** The turn node's workspace instructions files, the whole list so far (tree.md#tree-turn-instructions). */
  setInstructions(files: readonly InstructionsFile[]): void {
    const node = this.require(this.rootId);
    if (isFinal(node.status)) return;
    node.instructions = files.map((file) => ({ ...file }));
    this.emit(this.rootId);
  }

  setApproval(id: string, approval: ApprovalOutcome): void {
    const node = this.require(id);
    if (node.approval === approval || isFinal(node.status)) return;
    node.approval = approval;
    this.emit(id);
  }

  /** The permission rule that decided the call (approvals.md#rules-on-node). */
  setRule(id: string, rule: DecidingRule): void {
    const node = this.require(id);
    if (isFinal(node.status)) return;
    node.rule = rule;
    this.emit(id);
  }

  /** How far a running node is; ignored once it is not running (tree.md#tree-progress-running). */
  setProgress(id: string, progress: NodeProgress): void {
    const node = this.require(id);
    if (node.status !== 'running') return;
    node.progress = {
      ...progress,
      ...(progress.message === undefined ? {} : { message: preview(progress.message) }),
    };
    this.emit(id);
  }

  /**
   * What a running tool wrote (a command's stdout and stderr): its node
   * shows the last OUTPUT_MAX_CHARS of it, sent at most every
   * OUTPUT_COALESCE_MS like chat chunks, and at its end.
   */
  appendOutput(id: string, text: string): void {
    const node = this.require(id);
    if (node.status !== 'running' || text === '') return;
    let pending = this.outputs.get(id);
    if (pending === undefined) {
      pending = { tail: node.output ?? '' };
      this.outputs.set(id, pending);
    }
    pending.tail = lastChars(pending.tail + text, OUTPUT_MAX_CHARS);
    if (pending.timer === undefined) {
      pending.timer = setTimeout(() => this.flushOutput(id, true), OUTPUT_COALESCE_MS);
      pending.timer.unref();
    }
  }

  finish(id: string, end: NodeEnd): void {
    const node = this.require(id);
    if (isFinal(node.status)) return;
    this.flushOutput(id, false);
    node.status = end.status;
    // The upsert that ends a node with progress clears it (tree.md#tree-progress-running).
    if (node.progress) node.progress = null;
    if (end.result !== undefined) node.resultPreview = preview(end.result);
    if (end.isError !== undefined) node.isError = end.isError;
    if (end.approval !== undefined) node.approval = end.approval;
    if (end.artifactId !== undefined) node.artifactId = end.artifactId;
    if (end.changes !== undefined) node.changes = end.changes;
    const now = this.now();
    // completedAt and durationMs from one clock reading: startedAt + durationMs = completedAt.
    node.completedAt = new Date(now).toISOString();
    const started = this.startTimes.get(id);
    if (started !== undefined) node.durationMs = Math.max(0, Math.round(now - started));
    this.emit(id);
  }

  /** Usage (and cost, null = unknown) spent inside a node, rolled up to every ancestor. */
  addUsage(id: string, usage: Usage, cost: number | null): void {
    for (
      let node = this.nodes.get(id);
      node;
      node = node.parentId === null ? undefined : this.nodes.get(node.parentId)
    ) {
      node.usage = addUsage(node.usage, usage);
      node.cost =
        node.cost === undefined
          ? cost
          : node.cost === null || cost === null
            ? null
            : node.cost + cost;
    }
  }

  /** Ends every node still live (pending, running, awaiting approval) except the turn node. */
  closeOpen(status: NodeStatus): void {
    const open = [...this.nodes.values()].filter(
      (node) => !isFinal(node.status) && node.id !== this.rootId,
    );
    for (const node of open) this.finish(node.id, { status });
  }

  snapshot(): ExecutionTreeSnapshot {
    return { version: 1, nodes: [...this.nodes.values()].map(copyNode) };
  }

  private insert(node: ExecutionTreeNode): void {
    this.nodes.set(node.id, node);
  }

  private markStarted(id: string): void {
    const node = this.require(id);
    if (this.startTimes.has(id)) return;
    const now = this.now();
    this.startTimes.set(id, now);
    node.startedAt = new Date(now).toISOString();
  }

  /** Puts the output gathered since the last upsert on the node, redacted; `send`: as an upsert of its own. */
  private flushOutput(id: string, send: boolean): void {
    const pending = this.outputs.get(id);
    if (pending === undefined) return;
    clearTimeout(pending.timer);
    this.outputs.delete(id);
    const node = this.require(id);
    // Cut at both ends: a secret may straddle either; masking may lengthen it again.
    const shown = maskUrlCredentials(daemonSecrets.redactWindow(pending.tail));
    node.output = lastChars(shown, OUTPUT_MAX_CHARS);
    if (send) this.emit(id);
  }

  private emit(id: string): void {
    this.publish([copyNode(this.require(id))]);
  }

  private require(id: string): ExecutionTreeNode {
    const node = this.nodes.get(id);
    if (node === undefined) throw new Error(`tree node ${id} does not exist`);
    return node;
  }
}

export function isFinal(status: NodeStatus): boolean {
  return FINAL_NODE_STATUSES.includes(status);
}

/** The last `max` UTF-16 code units of `text`, never starting inside a surrogate pair. */
function lastChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const start = text.length - max;
  const first = text.charCodeAt(start);
  return text.slice(first >= 0xdc00 && first <= 0xdfff ? start + 1 : start);
}

/**
 * A node as it is now, for an upsert or a snapshot: later changes to the tree
 * must not reach it. Its nested objects (usage, progress) are only ever
 * replaced, never changed in place, yet copied too; a spread is several times
 * cheaper than structuredClone, which ran three times per tool call.
 */
function copyNode(node: ExecutionTreeNode): ExecutionTreeNode {
  return {
    ...node,
    ...(node.usage && { usage: { ...node.usage } }),
    ...(node.progress && { progress: { ...node.progress } }),
    ...(node.injectedArgs && { injectedArgs: { ...node.injectedArgs } }),
    ...(node.instructions && { instructions: node.instructions.map((file) => ({ ...file })) }),
  };
}
