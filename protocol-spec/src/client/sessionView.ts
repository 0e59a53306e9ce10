/**
 * SessionView: what a client knows about one session, rebuilt from the
 * daemon's session events applied strictly in `seq` order.
 *
 * A gap (seq > last + 1) means events were lost: the view holds what came
 * after, asks for `session/attach` with `sinceSeq = last` and applies the
 * replay; a replay too old for the daemon's buffer comes as a snapshot, which
 * resets the tree. Duplicates (seq <= last) are ignored. No I/O of its own:
 * re-attaching goes through the `reattach` callback.
 */
import type { z } from 'zod';
import type { PermissionMode, StopReason } from '../base.js';
import type { ApprovalResolvedParams } from '../approval.js';
import type { BudgetExceededParams } from '../budget.js';
import type { ChatChunkParams } from '../chat.js';
import type { CommandInfo } from '../commands.js';
import type { CostSummaryParams } from '../cost.js';
import type { NotificationDescriptor } from '../descriptor.js';
import { Methods } from '../methods.js';
import type { PlanEntry } from '../plan.js';
import type { QuestionResolvedParams } from '../question.js';
import type { ExecutionTreeSnapshot } from '../tree.js';
import type { SessionStateParams, TurnState } from '../session.js';
import { ApprovalQueue } from './approvalQueue.js';
import { QuestionQueue } from './questionQueue.js';
import { TypedEmitter, type Disposable, type Listener } from './events.js';
import { SeqOrder } from './seqOrder.js';
import { TreeReducer } from './treeReducer.js';
import { TurnTranscript } from './turnTranscript.js';

type EventOf<D extends NotificationDescriptor> = {
  method: D['method'];
  params: z.output<D['params']>;
};

/** The daemon notifications that belong to a session and carry its seq. */
export const SESSION_EVENT_METHODS = [
  Methods.SessionUpdate,
  Methods.SessionState,
  Methods.ChatChunk,
  Methods.TreeUpdate,
  Methods.ApprovalResolved,
  Methods.QuestionResolved,
  Methods.BudgetExceeded,
  Methods.PlanUpdate,
  Methods.CostSummary,
  Methods.SessionDeleted,
  Methods.CommandsChanged,
] as const;

export type SessionEvent =
  | EventOf<typeof Methods.SessionUpdate>
  | EventOf<typeof Methods.SessionState>
  | EventOf<typeof Methods.ChatChunk>
  | EventOf<typeof Methods.TreeUpdate>
  | EventOf<typeof Methods.ApprovalResolved>
  | EventOf<typeof Methods.QuestionResolved>
  | EventOf<typeof Methods.BudgetExceeded>
  | EventOf<typeof Methods.PlanUpdate>
  | EventOf<typeof Methods.CostSummary>
  | EventOf<typeof Methods.SessionDeleted>
  | EventOf<typeof Methods.CommandsChanged>;

type SessionUpdateParams = EventOf<typeof Methods.SessionUpdate>['params'];
/** A `session/attach` result, as validated by the client. */
export type AttachResult = z.output<typeof Methods.SessionAttach.result>;
/** A view of the session as `_arbor/conformance/state` reports it. */
export type ConformanceView = z.input<typeof Methods.ConformanceState.result>;

export interface SessionViewEvents {
  /** A new turn's first event arrived; the tree and turn text start empty. */
  turnStarted: { turnId: string };
  /** Nodes of the current turn changed (ids in upsert order). */
  tree: { turnId: string; changed: string[] };
  /** Text streamed into a node of the current turn. */
  text: ChatChunkParams;
  /** Turn state: running / requires_action / idle. */
  state: SessionStateParams;
  /** `session/state` idle with a stopReason: the turn is over. */
  turnEnded: { turnId: string | undefined; stopReason: StopReason; state: SessionStateParams };
  /** `session/deleted`: the session is gone (any client deleted it); its last event. */
  deleted: { sessionId: string };
  /** `session/update`: a session property changed. */
  session: SessionUpdateParams;
  permissionMode: PermissionMode;
  plan: readonly PlanEntry[];
  /** `commands/changed`: the session's slash commands and skills, the whole new list. */
  commands: readonly CommandInfo[];
  budget: BudgetExceededParams;
  cost: CostSummaryParams;
  approvalResolved: ApprovalResolvedParams;
  questionResolved: QuestionResolvedParams;
  /** The tree was replaced from a snapshot (attach or a replay too old for events). */
  reset: { turnId: string | undefined };
  /**
   * Events are missing after `sinceSeq` (a seq gap, or a tree node under an
   * unknown parent); a re-attach from there is under way when `reattach` is set.
   */
  gap: { reason: GapReason; sinceSeq: number; nextSeen: number };
  /** Re-attach failed; the view keeps what it had and retries on the next gap or resync(). */
  error: Error;
}

/** `detached`: the daemon detached this client (session/detached), e.g. for reading too slowly. */
export type GapReason = 'seq' | 'unknownParent' | 'detached';

export type Reattach = (sinceSeq: number) => Promise<AttachResult>;

export interface SessionViewOptions {
  /**
   * Highest seq already reflected in this view: 0 for a session just created
   * (`session/new` attaches its caller, events start at 1); undefined when an
   * attach result is awaited — events are held until `applyAttach`.
   */
  lastSeq?: number | undefined;
  /** Sends `session/attach` with `sinceSeq` (the tracker passes the client's). */
  reattach?: Reattach;
}

export class SessionView {
  readonly sessionId: string;
  readonly approvals = new ApprovalQueue();
  /** The model's questions (ask_user) waiting in this session (protocol 1.1). */
  readonly questions = new QuestionQueue();
  reattach: Reattach | undefined;

  readonly #events = new TypedEmitter<SessionViewEvents>();
  readonly #order: SeqOrder<SessionEvent>;
  #tree = new TreeReducer();
  #transcript = new TurnTranscript();
  #turnId: string | undefined;
  #state: TurnState = 'idle';
  #lastState: SessionStateParams | undefined;
  #permissionMode: PermissionMode | undefined;
  #title: string | undefined;
  #model: string | undefined;
  #agent: string | undefined;
  #plan: readonly PlanEntry[] = [];
  #commands: readonly CommandInfo[] | undefined;
  /** A plan/update was applied: a plan from session/load is older. */
  #planSeen = false;
  #budgetNotices: BudgetExceededParams[] = [];
  readonly #costs = new Map<string, CostSummaryParams>();
  /** A re-attach is in flight or its replay has not reached `#resyncUntil` yet. */
  #resyncing = false;
  #resyncUntil: number | undefined;

  constructor(sessionId: string, options: SessionViewOptions = {}) {
    this.sessionId = sessionId;
    this.#order = new SeqOrder<SessionEvent>('lastSeq' in options ? options.lastSeq : 0);
    this.reattach = options.reattach;
  }

  on<K extends keyof SessionViewEvents>(
    event: K,
    listener: Listener<SessionViewEvents[K]>,
  ): Disposable {
    return this.#events.on(event, listener);
  }

  /** Highest seq applied; undefined while the first attach result is awaited. */
  get lastSeq(): number | undefined {
    return this.#order.lastSeq;
  }
  get turnId(): string | undefined {
    return this.#turnId;
  }
  get state(): TurnState {
    return this.#state;
  }
  /** The latest `session/state` as sent (stopReason, usage, error of the last turn end). */
  get lastStateEvent(): SessionStateParams | undefined {
    return this.#lastState;
  }
  get permissionMode(): PermissionMode | undefined {
    return this.#permissionMode;
  }
  get title(): string | undefined {
    return this.#title;
  }
  get model(): string | undefined {
    return this.#model;
  }
  /** The agent profile the session runs with (agents.md#agents-session); fixed at session/new. */
  get agent(): string | undefined {
    return this.#agent;
  }
  /** The current turn's execution tree (and its streamed text). */
  get tree(): TreeReducer {
    return this.#tree;
  }
  /**
   * The current turn's text and nodes in stream order, and its cost: what
   * `session/load` returns as `parts` and `cost` once the turn is stored.
   * After a snapshot without `parts` (a 1.0 daemon) the order before it is
   * unknown: nodes first, then text.
   */
  get transcript(): TurnTranscript {
    return this.#transcript;
  }
  get plan(): readonly PlanEntry[] {
    return this.#plan;
  }
  /** The session's commands and skills; undefined until listed (seedCommands) or announced. */
  get commands(): readonly CommandInfo[] | undefined {
    return this.#commands;
  }
  /** A `commands/list` result (commands.md#commands-list): shown until a `commands/changed` replaces it. */
  seedCommands(commands: readonly CommandInfo[]): void {
    this.#commands = commands;
    this.#events.emit('commands', commands);
  }
  /**
   * The plan `session/load` returned (sessions.md#sessions-load-plan): shown
   * until a `plan/update` replaces it; one already applied wins.
   */
  seedPlan(entries: readonly PlanEntry[]): void {
    if (this.#planSeen) return;
    this.#plan = entries;
    this.#events.emit('plan', entries);
  }
  /** Budget notices of the current turn. */
  get budgetNotices(): readonly BudgetExceededParams[] {
    return this.#budgetNotices;
  }
  costOf(turnId: string): CostSummaryParams | undefined {
    return this.#costs.get(turnId);
  }
  /** The current (or last) turn's cost summary. */
  get cost(): CostSummaryParams | undefined {
    return this.#turnId === undefined ? undefined : this.#costs.get(this.#turnId);
  }
  /** A re-attach is under way; events are held meanwhile. */
  get resyncing(): boolean {
    return this.#resyncing;
  }

  /** The assistant text of the current turn: what was streamed into its turn node(s). */
  turnText(): string {
    return this.#tree
      .roots()
      .map((root) => this.#tree.textOf(root.id))
      .join('');
  }

  /** Feeds one daemon event. Events of other sessions are ignored. */
  receive(event: SessionEvent): void {
    if (event.params.sessionId !== this.sessionId) return;
    const offered = this.#order.offer(event.params.seq, event);
    for (const ready of offered.ready) this.#apply(ready);
    this.#afterProgress();
    if (offered.gap) this.#gap();
  }

  /**
   * Applies a `session/attach` result: the session's properties, then
   * - `snapshot`: the tree and pending approvals and questions are reset from the snapshot and seq jumps to lastSeq;
   * - `none`: the same, from the snapshot when one came (a first attach);
   * - `events`: the missed events follow with their original seq and are applied as they come.
   */
  applyAttach(result: AttachResult): void {
    const { session } = result;
    this.#permissionMode = session.permissionMode;
    this.#title = session.title;
    this.#model = session.model;
    this.#agent = session.agent;
    if (result.replay === 'events') {
      this.#resyncUntil = result.lastSeq;
      this.#afterProgress();
      return;
    }
    this.#state = session.state;
    const snapshot = result.snapshot;
    if (snapshot) {
      this.#resetTurn(snapshot.turnId, snapshot.tree);
      this.#tree.resetText(snapshot.texts ?? [], result.lastSeq);
      this.#transcript = snapshot.parts
        ? TurnTranscript.fromParts(snapshot.parts, snapshot.tree)
        : TurnTranscript.fromTree(snapshot.tree, snapshot.texts ?? []);
      this.approvals.sync(snapshot.pendingApprovals);
      this.questions.sync(snapshot.pendingQuestions ?? []);
    }
    const ready = this.#order.rebase(result.lastSeq);
    this.#resyncing = false;
    this.#resyncUntil = undefined;
    for (const event of ready) this.#apply(event);
    if (this.#order.heldCount > 0) this.#gap();
  }

  /**
   * `session/detached`: the daemon sent this session's events up to here and
   * no more; everything it sent came before the notice, so re-attaching from
   * the last applied seq loses nothing (sessions.md#sessions-detached-client-resumes).
   */
  detachedByDaemon(): void {
    this.#gap('detached');
  }

  /** Asks for a re-attach from the last applied seq now (e.g. after reconnecting). */
  resync(): Promise<void> {
    const sinceSeq = this.#order.lastSeq ?? 0;
    return this.#reattachFrom(sinceSeq);
  }

  /** What `_arbor/conformance/state` reports: this client's view of the session. */
  conformanceState(): ConformanceView {
    const result: ConformanceView = {
      sessionId: this.sessionId,
      lastSeq: this.#order.lastSeq ?? 0,
      state: this.#state,
      tree: this.#tree.toSnapshot(),
      pendingApprovals: this.approvals.pending().map((a) => a.request.toolCallId),
      pendingQuestions: this.questions.pending().map((q) => q.request.toolCallId),
      text: this.turnText(),
      plan: [...this.#plan],
    };
    if (this.#permissionMode) result.permissionMode = this.#permissionMode;
    return result;
  }

  #gap(reason: GapReason = 'seq', seen?: number): void {
    if (this.#resyncing) return;
    const sinceSeq = this.#order.lastSeq ?? 0;
    this.#events.emit('gap', {
      reason,
      sinceSeq,
      nextSeen: seen ?? this.#order.firstHeld ?? sinceSeq + 1,
    });
    void this.#reattachFrom(sinceSeq);
  }

  async #reattachFrom(sinceSeq: number): Promise<void> {
    const reattach = this.reattach;
    if (!reattach) return;
    this.#resyncing = true;
    this.#resyncUntil = undefined;
    try {
      this.applyAttach(await reattach(sinceSeq));
    } catch (error) {
      this.#resyncing = false;
      this.#events.emit('error', error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** An `events` replay is complete once seq reaches the daemon's lastSeq; a gap still open then is a new one. */
  #afterProgress(): void {
    if (!this.#resyncing || this.#resyncUntil === undefined) return;
    if ((this.#order.lastSeq ?? 0) < this.#resyncUntil) return;
    this.#resyncing = false;
    this.#resyncUntil = undefined;
    if (this.#order.heldCount > 0) this.#gap();
  }

  #enterTurn(turnId: string): void {
    if (turnId === this.#turnId) return;
    this.#turnId = turnId;
    this.#tree = new TreeReducer();
    this.#transcript = new TurnTranscript();
    this.#budgetNotices = [];
    this.#events.emit('turnStarted', { turnId });
  }

  #resetTurn(turnId: string | undefined, snapshot: ExecutionTreeSnapshot | undefined): void {
    if (turnId !== undefined && turnId !== this.#turnId) {
      this.#turnId = turnId;
      this.#tree = new TreeReducer();
      this.#transcript = new TurnTranscript();
      this.#budgetNotices = [];
    }
    this.#tree.reset(snapshot);
    this.#events.emit('reset', { turnId: this.#turnId });
  }

  #apply(event: SessionEvent): void {
    switch (event.method) {
      case Methods.SessionDeleted.method:
        this.#events.emit('deleted', { sessionId: event.params.sessionId });
        return;
      case Methods.SessionUpdate.method: {
        const p = event.params;
        if (p.title !== undefined) this.#title = p.title;
        if (p.model !== undefined) this.#model = p.model;
        this.#events.emit('session', p);
        if (p.permissionMode !== undefined && p.permissionMode !== this.#permissionMode) {
          this.#permissionMode = p.permissionMode;
          this.#events.emit('permissionMode', p.permissionMode);
        }
        return;
      }
      case Methods.SessionState.method: {
        const p = event.params;
        if (p.turnId !== undefined && p.state !== 'idle') this.#enterTurn(p.turnId);
        this.#state = p.state;
        this.#lastState = p;
        this.#events.emit('state', p);
        if (p.state === 'idle' && p.stopReason !== undefined) {
          this.#events.emit('turnEnded', {
            turnId: p.turnId ?? this.#turnId,
            stopReason: p.stopReason,
            state: p,
          });
        }
        return;
      }
      case Methods.ChatChunk.method: {
        const p = event.params;
        this.#enterTurn(p.turnId);
        if (this.#tree.appendText(p)) {
          this.#transcript.text(p.nodeId, p.text);
          this.#events.emit('text', p);
        }
        return;
      }
      case Methods.TreeUpdate.method: {
        const p = event.params;
        this.#enterTurn(p.turnId);
        const changed = this.#tree.upsert(p.nodes);
        this.#transcript.nodes(p.nodes);
        this.#events.emit('tree', { turnId: p.turnId, changed });
        // A node under an unknown parent means missed events (spec tree-unknown-parent).
        const orphans = this.#tree.detached();
        if (orphans.some((n) => changed.includes(n.id))) this.#gap('unknownParent', p.seq);
        return;
      }
      case Methods.ApprovalResolved.method: {
        const p = event.params;
        this.approvals.resolved(p);
        this.#events.emit('approvalResolved', p);
        return;
      }
      case Methods.QuestionResolved.method: {
        const p = event.params;
        this.questions.resolved(p);
        this.#events.emit('questionResolved', p);
        return;
      }
      case Methods.BudgetExceeded.method: {
        const p = event.params;
        this.#enterTurn(p.turnId);
        this.#budgetNotices.push(p);
        this.#events.emit('budget', p);
        return;
      }
      case Methods.PlanUpdate.method: {
        const p = event.params;
        this.#enterTurn(p.turnId);
        this.#plan = p.entries;
        this.#planSeen = true;
        this.#events.emit('plan', p.entries);
        return;
      }
      case Methods.CommandsChanged.method: {
        this.#commands = event.params.commands;
        this.#events.emit('commands', event.params.commands);
        return;
      }
      case Methods.CostSummary.method: {
        const p = event.params;
        this.#enterTurn(p.turnId);
        this.#costs.set(p.turnId, p);
        this.#transcript.cost(p);
        this.#events.emit('cost', p);
        return;
      }
    }
  }
}
