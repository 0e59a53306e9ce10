/**
 * The seam between a session and the agent. A session hands a turn a request
 * and an event sink; the agent hands back the turn's outcome. The sink is the
 * agent's only way to reach clients: session/ stamps sessionId and seq and fans
 * the event out to every attached client.
 */
import type {
  BudgetKind,
  CommandInfo,
  ExecutionTreeSnapshot,
  NotificationDescriptor,
  ParamsOf,
  PermissionMode,
  QuestionRequestParams,
  Script,
  StopReason,
  Usage,
} from '@arbor/protocol';
import type { NamedAgentProfile } from '../agents/agentProfile.js';
import type { SessionApprovals } from '../permissions/sessionApprovals.js';
import type { TurnCheckpoint } from '../checkpoints/sessionCheckpoints.js';
import type { QuestionEnd } from '../questions/questionBroker.js';
import type { Tool } from '../tools/tool.js';

/** Params of a session notification, minus what the session adds itself. */
export type SessionEventParams<D extends NotificationDescriptor> = Omit<
  ParamsOf<D>,
  'sessionId' | 'seq'
>;

export interface SessionEventSink {
  emit<D extends NotificationDescriptor>(descriptor: D, params: SessionEventParams<D>): void;
}

/** One earlier message of the session, as the next turn's history. */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface TurnRequest {
  sessionId: string;
  turnId: string;
  /** The user message as the model gets it (a slash command already expanded). */
  text: string;
  workspaceRoot: string;
  /** Model string of the session (`provider:model`), if it chose one. */
  model: string | undefined;
  /** The session's agent profile (agents/agentProfile.ts), if it runs with one. */
  agent?: NamedAgentProfile;
  /** A script set through `_arbor/testing/setScript`: the turn uses the scripted provider. */
  script: Script | undefined;
  /** Limits given with that script (setScript `budgets`): they replace the daemon's for this turn. */
  budgets?: Partial<Record<BudgetKind, number>>;
  /** Limits the client asked for (chat/send `budgets`): they can only lower the daemon's. */
  lowerBudgets?: Partial<Record<BudgetKind, number>>;
  /** Read at call time: the mode may change while the turn runs. */
  permissionMode: () => PermissionMode;
  history: readonly HistoryMessage[];
  /** Tools the session composed for this turn (workspace tools, the sender's client tools). */
  tools?: readonly Tool[];
  /** The session's skills, named in the system prompt when the turn has read_skill. */
  skills?: readonly CommandInfo[];
  /** The session's grants and approval broker, read by the permission gate. */
  approvals?: SessionApprovals;
  /** Asks the session's controllers the model's questions (ask_user). */
  questions?: QuestionAsker;
  /** Snapshots the workspace around the turn's changes, for undo (checkpoints.md). */
  checkpoint?: TurnCheckpoint;
  events: SessionEventSink;
  signal: AbortSignal;
}

/** Asks the session's controllers a question and waits for how it ends (QuestionBroker). */
export interface QuestionAsker {
  ask(params: QuestionRequestParams, signal: AbortSignal): Promise<QuestionEnd>;
}

export interface TurnResult {
  stopReason: StopReason;
  /** The root loop's final assistant text (partial when the turn was cut short). */
  text: string;
  usage: Usage;
  tree: ExecutionTreeSnapshot;
  /** With stopReason `error`: a message safe to show the user (no secrets). */
  error?: string;
}

export interface TurnRunner {
  run(request: TurnRequest): Promise<TurnResult>;
}
