/**
 * ChatModel: everything the chat view shows, rebuilt from host messages.
 * Pure (no DOM, no timers), so it is unit-tested in Node and drawn by the
 * renderer in the browser.
 *
 * Each turn keeps its execution tree in a `TreeReducer` and the order of its
 * text and cards in a `TurnTranscript`, both from the shared client core: live
 * `tree` / `text` messages and a stored turn (snapshot and `parts`) land in
 * the same structures, so one renderer draws both exactly alike. Every change is recorded in a `Dirty` set; the
 * renderer takes it once per animation frame and touches only what changed.
 */
import type {
  AgentFileError,
  AgentInfo,
  ApprovalDecision,
  ApprovalRequestParams,
  BudgetExceededParams,
  CommandInfo,
  ContextUse,
  InstructionsFile,
  OmittedData,
  PermissionMode,
  PlanEntry,
  QuestionRequestParams,
  StopReason,
  TurnChanges,
  TurnState,
  Usage,
} from '@arbor/protocol';
import { ToolCatalogue, TreeReducer, TurnTranscript } from '@arbor/protocol/client/view';
import type {
  CheckpointAccess,
  ConnectionStatus,
  HostMessage,
  QuestionEnd,
  SessionSummary,
  TranscriptTurn,
} from '../../src/shared/messages.js';

export type TurnStatus =
  | 'running'
  | 'complete'
  | 'cancelled'
  | 'budget_exceeded'
  | 'max_iterations'
  | 'error'
  | 'interrupted';

export interface TurnModel {
  readonly turnId: string;
  userText: string;
  readonly tree: TreeReducer;
  /** Text runs and cards in stream order: what each node's body shows, in order. */
  readonly transcript: TurnTranscript;
  status: TurnStatus;
  stopReason?: StopReason;
  error?: string;
  cost?: number | null;
  usage?: Usage;
  context?: ContextUse;
  budget: BudgetExceededParams[];
  /** This window put the turn's changes back (checkpoint/restore from it or an earlier turn). */
  restored: boolean;
  /** The host said the daemon went away during this turn: what the user saw is kept across a reload of the session. */
  interruptedHere?: boolean;
  /** A stored turn: what the agent profile's data policy did not keep of it. */
  omitted?: readonly OmittedData[];
}

export interface ApprovalModel {
  readonly key: string;
  readonly request: ApprovalRequestParams;
  /** Answered here; the card stays (disabled) until the daemon resolves it. */
  answer?: ApprovalDecision;
}

/** The model's question (ask_user): open, answered here, or ended. */
export interface QuestionModel {
  readonly key: string;
  readonly request: QuestionRequestParams;
  /** Answered here; the card waits (disabled) until the daemon resolves it. */
  answer?: string;
  /** How it ended; the card stays, closed, to say so until the session is reloaded. */
  end?: QuestionEnd;
}

/** What changed since the renderer last drew. */
export interface Dirty {
  /** Redraw everything (session switch, reload). */
  all: boolean;
  /** Turns added, in order. */
  addedTurns: string[];
  /** Turn status / cost / budget changed. */
  turnMeta: Set<string>;
  /** Nodes upserted, per turn. */
  nodes: Map<string, Set<string>>;
  /** Nodes whose streamed text grew, per turn. */
  texts: Map<string, Set<string>>;
  approvals: boolean;
  questions: boolean;
  plan: boolean;
  /** Composer, header, banner: mode, models, state, connection, sessions, notices. */
  chrome: boolean;
}

function emptyDirty(): Dirty {
  return {
    all: false,
    addedTurns: [],
    turnMeta: new Set(),
    nodes: new Map(),
    texts: new Map(),
    approvals: false,
    questions: false,
    plan: false,
    chrome: false,
  };
}

/** max_tokens (1.1): an answer cut off at the output limit is stored `complete`; shown alike live. */
const STOP_TO_STATUS: Record<StopReason, TurnStatus> = {
  end_turn: 'complete',
  max_tokens: 'complete',
  cancelled: 'cancelled',
  budget_exceeded: 'budget_exceeded',
  max_iterations: 'max_iterations',
  error: 'error',
  interrupted: 'interrupted',
};

export function approvalKeyOf(ref: { turnId: string; toolCallId: string }): string {
  return `${ref.turnId}\u0000${ref.toolCallId}`;
}

export class ChatModel {
  connection: { status: ConnectionStatus; message?: string } = { status: 'starting' };
  sessions: SessionSummary[] = [];
  sessionId: string | undefined;
  title = '';
  /** Why there is no session, when there is none. */
  noSession: string | undefined;
  mode: PermissionMode = 'default';
  models: string[] = [];
  model: string | undefined;
  /** Picking a model switches the open chat (true) or starts a new one. */
  modelInPlace = false;
  /** Profiles a new chat may run with (agents/list); picking one starts a new chat. */
  agents: AgentInfo[] = [];
  /** The open chat's profile. */
  agent: string | undefined;
  /** Profile files of the workspace that cannot be used, shown in the picker's tooltip. */
  agentErrors: AgentFileError[] = [];
  state: TurnState = 'idle';
  runningTurnId: string | undefined;
  plan: PlanEntry[] = [];
  /** The session's tools: each card's category and what the call is about. */
  tools = new ToolCatalogue();
  /** The session's slash commands and skills, for the composer's `/` completion. */
  commands: readonly CommandInfo[] = [];
  notice: { level: 'info' | 'error'; message: string } | undefined;
  readonly turns = new Map<string, TurnModel>();
  readonly turnOrder: string[] = [];
  readonly approvals = new Map<string, ApprovalModel>();
  readonly questions = new Map<string, QuestionModel>();
  /** Bumped by every `focusComposer` message. */
  focusRequests = 0;
  /** Every `composerInsert` text, in order; the view appends the ones it has not yet. */
  readonly composerInserts: string[] = [];
  /** What turns' checkpoints allow here: diffs, and restore (a controller of a daemon with checkpoints). */
  checkpoints: CheckpointAccess = { diff: false, restore: false };

  #dirty: Dirty = emptyDirty();

  /** Applies one validated host message. */
  apply(message: HostMessage): void {
    switch (message.type) {
      case 'connection':
        this.connection = {
          status: message.status,
          ...(message.message !== undefined && { message: message.message }),
        };
        this.#dirty.chrome = true;
        return;
      case 'sessions':
        this.sessions = message.sessions;
        if (message.currentId !== undefined) this.sessionId = message.currentId;
        this.#dirty.chrome = true;
        return;
      case 'session':
        this.#loadSession(message);
        return;
      case 'noSession':
        this.#clear();
        this.sessionId = undefined;
        this.noSession = message.reason;
        return;
      case 'turnStarted': {
        const turn = this.#turn(message.turnId);
        if (message.userText !== undefined && turn.userText !== message.userText) {
          turn.userText = message.userText;
          this.#dirty.turnMeta.add(turn.turnId);
        }
        return;
      }
      case 'tree': {
        const turn = this.#turn(message.turnId);
        const changed = turn.tree.upsert(message.nodes);
        turn.transcript.nodes(message.nodes);
        const set = this.#nodeSet(this.#dirty.nodes, turn.turnId);
        for (const id of changed) set.add(id);
        return;
      }
      case 'text': {
        const turn = this.#turn(message.turnId);
        if (turn.tree.appendText(message)) {
          turn.transcript.text(message.nodeId, message.text);
          this.#nodeSet(this.#dirty.texts, turn.turnId).add(message.nodeId);
        }
        return;
      }
      case 'state':
        this.#applyState(message.state, message.turnId, message.stopReason, message.error);
        return;
      case 'mode':
        this.mode = message.mode;
        this.#dirty.chrome = true;
        return;
      case 'title':
        this.title = message.title;
        this.#dirty.chrome = true;
        return;
      case 'models':
        this.models = message.models;
        this.model = message.current;
        this.modelInPlace = message.inPlace;
        this.#dirty.chrome = true;
        return;
      case 'agents':
        this.agents = message.agents;
        this.agent = message.current;
        this.agentErrors = message.errors;
        this.#dirty.chrome = true;
        return;
      case 'approvalAdded': {
        const key = approvalKeyOf(message.request);
        if (!this.approvals.has(key)) {
          this.approvals.set(key, { key, request: message.request });
          this.#turn(message.request.turnId);
          this.#dirty.approvals = true;
        }
        return;
      }
      case 'approvalRemoved':
        if (this.approvals.delete(approvalKeyOf(message))) this.#dirty.approvals = true;
        return;
      case 'questionAdded': {
        const key = approvalKeyOf(message.request);
        // A re-sent question (re-attach) keeps its card and the answer given here.
        const existing = this.questions.get(key);
        if (existing && existing.end === undefined) return;
        this.questions.set(key, { key, request: message.request });
        this.#turn(message.request.turnId);
        this.#dirty.questions = true;
        this.#dirty.chrome = true;
        return;
      }
      case 'questionRemoved': {
        const question = this.questions.get(approvalKeyOf(message));
        // The daemon's outcome may follow a cancelled request; it replaces "closed".
        if (!question || question.end?.kind === 'resolved') return;
        if (question.end && message.end.kind !== 'resolved') return;
        question.end = message.end;
        this.#dirty.questions = true;
        this.#dirty.chrome = true;
        return;
      }
      case 'budget': {
        const turn = this.#turn(message.notice.turnId);
        turn.budget.push(message.notice);
        this.#dirty.turnMeta.add(turn.turnId);
        return;
      }
      case 'plan':
        this.plan = message.entries;
        this.#dirty.plan = true;
        return;
      case 'cost': {
        const turn = this.#turn(message.turnId);
        turn.cost = message.cost;
        turn.usage = message.usage;
        if (message.context) turn.context = message.context;
        this.#dirty.turnMeta.add(turn.turnId);
        return;
      }
      case 'commands':
        this.commands = message.commands;
        this.#dirty.chrome = true;
        return;
      case 'tools':
        this.tools = new ToolCatalogue(message.tools, message.servers);
        // Every card's header may read differently now; this comes once per session.
        this.#dirty.all = true;
        return;
      case 'restored':
        for (const turnId of message.turnIds) {
          const turn = this.turns.get(turnId);
          if (turn && !turn.restored) {
            turn.restored = true;
            this.#dirty.turnMeta.add(turnId);
          }
        }
        return;
      case 'notice':
        this.notice = { level: message.level, message: message.message };
        this.#dirty.chrome = true;
        return;
      case 'focusComposer':
        this.focusRequests++;
        this.#dirty.chrome = true;
        return;
      case 'composerInsert':
        this.composerInserts.push(message.text);
        this.focusRequests++;
        this.#dirty.chrome = true;
        return;
      case 'turnInterrupted':
        this.#interrupt(message.turnId, message.reason);
        return;
    }
  }

  /** Records the user's answer so the card shows it until the daemon resolves it. */
  answer(turnId: string, toolCallId: string, decision: ApprovalDecision): boolean {
    const approval = this.approvals.get(approvalKeyOf({ turnId, toolCallId }));
    if (!approval || approval.answer !== undefined) return false;
    approval.answer = decision;
    this.#dirty.approvals = true;
    return true;
  }

  /** Records the user's answer to a question; false when it is not open or already answered. */
  answerQuestion(turnId: string, toolCallId: string, answer: string): boolean {
    const question = this.questions.get(approvalKeyOf({ turnId, toolCallId }));
    if (!question || question.end || question.answer !== undefined) return false;
    question.answer = answer;
    this.#dirty.questions = true;
    this.#dirty.chrome = true;
    return true;
  }

  /** What changed since the last call; resets the record. */
  takeDirty(): Dirty {
    const dirty = this.#dirty;
    this.#dirty = emptyDirty();
    return dirty;
  }

  get hasChanges(): boolean {
    const d = this.#dirty;
    return (
      d.all ||
      d.addedTurns.length > 0 ||
      d.turnMeta.size > 0 ||
      d.nodes.size > 0 ||
      d.texts.size > 0 ||
      d.approvals ||
      d.questions ||
      d.plan ||
      d.chrome
    );
  }

  get running(): boolean {
    return this.state !== 'idle';
  }

  /** Approvals still waiting for an answer, oldest first. */
  awaitingApprovals(): ApprovalModel[] {
    return [...this.approvals.values()].filter((a) => a.answer === undefined);
  }

  /** Questions still waiting for the user's answer, oldest first. */
  awaitingQuestions(): QuestionModel[] {
    return [...this.questions.values()].filter(
      (q) => q.end === undefined && q.answer === undefined,
    );
  }

  /** The turn's answer: the text streamed into its root node(s). */
  answerOf(turn: TurnModel): string {
    const roots = turn.tree.roots();
    if (roots.length === 0) return turn.tree.textOf(turn.turnId);
    return roots.map((r) => turn.tree.textOf(r.id)).join('');
  }

  /** The files the turn changed (its turn node's `changes`), once it has ended. */
  changesOf(turn: TurnModel): TurnChanges | undefined {
    if (turn.status === 'running') return undefined;
    for (const root of turn.tree.roots()) if (root.changes) return root.changes;
    return undefined;
  }

  /** The workspace instructions files the model had in the turn (its turn node's `instructions`). */
  instructionsOf(turn: TurnModel): readonly InstructionsFile[] {
    for (const root of turn.tree.roots()) if (root.instructions) return root.instructions;
    return [];
  }

  /** Session cost so far (null when a turn's price is unknown). */
  /** How full the context window is: as the latest turn that said so left it. */
  contextUse(): ContextUse | undefined {
    for (let i = this.turnOrder.length - 1; i >= 0; i--) {
      const context = this.turns.get(this.turnOrder[i]!)?.context;
      if (context) return context;
    }
    return undefined;
  }

  sessionCost(): number | null {
    let total = 0;
    for (const turn of this.turns.values()) {
      if (turn.cost === null) return null;
      total += turn.cost ?? 0;
    }
    return total;
  }

  #applyState(
    state: TurnState,
    turnId: string | undefined,
    stopReason?: StopReason,
    error?: string,
  ): void {
    this.state = state;
    this.#dirty.chrome = true;
    if (turnId !== undefined && state !== 'idle') {
      this.runningTurnId = turnId;
      const turn = this.#turn(turnId);
      if (turn.status !== 'running') {
        turn.status = 'running';
        this.#dirty.turnMeta.add(turnId);
      }
    }
    if (state === 'idle') {
      const id = turnId ?? this.runningTurnId;
      this.runningTurnId = undefined;
      const turn = id === undefined ? undefined : this.turns.get(id);
      if (turn && stopReason !== undefined) {
        turn.status = STOP_TO_STATUS[stopReason];
        turn.stopReason = stopReason;
        if (error !== undefined) turn.error = error;
        this.#dirty.turnMeta.add(turn.turnId);
      }
    }
  }

  /** The turn stops where it is: its text and tree stay; its open approvals cannot be answered any more. */
  #interrupt(turnId: string | undefined, reason: string): void {
    const id =
      turnId ??
      this.runningTurnId ??
      [...this.turnOrder].reverse().find((t) => this.turns.get(t)?.status === 'running');
    const turn = id === undefined ? undefined : this.turns.get(id);
    if (!turn) return;
    turn.status = 'interrupted';
    turn.stopReason = 'interrupted';
    turn.error = reason;
    turn.interruptedHere = true;
    this.#dirty.turnMeta.add(turn.turnId);
    if (this.runningTurnId === undefined || this.runningTurnId === turn.turnId) {
      this.runningTurnId = undefined;
      this.state = 'idle';
      this.#dirty.chrome = true;
    }
    for (const [key, approval] of this.approvals) {
      if (approval.request.turnId === turn.turnId) {
        this.approvals.delete(key);
        this.#dirty.approvals = true;
      }
    }
  }

  /** The latest turn, when it was interrupted and nothing runs: what Retry sends again. */
  retryable(): TurnModel | undefined {
    if (this.running) return undefined;
    const last = this.turns.get(this.turnOrder.at(-1) ?? '');
    return last?.status === 'interrupted' && last.userText !== '' ? last : undefined;
  }

  #loadSession(message: Extract<HostMessage, { type: 'session' }>): void {
    // A reload of the same session after a crash may store less than was shown: keep what was shown.
    const kept =
      message.sessionId === this.sessionId
        ? [...this.turns.values()].filter((t) => t.interruptedHere)
        : [];
    this.#clear();
    this.noSession = undefined;
    this.sessionId = message.sessionId;
    this.title = message.title;
    this.mode = message.permissionMode;
    if (message.model !== undefined) this.model = message.model;
    this.state = message.state;
    this.plan = message.plan;
    // Recorded streams from before checkpoints lack both fields (the schema fills them in).
    this.checkpoints = message.checkpoints ?? { diff: false, restore: false };
    for (const stored of message.turns) this.#addStoredTurn(stored);
    for (const turn of kept) {
      if (!this.turns.has(turn.turnId)) this.turnOrder.push(turn.turnId);
      this.turns.set(turn.turnId, turn);
    }
    for (const turnId of message.restoredTurns ?? []) {
      const turn = this.turns.get(turnId);
      if (turn) turn.restored = true;
    }
    for (const request of message.approvals) {
      const key = approvalKeyOf(request);
      this.approvals.set(key, { key, request });
    }
    for (const { request, answer } of message.questions) {
      const key = approvalKeyOf(request);
      this.questions.set(key, { key, request, ...(answer !== undefined && { answer }) });
    }
    for (const notice of message.budget) this.turns.get(notice.turnId)?.budget.push(notice);
    const running = message.turns.find((t) => t.status === undefined);
    if (running && message.state !== 'idle') this.runningTurnId = running.turnId;
  }

  #addStoredTurn(stored: TranscriptTurn): void {
    const tree = stored.tree ? TreeReducer.fromSnapshot(stored.tree) : new TreeReducer();
    tree.resetText(stored.texts, 0);
    const turn: TurnModel = {
      turnId: stored.turnId,
      userText: stored.userText,
      tree,
      transcript: stored.parts
        ? TurnTranscript.fromParts(stored.parts, stored.tree)
        : TurnTranscript.fromTree(stored.tree, stored.texts),
      status: stored.status ?? 'running',
      budget: [],
      restored: false,
    };
    if (stored.usage) turn.usage = stored.usage;
    if (stored.cost !== undefined) turn.cost = stored.cost;
    if (stored.context) turn.context = stored.context;
    if (stored.omitted) turn.omitted = stored.omitted;
    this.turns.set(turn.turnId, turn);
    this.turnOrder.push(turn.turnId);
  }

  #clear(): void {
    this.turns.clear();
    this.turnOrder.length = 0;
    this.approvals.clear();
    this.questions.clear();
    this.plan = [];
    this.tools = new ToolCatalogue();
    this.commands = [];
    this.runningTurnId = undefined;
    this.state = 'idle';
    this.notice = undefined;
    this.#dirty = emptyDirty();
    this.#dirty.all = true;
  }

  #turn(turnId: string): TurnModel {
    let turn = this.turns.get(turnId);
    if (!turn) {
      turn = {
        turnId,
        userText: '',
        tree: new TreeReducer(),
        transcript: new TurnTranscript(),
        status: 'running',
        budget: [],
        restored: false,
      };
      this.turns.set(turnId, turn);
      this.turnOrder.push(turnId);
      this.#dirty.addedTurns.push(turnId);
    }
    return turn;
  }

  #nodeSet(map: Map<string, Set<string>>, turnId: string): Set<string> {
    let set = map.get(turnId);
    if (!set) {
      set = new Set();
      map.set(turnId, set);
    }
    return set;
  }
}
