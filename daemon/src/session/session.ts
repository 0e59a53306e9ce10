/**
 * One session in use by this daemon: the clients attached to it and their
 * roles, its event bus and at most one running turn. Its settings, messages
 * (user text + final answer + tree per turn) and events live in the store;
 * a turn commits the user's message before it starts and everything it
 * produced, in one transaction, when it ends. Turns run through the agent's
 * TurnRunner; the session is the runner's only way to reach clients
 * (SessionEventSink).
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  Methods,
  type SessionSnapshot,
  type AttachRole,
  type BudgetKind,
  type BudgetLimitsByKind,
  type ExecutionTreeNode,
  type ModelCost,
  type NotificationDescriptor,
  type PermissionMode,
  type Script,
  type SessionInfo,
  type StopReason,
  type TurnState,
  type Usage,
} from '@arbor/protocol';
import type {
  HistoryMessage,
  SessionEventParams,
  SessionEventSink,
  TurnResult,
  TurnRunner,
} from '../agent/turnRunner.js';
import { TurnTranscript } from '@arbor/protocol/client';
import type { Logger } from '../logging/logger.js';
import { rpcErrors } from '../rpcError.js';
import type { Store } from '../store/index.js';
import { StoreError } from '../store/storeError.js';
import { daemonSecrets } from '../security/secretRedactor.js';
import { EventBus, type EventSubscriber, type ReplayKind } from './eventBus.js';
import { ApprovalBroker } from '../permissions/approvalBroker.js';
import { SessionGrants } from '../permissions/grants.js';
import { QuestionBroker } from '../questions/questionBroker.js';
import { TurnWaits } from './asks/turnWaits.js';
import { SessionCheckpoints } from '../checkpoints/sessionCheckpoints.js';
import type { TurnToolsProvider } from '../tools/toolset.js';
import type { CommandCatalogue } from '../commands/commandCatalogue.js';
import { SessionCommands } from '../commands/sessionCommands.js';
import type { AgentProfiles } from '../agents/agentProfiles.js';
import type { NamedAgentProfile } from '../agents/agentProfile.js';
import { TurnDataPolicy } from '../agents/dataPolicy.js';
import { asClientPeer, type ClientPeer } from './clientPeer.js';
import { acceptedModel } from './sessionModel.js';

export interface SessionDeps {
  store: Store;
  turnRunner(): Promise<TurnRunner>;
  log: Logger;
  /** Token budget of the history a turn gets from the store (the budgets' maxHistoryTokens). */
  maxHistoryTokens: number;
  /** Composes each turn's workspace and client tools; absent: the agent's own tools only. */
  toolsets?: TurnToolsProvider;
  /** How long an approval waits for an answer (default 600000 ms). */
  approvalTimeoutMs?: number;
  /** Workspace checkpoints for undo (checkpoints.md); absent: turns are not checkpointed. */
  checkpoints?: { dataDir: string; gitPath?: string };
  /** Slash commands and skills (commands.md); absent: chat/send texts go to the model as typed. */
  commands?: CommandCatalogue;
  /** Agent profiles (agents/); absent: a session naming one cannot run a turn. */
  agents?: AgentProfiles;
  /** Saves an "always allow" rule for a workspace (approvals.md#rules-allow-always); false: not saved. */
  saveRule?(workspaceRoot: string, rule: string): boolean;
  /**
   * How long a loaded session stays in memory once evictable (no client, no
   * turn; Session.evictable); absent: sessions stay loaded until deleted.
   */
  idleEvictMs?: number;
  /** Clock of idle times (default Date.now). */
  now?: () => number;
}

interface RunningTurn {
  turnId: string;
  abort: AbortController;
  /** The client that sent chat/send: it runs the turn's client tools. */
  senderId: string;
  /** The title the store gave the session from this turn's message, if it just got one. */
  newTitle: string | undefined;
  /** The turn's idle event was sent; nothing of it may be sent after. */
  ended: boolean;
  /** Settles once the turn has ended. */
  whenEnded: Promise<void>;
  /** Why the store stopped taking the turn's events (a full disk): the turn ends with it. */
  storageFailure?: string;
  /** The agent profile's data policy: what of the turn is stored (agents/dataPolicy.ts); undefined: all. */
  dataPolicy?: TurnDataPolicy;
  /**
   * The test script and its budgets as the turn was accepted: a setScript that
   * comes before the runner starts is for the next turns, not this one
   * (appendix-scripted-provider.md#appendix-scripted-provider-set-session).
   */
  script: Script | undefined;
  scriptBudgets: Partial<Record<BudgetKind, number>> | undefined;
  markEnded(): void;
}

/**
 * How long deleting a session or shutting down waits for a cancelled turn
 * to end by itself (its runner commits and sends cost/summary); after that
 * the turn is ended for it, so clients still get exactly one idle.
 */
const TURN_STOP_TIMEOUT_MS = 5000;

export interface AttachOutcome {
  role: AttachRole;
  lastSeq: number;
  replay: ReplayKind;
  snapshot?: z.infer<typeof SessionSnapshot>;
  /** Call once the attach response is on its way: replayed events follow it. */
  release(): void;
}

const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0 };

export class Session {
  readonly bus: EventBus;
  script: Script | undefined;
  /** Limits set with the script (setScript `budgets`); they go with it to each turn. */
  scriptBudgets: Partial<Record<BudgetKind, number>> | undefined;
  private readonly roles = new Map<string, AttachRole>();
  /** The session's row as last read from the store; `state` is live and kept here. */
  private info: SessionInfo;
  private running: RunningTurn | undefined;
  /** Nodes of the running turn, folded from tree/update, for attach snapshots. */
  private liveTree = new Map<string, ExecutionTreeNode>();
  /** The running turn's text and nodes in stream order, and its cost: for the store and attach snapshots. */
  private liveTranscript = new TurnTranscript();
  private disposed = false;
  /** Allow-for-session grants; every loop of every later turn reads them. */
  readonly grants = new SessionGrants();
  /** Asks this session's controllers about tool calls (approvals.md#approval-lifecycle). */
  readonly approvals: ApprovalBroker;
  /** Asks this session's controllers the model's questions (questions.md#question-lifecycle). */
  readonly questions: QuestionBroker;
  /** Snapshots around each turn's changes, for checkpoint/restore and checkpoint/diff. */
  private readonly checkpoints: SessionCheckpoints | undefined;
  /** A checkpoint/restore under way: a turn sent meanwhile starts once the files are back. */
  private restoring: Promise<unknown> | undefined;
  /** Turn runners not returned yet, also one whose turn was already ended for it. */
  private runnersInFlight = 0;
  /** Attached connections that can be asked or run client tools, by clientId. */
  private readonly peers = new Map<string, ClientPeer>();
  /** The session's slash commands and skills; undefined when the daemon has none. */
  readonly commands: SessionCommands | undefined;

  /** `stored`: the session as the store returned it (created, or from an earlier daemon run). */
  constructor(
    stored: SessionInfo,
    private readonly deps: SessionDeps,
  ) {
    // No turn of this process runs yet; the store's own 'running' never outlives a process.
    this.info = { ...stored, state: 'idle' };
    this.bus = new EventBus(stored.sessionId, deps.store);
    // Approvals and questions alike keep the turn in requires_action.
    const waits = new TurnWaits({
      stateChanged: (turnId, state) => this.emit(Methods.SessionState, { state, turnId }),
    });
    const timeoutMs = deps.approvalTimeoutMs ?? 600_000;
    this.approvals = new ApprovalBroker({
      controllers: () => this.controllersThatAnswer('approvals'),
      isController: (clientId) => this.roles.get(clientId) === 'controller',
      emit: (descriptor, params) => this.emit(descriptor, params),
      record: (entry) => {
        try {
          this.deps.store.recordApproval(daemonSecrets.redactDeep(entry));
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          this.deps.log.warn(`session ${this.id}: approval not logged: ${reason}`);
        }
      },
      ...(deps.saveRule && {
        saveRule: (rule: string) => deps.saveRule!(stored.workspaceRoot, rule),
      }),
      timeoutMs,
      waits,
    });
    this.checkpoints =
      deps.checkpoints &&
      new SessionCheckpoints({
        sessionId: stored.sessionId,
        workspaceRoot: stored.workspaceRoot,
        ...deps.checkpoints,
        store: deps.store.checkpoints.of(stored.sessionId),
        log: (level, message) => deps.log[level](message),
      });
    this.commands =
      deps.commands &&
      new SessionCommands(
        deps.commands,
        () => this.info.workspaceRoot,
        (commands) => this.emit(Methods.CommandsChanged, { commands }),
      );
    this.questions = new QuestionBroker({
      controllers: () => this.controllersThatAnswer('questions'),
      isController: (clientId) => this.roles.get(clientId) === 'controller',
      emit: (descriptor, params) => this.emit(descriptor, params),
      timeoutMs,
      waits,
    });
  }

  /** Controllers attached now whose client negotiated answering this kind of ask. */
  private controllersThatAnswer(kind: 'approvals' | 'questions'): ClientPeer[] {
    return [...this.peers.values()].filter(
      (peer) =>
        this.roles.get(peer.clientId) === 'controller' &&
        peer.capabilities[kind] !== undefined &&
        !peer.isClosed,
    );
  }

  get id(): string {
    return this.info.sessionId;
  }

  get state(): TurnState {
    return this.info.state;
  }

  describe(): SessionInfo {
    return { ...this.info, chatContext: { ...this.info.chatContext } };
  }

  roleOf(clientId: string): AttachRole | undefined {
    return this.roles.get(clientId);
  }

  attach(
    subscriber: EventSubscriber,
    role: AttachRole,
    sinceSeq: number | undefined,
  ): AttachOutcome {
    this.roles.set(subscriber.clientId, role);
    const peer = asClientPeer(subscriber);
    if (peer) this.peers.set(peer.clientId, peer);
    // A controller that re-attaches as observer keeps no say in pending approvals or questions.
    if (role !== 'controller') {
      this.approvals.controllerLeft({ clientId: subscriber.clientId, isClosed: false });
      this.questions.controllerLeft({ clientId: subscriber.clientId, isClosed: false });
    }
    const subscription = this.bus.subscribe(subscriber, sinceSeq);
    // A plain attach mid-turn gets the running turn as a snapshot: without it the
    // client could not render the turn (sessions.md#sessions-attach-mid-turn).
    const midTurn = sinceSeq === undefined && this.running !== undefined;
    const outcome: AttachOutcome = {
      role,
      lastSeq: subscription.lastSeq,
      replay: midTurn ? 'snapshot' : subscription.replay,
      release: () => {
        subscription.release();
        // After the attach response and the replay: pending approvals and questions again
        // (approvals.md#approval-resend, questions.md#question-resend).
        if (!peer || role !== 'controller' || this.roles.get(peer.clientId) !== 'controller')
          return;
        if (peer.capabilities.approvals !== undefined) this.approvals.controllerAttached(peer);
        if (peer.capabilities.questions !== undefined) this.questions.controllerAttached(peer);
      },
    };
    if (outcome.replay === 'snapshot') {
      const pendingQuestions = this.questions.pending();
      outcome.snapshot = {
        ...(this.running && {
          turnId: this.running.turnId,
          tree: { version: 1, nodes: [...this.liveTree.values()] },
          texts: this.liveTranscript.texts,
          parts: this.liveTranscript.parts,
        }),
        pendingApprovals: this.approvals.pending(),
        ...(pendingQuestions.length > 0 && { pendingQuestions }),
      };
    }
    return outcome;
  }

  /** false when the client was not attached. */
  detach(clientId: string): boolean {
    this.bus.unsubscribe(clientId);
    const peer = this.peers.get(clientId);
    this.peers.delete(clientId);
    const wasAttached = this.roles.delete(clientId);
    const left = { clientId, isClosed: peer?.isClosed ?? false };
    this.approvals.controllerLeft(left);
    this.questions.controllerLeft(left);
    return wasAttached;
  }

  setPermissionMode(clientId: string, mode: PermissionMode): PermissionMode {
    this.requireController(clientId, Methods.SessionSetPermissionMode.method);
    if (this.info.permissionMode !== mode) {
      this.refresh(this.deps.store.updateSession(this.id, { permissionMode: mode }));
    }
    // Broadcast even when unchanged: every client learns the confirmed mode.
    this.emit(Methods.SessionUpdate, { permissionMode: mode });
    // Pending approvals that the new mode decides are released (approvals.md#mode-switch).
    this.approvals.modeChanged(mode);
    return mode;
  }

  /**
   * sessions.md#session-set-model: from the next turn on (a running turn read
   * its model when it started); every attached client is told.
   */
  setModel(clientId: string, model: string): string {
    this.requireController(clientId, Methods.SessionSetModel.method);
    const accepted = acceptedModel(model);
    if (this.info.model !== accepted) {
      this.refresh(this.deps.store.updateSession(this.id, { model: accepted }));
    }
    this.emit(Methods.SessionUpdate, { model: accepted });
    return accepted;
  }

  /**
   * Reserves the turn at once (so a second chat/send gets TurnInProgress) and
   * returns `begin`, to be called after the `{turnId}` response is sent.
   */
  startTurn(
    clientId: string,
    text: string,
    budgets?: BudgetLimitsByKind,
  ): { turnId: string; begin: () => void } {
    this.requireController(clientId, Methods.ChatSend.method);
    if (this.running) throw rpcErrors.turnInProgress(this.running.turnId);
    const turnId = `turn_${randomUUID()}`;
    const { store } = this.deps;
    // History first: the store leaves the running turn's own message out of it anyway.
    // The reserve for a full disk's last writes is set aside again, or, with no room
    // for it, the turn is refused with the disk-full reason.
    this.storeOrRefuse(() => store.ensureDiskReserve());
    // A turn of ours whose end could not be written (a full disk) ends now, as interrupted.
    this.storeOrRefuse(() => store.endOwnOrphanedTurn(this.id));
    const history = store.historyForNextTurn(this.id, this.deps.maxHistoryTokens);
    // Committed before `{turnId}` is answered and before any LLM call: from here on a
    // crash cannot lose what the user typed (the turn comes back as interrupted).
    const titleBefore = this.info.title;
    this.storeOrRefuse(() => store.appendUserMessage(this.id, turnId, text));
    this.refresh(store.getSession(this.id));
    let markEnded = (): void => undefined;
    const running: RunningTurn = {
      turnId,
      abort: new AbortController(),
      senderId: clientId,
      newTitle: this.info.title !== titleBefore ? this.info.title : undefined,
      ended: false,
      whenEnded: new Promise<void>((resolve) => (markEnded = resolve)),
      script: this.script,
      scriptBudgets: this.scriptBudgets,
      markEnded: () => markEnded(),
    };
    this.running = running;
    this.info.state = 'running';
    this.liveTree = new Map();
    this.liveTranscript = new TurnTranscript();
    return { turnId, begin: () => void this.runTurn(running, text, history, budgets) };
  }

  /** false: no matching turn was running. */
  cancelTurn(clientId: string, turnId: string | undefined): boolean {
    this.requireController(clientId, Methods.ChatCancel.method);
    const running = this.running;
    if (!running || (turnId !== undefined && turnId !== running.turnId)) return false;
    running.abort.abort();
    return true;
  }

  /**
   * At startup, for a turn a previous daemon process left running (the store
   * has marked it interrupted): its `idle` event, so clients replaying the
   * event log see the turn end.
   */
  reportInterrupted(turnId: string): void {
    this.emit(Methods.SessionState, {
      state: 'idle',
      turnId,
      stopReason: 'interrupted',
      usage: ZERO_USAGE,
    });
  }

  /**
   * Cancels the running turn, if any, and waits until it has ended: its
   * final events (cost/summary, idle with stopReason cancelled) have reached
   * every attached client and it is committed. A turn that does not end
   * within TURN_STOP_TIMEOUT_MS is ended for it.
   */
  async stopTurn(): Promise<void> {
    const running = this.running;
    if (!running) return;
    running.abort.abort();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), TURN_STOP_TIMEOUT_MS);
    });
    const outcome = await Promise.race([running.whenEnded, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout' && !running.ended) {
      this.deps.log.warn(`session ${this.id}: turn ${running.turnId} did not stop; ended for it`);
      this.endTurn(running, 'cancelled', ZERO_USAGE, undefined);
    }
  }

  /**
   * Deleting a session: its turn ends for every attached client
   * (sessions.md#sessions-delete-cancels-turn), they learn that the session
   * is gone (session/deleted), and everyone is detached.
   */
  async close(): Promise<void> {
    await this.stopTurn();
    this.emit(Methods.SessionDeleted, {});
    this.disposed = true;
    this.deps.toolsets?.release(this.id);
    this.checkpoints?.dispose();
    for (const clientId of [...this.roles.keys()]) this.detach(clientId);
  }

  /**
   * Whether only the store holds what matters of this session now: no client
   * attached (so no request of one is under way), no turn or restore running,
   * and nothing kept only in memory (allow-for-session grants, a test script).
   * Such a session can leave memory; it is loaded again on its next use.
   */
  get evictable(): boolean {
    return (
      this.roles.size === 0 &&
      this.running === undefined &&
      this.runnersInFlight === 0 &&
      this.restoring === undefined &&
      this.grants.isEmpty &&
      this.script === undefined
    );
  }

  /** Frees what the session holds besides its rows (tools, watchers, checkpoints); only when evictable. */
  evict(): void {
    this.disposed = true;
    this.deps.toolsets?.release(this.id);
    this.checkpoints?.dispose();
  }

  /** checkpoint/restore (checkpoints.md#checkpoint-restore): controllers only, never during a turn. */
  restoreCheckpoint(clientId: string, turnId: string, force: boolean) {
    this.requireController(clientId, Methods.CheckpointRestore.method);
    if (this.running) throw rpcErrors.turnInProgress(this.running.turnId);
    const restore = this.availableCheckpoints().restore(turnId, force);
    const settled = restore.catch(() => undefined);
    this.restoring = settled;
    void settled.then(() => {
      if (this.restoring === settled) this.restoring = undefined;
    });
    return restore;
  }

  /** checkpoint/diff (checkpoints.md#checkpoint-diff). */
  checkpointDiff(turnId: string, path: string | undefined) {
    return this.availableCheckpoints().diff(turnId, path);
  }

  private availableCheckpoints(): SessionCheckpoints {
    if (this.checkpoints) return this.checkpoints;
    throw rpcErrors.checkpointUnavailable('this daemon takes no checkpoints');
  }

  private requireController(clientId: string, what: string): void {
    const role = this.roles.get(clientId);
    if (role === undefined) throw rpcErrors.notAttached(this.id);
    if (role !== 'controller') throw rpcErrors.notController(what);
  }

  private emit<D extends NotificationDescriptor>(
    descriptor: D,
    params: SessionEventParams<D>,
  ): void {
    if (this.disposed) return;
    const method: string = descriptor.method;
    if (method === Methods.TreeUpdate.method) {
      const { nodes } = params as unknown as SessionEventParams<typeof Methods.TreeUpdate>;
      for (const node of nodes)
        this.liveTree.set(node.id, { ...this.liveTree.get(node.id), ...node });
      this.liveTranscript.nodes(nodes);
    } else if (method === Methods.ChatChunk.method) {
      const { nodeId, text } = params as unknown as SessionEventParams<typeof Methods.ChatChunk>;
      this.liveTranscript.text(nodeId, text);
    } else if (method === Methods.CostSummary.method) {
      this.liveTranscript.cost(params as unknown as SessionEventParams<typeof Methods.CostSummary>);
    } else if (method === Methods.SessionState.method) {
      const { state } = params as unknown as SessionEventParams<typeof Methods.SessionState>;
      this.info.state = state;
    }
    const policy = this.running?.dataPolicy;
    try {
      this.bus.emit(descriptor, params, policy && ((m, p) => policy.event(m, p)));
    } catch (error) {
      // The store refused the event (disk full, I/O error): no client gets it, and
      // the turn stops, with that reason, rather than taking the daemon down.
      const reason = error instanceof Error ? error.message : String(error);
      this.deps.log.error(`session ${this.id}: ${method} not stored, not sent: ${reason}`);
      this.stopForStorage(reason);
      return;
    }
    // Stored, but into the disk reserve: stop while it still holds the turn's end.
    const diskFull = this.deps.store.diskFull;
    if (diskFull !== undefined) this.stopForStorage(diskFull);
  }

  private stopForStorage(reason: string): void {
    const running = this.running;
    if (!running || running.ended || running.storageFailure !== undefined) return;
    running.storageFailure = reason;
    running.abort.abort();
  }

  /** A write a request depends on; a full disk becomes a clear error for the client. */
  private storeOrRefuse<T>(write: () => T): T {
    try {
      return write();
    } catch (error) {
      if (error instanceof StoreError && error.code === 'disk_full')
        throw rpcErrors.notStored(error.message);
      throw error;
    }
  }

  private async runTurn(
    running: RunningTurn,
    text: string,
    history: HistoryMessage[],
    lowerBudgets: BudgetLimitsByKind | undefined,
  ): Promise<void> {
    const { turnId, abort } = running;
    let open = true;
    /** Per-model usage and cost, from the turn's cost/summary, for the store. */
    let byModel: readonly ModelCost[] = [];
    const sink: SessionEventSink = {
      emit: (descriptor, params) => {
        // A runner that keeps emitting after its turn ended must not corrupt the next one.
        if (!open || running.ended) {
          this.deps.log.warn(
            `session ${this.id}: dropped ${descriptor.method} after turn ${turnId} ended`,
          );
          return;
        }
        if (descriptor.method === Methods.CostSummary.method) {
          byModel = (params as unknown as SessionEventParams<typeof Methods.CostSummary>).byModel;
        }
        this.emit(descriptor, params);
      },
    };
    // Read now, not at chat/send: a changed set is announced apart from the reply (commands.md#commands-changed).
    const commandInput = this.commands?.forTurn(text);
    this.emit(Methods.SessionState, { state: 'running', turnId });
    // The first message titled the session: every attached client shows it now.
    if (running.newTitle !== undefined)
      this.emit(Methods.SessionUpdate, { title: running.newTitle });

    let result: TurnResult | undefined;
    let failure: string | undefined;
    this.runnersInFlight++;
    try {
      if (abort.signal.aborted) throw new Error('cancelled before start');
      await this.restoring;
      const runner = await this.deps.turnRunner();
      const agent = this.agentOfTurn();
      // From here on the turn's events are stored in the policy's form (clients get them whole).
      running.dataPolicy = TurnDataPolicy.of(agent.agent);
      result = await runner.run({
        sessionId: this.id,
        turnId,
        // The store keeps what the user typed; the model gets the command's expansion.
        text: commandInput?.modelText ?? text,
        ...(commandInput && { skills: commandInput.skills }),
        workspaceRoot: this.info.workspaceRoot,
        model: this.info.model,
        ...agent,
        script: running.script,
        ...(running.scriptBudgets && { budgets: running.scriptBudgets }),
        ...(lowerBudgets && { lowerBudgets }),
        permissionMode: () => this.info.permissionMode,
        history,
        ...(this.deps.toolsets && {
          tools: await this.deps.toolsets.forTurn({
            sessionId: this.id,
            workspaceRoot: this.info.workspaceRoot,
            chatContext: this.info.chatContext,
            sender: this.peers.get(running.senderId),
            signal: abort.signal,
          }),
        }),
        approvals: { grants: this.grants, broker: this.approvals },
        questions: this.questions,
        ...(this.checkpoints && { checkpoint: this.checkpoints.forTurn(turnId) }),
        events: sink,
        signal: abort.signal,
      });
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
      this.deps.log.error(`session ${this.id}: turn ${turnId} failed: ${failure}`);
    } finally {
      this.runnersInFlight--;
    }
    open = false;

    // Already ended for it (it did not stop in time when asked to).
    if (running.ended) return;
    let stopReason: StopReason =
      result?.stopReason ?? (abort.signal.aborted ? 'cancelled' : 'error');
    const usage = result?.usage ?? ZERO_USAGE;
    let errorMessage = result?.error ?? (stopReason === 'error' ? failure : undefined);
    // The turn's last events went into the disk reserve: it ends as stopped for storage,
    // so that its end is written without the answer's parts while the reserve holds it.
    running.storageFailure ??= this.deps.store.diskFull;
    if (running.storageFailure !== undefined) {
      [stopReason, errorMessage] = ['error', running.storageFailure];
    }
    // A deleted session's rows are gone; there is nothing left to commit to.
    const notStored = this.disposed
      ? undefined
      : this.commit(turnId, stopReason, result, usage, byModel, errorMessage, {
          // Writing into the disk reserve: the parts repeat the answer's text, and the
          // reserve must keep room for the turn's idle event after the commit.
          parts: running.storageFailure === undefined,
          ...(running.dataPolicy && { policy: running.dataPolicy }),
        });
    // The client must not believe in an answer that is not stored.
    if (notStored !== undefined) [stopReason, errorMessage] = ['error', notStored];
    this.endTurn(running, stopReason, usage, errorMessage);
  }

  /**
   * The session's profile as tools/list shows its turns' tools; undefined when
   * it runs with none, or with one that can no longer be used (its next turn
   * then fails, saying why).
   */
  agentProfile(): NamedAgentProfile | undefined {
    try {
      return this.agentOfTurn().agent;
    } catch {
      return undefined;
    }
  }

  /**
   * The session's profile, read again for each turn (a workspace file may
   * have changed). One that can no longer be used fails the turn: running
   * without it would drop what it narrows (tools, approvals, budgets).
   */
  private agentOfTurn(): { agent?: NamedAgentProfile } {
    const name = this.info.agent;
    if (name === undefined) return {};
    if (!this.deps.agents) throw new Error(`this daemon has no agent profiles (agent "${name}")`);
    return { agent: this.deps.agents.resolve(this.info.workspaceRoot, name) };
  }

  /** The turn's one idle event (turns.md#turns-exactly-once). */
  private endTurn(
    running: RunningTurn,
    stopReason: StopReason,
    usage: Usage,
    errorMessage: string | undefined,
  ): void {
    running.ended = true;
    if (this.running === running) this.running = undefined;
    this.emit(Methods.SessionState, {
      state: 'idle',
      turnId: running.turnId,
      stopReason,
      usage,
      ...(errorMessage !== undefined && { error: { message: errorMessage } }),
    });
    // The turn's end is committed now, into the last reserve if the disk is full: a
    // client waits for this idle, and it leaves only once stored.
    try {
      this.deps.store.commitPending({ lastWords: true });
    } catch (error) {
      this.deps.log.error(
        `session ${this.id}: the end of turn ${running.turnId} not stored: ${String(error)}`,
      );
    }
    this.info.state = 'idle';
    running.markEnded();
  }

  /**
   * Everything the turn produced, in one transaction, before its `idle` event:
   * a client that loads the session on `idle` finds the answer. Partial text
   * and tree are kept whatever the stop reason. When that cannot be written
   * (a full disk), the turn's end is stored without its answer; returns what
   * the client must be told then, or undefined when all was stored.
   */
  private commit(
    turnId: string,
    stopReason: StopReason,
    result: TurnResult | undefined,
    usage: Usage,
    byModel: readonly ModelCost[],
    error: string | undefined,
    keep: { parts: boolean; policy?: TurnDataPolicy },
  ): string | undefined {
    const { policy } = keep;
    const liveTree = result?.tree ?? { version: 1 as const, nodes: [...this.liveTree.values()] };
    // What the agent profile's data policy keeps (agents/dataPolicy.ts), and what it says it left out.
    const tree = policy ? policy.tree(liveTree) : liveTree;
    const parts = policy ? policy.parts(this.liveTranscript.parts) : this.liveTranscript.parts;
    const cost = this.liveTranscript.costSummary;
    const attempt = (answer: string, why: string | undefined): string | undefined => {
      const assistantText = policy ? policy.text(answer) : answer;
      const omitted = policy?.omitted() ?? [];
      try {
        this.deps.store.commitTurn({
          turnId,
          stopReason: why === undefined ? stopReason : 'error',
          // Stored rows, like events, never hold a secret the daemon knows.
          assistantText: daemonSecrets.redact(assistantText),
          tree: daemonSecrets.redactDeep(tree),
          // The fallback without the answer's text drops its parts too: they hold the same text.
          ...(why === undefined && keep.parts && { parts: daemonSecrets.redactDeep(parts) }),
          ...(omitted.length > 0 && { omitted }),
          ...(cost && { cost }),
          usage,
          byModel,
          ...((why ?? error) !== undefined && { error: why ?? error }),
        });
        this.refresh(this.deps.store.getSession(this.id));
        return undefined;
      } catch (failure) {
        const reason = failure instanceof Error ? failure.message : String(failure);
        this.deps.log.error(`session ${this.id}: turn ${turnId} could not be stored: ${reason}`);
        return `The answer could not be stored: ${reason}`;
      }
    };
    const lost = attempt(result?.text ?? '', undefined);
    // Without the answer's text the end of the turn may still fit; if not, the next
    // turn of this session ends it (Store.endOwnOrphanedTurn).
    if (lost !== undefined) attempt('', lost);
    return lost;
  }

  /** Takes the stored row, keeping the live state. */
  private refresh(stored: SessionInfo | undefined): void {
    if (stored) this.info = { ...stored, state: this.info.state };
  }
}
