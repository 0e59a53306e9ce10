/**
 * The typed channel between the extension host and the chat webview.
 *
 * Both directions are zod discriminated unions on `type`; each side validates
 * what it receives (`parseHostMessage` in the webview, `parseWebviewMessage` in
 * the host) and drops anything else. Protocol payloads reuse the protocol's
 * own schemas, so a tree node here is exactly a `tree/update` node.
 *
 * This module is shared: it must import nothing from `vscode` or the DOM.
 */
import { z } from 'zod';
import {
  AgentFileError,
  AgentInfo,
  AgentName,
  ApprovalDecision,
  ApprovalOutcome,
  ApprovalRequestParams,
  BudgetExceededParams,
  CommandInfo,
  ContextUse,
  ExecutionTreeNode,
  ExecutionTreeSnapshot,
  MessageStatus,
  OmittedData,
  PermissionMode,
  PlanEntry,
  QuestionOutcome,
  QuestionRequestParams,
  QuestionRequestResult,
  StopReason,
  StoredPart,
  ToolInfo,
  ToolServer,
  TurnFileChange,
  TurnState,
  Usage,
} from '@arbor/protocol';

const Text = z.string().max(1_000_000);
const IdString = z.string().min(1).max(200);

/** One entry of the session history list. */
export const SessionSummary = z.object({
  sessionId: IdString,
  title: z.string().max(500),
  updatedAt: z.string(),
  state: TurnState,
});
export type SessionSummary = z.infer<typeof SessionSummary>;

/**
 * One turn as the webview shows it after a reload or a session switch: the
 * user's message, the answer and the stored tree snapshot. The same renderer
 * draws it as a live turn built from `tree` / `text` messages.
 */
export const TranscriptTurn = z.object({
  turnId: IdString,
  userText: Text,
  /** Assistant text per node (the turn node's text is the answer). */
  texts: z.array(z.object({ nodeId: IdString, text: Text })).default([]),
  tree: ExecutionTreeSnapshot.optional(),
  /**
   * Text and cards in the order they streamed (`StoredMessage.parts`); absent
   * from a 1.0 daemon, then cards come before the text.
   */
  parts: z.array(StoredPart).optional(),
  /** Absent: still running. */
  status: MessageStatus.optional(),
  usage: Usage.optional(),
  cost: z.number().nonnegative().nullable().optional(),
  /** How full the model's context window was after this turn (protocol 1.1). */
  context: ContextUse.optional(),
  /** What the agent profile's data policy did not keep of the turn (protocol 1.1). */
  omitted: z.array(OmittedData).optional(),
});
export type TranscriptTurn = z.infer<typeof TranscriptTurn>;

/** A question still open: the request, and the answer given here while the daemon decides. */
export const OpenQuestion = z.object({
  request: QuestionRequestParams,
  answer: QuestionRequestResult.shape.answer.optional(),
});
export type OpenQuestion = z.infer<typeof OpenQuestion>;

/**
 * How a question's card closes: `resolved` with the daemon's outcome
 * (`tool/questionResolved`), or the request was cancelled / is no longer
 * pending after a re-attach.
 */
export const QuestionEnd = z.object({
  kind: z.enum(['resolved', 'cancelled', 'withdrawn']),
  outcome: QuestionOutcome.optional(),
  /** The answer that applied, when answered. */
  answer: z.string().max(10_000).optional(),
  /** Answered by this window (true) or another client (false); absent when unknown or unanswered. */
  answeredHere: z.boolean().optional(),
});
export type QuestionEnd = z.infer<typeof QuestionEnd>;

/**
 * What this window may do with the checkpoints of the session's turns
 * (checkpoints.md): read diffs when the daemon advertises `checkpoints`,
 * restore when it also attached this window as a controller.
 */
export const CheckpointAccess = z.object({ diff: z.boolean(), restore: z.boolean() });
export type CheckpointAccess = z.infer<typeof CheckpointAccess>;

export const ConnectionStatus = z.enum(['starting', 'ready', 'restarting', 'failed', 'stopped']);
export type ConnectionStatus = z.infer<typeof ConnectionStatus>;

const hostMessages = [
  /** Daemon connection state, shown as a banner while not ready. */
  z.object({
    type: z.literal('connection'),
    status: ConnectionStatus,
    message: z.string().optional(),
  }),
  /** The session history (newest first) and which one is shown. */
  z.object({
    type: z.literal('sessions'),
    sessions: z.array(SessionSummary),
    currentId: IdString.optional(),
  }),
  /** Replaces everything shown: a session switch, a reload, a reconnect. */
  z.object({
    type: z.literal('session'),
    sessionId: IdString,
    title: z.string(),
    permissionMode: PermissionMode,
    model: z.string().optional(),
    state: TurnState,
    turns: z.array(TranscriptTurn),
    approvals: z.array(ApprovalRequestParams).default([]),
    /** The model's questions still open (protocol 1.1). */
    questions: z.array(OpenQuestion).default([]),
    plan: z.array(PlanEntry).default([]),
    budget: z.array(BudgetExceededParams).default([]),
    checkpoints: CheckpointAccess.default({ diff: false, restore: false }),
    /** Turns whose changes this window put back (checkpoint/restore), kept across webview reloads. */
    restoredTurns: z.array(IdString).default([]),
  }),
  /** No session yet (no workspace, or the daemon is not up). */
  z.object({ type: z.literal('noSession'), reason: z.string() }),
  z.object({ type: z.literal('turnStarted'), turnId: IdString, userText: Text.optional() }),
  /** `tree/update` upserts of one turn. */
  z.object({ type: z.literal('tree'), turnId: IdString, nodes: z.array(ExecutionTreeNode).min(1) }),
  /** `chat/chunk`: text streamed into a node; seq orders it. */
  z.object({
    type: z.literal('text'),
    turnId: IdString,
    nodeId: IdString,
    seq: z.number().int().nonnegative(),
    text: Text,
  }),
  z.object({
    type: z.literal('state'),
    state: TurnState,
    turnId: IdString.optional(),
    stopReason: StopReason.optional(),
    error: z.string().optional(),
  }),
  /** The daemon's confirmed permission mode. */
  z.object({ type: z.literal('mode'), mode: PermissionMode }),
  /** The session got a title (its first message) or a new one. */
  z.object({ type: z.literal('title'), title: z.string().max(500) }),
  /** Models offered by the picker and the session's model. */
  z.object({
    type: z.literal('models'),
    models: z.array(z.string()),
    current: z.string().optional(),
    /** The daemon switches the open chat's model (session/setModel); false: a pick starts a new chat. */
    inPlace: z.boolean().default(false),
  }),
  z.object({ type: z.literal('approvalAdded'), request: ApprovalRequestParams }),
  z.object({
    type: z.literal('approvalRemoved'),
    turnId: IdString,
    toolCallId: IdString,
    outcome: ApprovalOutcome.optional(),
    decidedBy: z.string().optional(),
  }),
  /** The model asks the user (`tool/question`); a re-sent one has the same turnId + toolCallId. */
  z.object({ type: z.literal('questionAdded'), request: QuestionRequestParams }),
  z.object({
    type: z.literal('questionRemoved'),
    turnId: IdString,
    toolCallId: IdString,
    end: QuestionEnd,
  }),
  z.object({ type: z.literal('budget'), notice: BudgetExceededParams }),
  z.object({ type: z.literal('plan'), entries: z.array(PlanEntry) }),
  z.object({
    type: z.literal('cost'),
    turnId: IdString,
    cost: z.number().nonnegative().nullable(),
    usage: Usage,
    context: ContextUse.optional(),
  }),
  /** checkpoint/restore succeeded: these turns' changes (the restored one and every later one) are undone. */
  z.object({ type: z.literal('restored'), turnIds: z.array(IdString).min(1) }),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'error']), message: z.string() }),
  /** The session's tools (tools/list): what cards show as each call's category and subject. */
  z.object({
    type: z.literal('tools'),
    tools: z.array(ToolInfo),
    /** The session's tool servers (MCP): the view says which are not ready, and why. */
    servers: z.array(ToolServer).optional(),
  }),
  /**
   * The agent profiles a new chat may run with (agents/list), the open chat's
   * one, and profile files of the workspace that cannot be used.
   */
  z.object({
    type: z.literal('agents'),
    agents: z.array(AgentInfo).max(1000),
    current: AgentName.optional(),
    errors: z.array(AgentFileError).max(1000).default([]),
  }),
  /** The session's slash commands and skills (commands/list, commands/changed): the composer completes `/`. */
  z.object({ type: z.literal('commands'), commands: z.array(CommandInfo).max(1000) }),
  /** Commands run from VS Code that act inside the view. */
  z.object({ type: z.literal('focusComposer') }),
  /** Editor commands (Add Selection to Chat, ...): `text` goes at the end of the composer, which takes focus. */
  z.object({ type: z.literal('composerInsert'), text: z.string().min(1).max(200_000) }),
  /**
   * The daemon died (or an attached daemon went away) during a turn: the view
   * keeps what the turn showed, marks it interrupted with `reason` and offers
   * Retry. Without `turnId`, the running turn.
   */
  z.object({
    type: z.literal('turnInterrupted'),
    turnId: IdString.optional(),
    reason: z.string().max(2000),
  }),
] as const;

export const HostMessage = z.discriminatedUnion('type', hostMessages);
export type HostMessage = z.infer<typeof HostMessage>;

export const WebviewMessage = z.discriminatedUnion('type', [
  /** The webview loaded (or reloaded) and wants the full state. */
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('send'), text: z.string().min(1).max(200_000) }),
  z.object({ type: z.literal('cancel') }),
  /** Retry of an interrupted turn: its prompt, sent again as a new turn. */
  z.object({ type: z.literal('retry'), turnId: IdString, text: z.string().min(1).max(200_000) }),
  z.object({ type: z.literal('setMode'), mode: PermissionMode }),
  z.object({ type: z.literal('setModel'), model: z.string().min(1).max(500) }),
  /** The agent picker: a new chat with this profile (null: none); a session's agent never changes. */
  z.object({ type: z.literal('setAgent'), agent: AgentName.nullable() }),
  z.object({
    type: z.literal('approve'),
    turnId: IdString,
    toolCallId: IdString,
    decision: ApprovalDecision,
  }),
  /** The user's answer to a question: an option's label, or their own words when freeText. */
  z.object({
    type: z.literal('answerQuestion'),
    turnId: IdString,
    toolCallId: IdString,
    answer: QuestionRequestResult.shape.answer,
  }),
  z.object({ type: z.literal('showDiff'), turnId: IdString, toolCallId: IdString }),
  /** checkpoint/diff of a finished turn: one file, or the whole turn without `path`. */
  z.object({
    type: z.literal('showChangeDiff'),
    turnId: IdString,
    path: TurnFileChange.shape.path.optional(),
  }),
  /** "Restore to before this turn": the host confirms, then sends checkpoint/restore. */
  z.object({ type: z.literal('restoreCheckpoint'), turnId: IdString }),
  z.object({ type: z.literal('newChat') }),
  z.object({ type: z.literal('switchSession'), sessionId: IdString }),
  z.object({ type: z.literal('deleteSession'), sessionId: IdString }),
  z.object({ type: z.literal('copy'), text: z.string().max(1_000_000) }),
]);
export type WebviewMessage = z.infer<typeof WebviewMessage>;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function parseWith<T>(schema: z.ZodType<T>, raw: unknown): Parsed<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: z.prettifyError(parsed.error) };
}

/** Used by the webview on every `message` event. */
export function parseHostMessage(raw: unknown): Parsed<HostMessage> {
  return parseWith(HostMessage, raw);
}

/** Used by the host on every `onDidReceiveMessage`. */
export function parseWebviewMessage(raw: unknown): Parsed<WebviewMessage> {
  return parseWith(WebviewMessage, raw);
}
