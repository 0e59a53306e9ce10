/** Sessions: create, list, load, delete, attach/detach, permission mode, state. */
import { z } from 'zod';
import {
  ChatContext,
  Empty,
  NodeId,
  PermissionMode,
  SessionId,
  StopReason,
  Timestamp,
  TurnId,
  Usage,
  message,
  objectOrEmptyArray,
  sessionEvent,
} from './base.js';
import { AgentName } from './agents.js';
import { ApprovalRequestParams } from './approval.js';
import { CostSummaryParams } from './cost.js';
import { notification, request } from './descriptor.js';
import { PlanEntry } from './plan.js';
import { QuestionRequestParams } from './question.js';
import { ExecutionTreeSnapshot } from './tree.js';

export const TurnState = z
  .enum(['idle', 'running', 'requires_action'])
  .describe('requires_action: the running turn waits for an approval');
export type TurnState = z.infer<typeof TurnState>;

export const AttachRole = z.enum(['controller', 'observer']);
export type AttachRole = z.infer<typeof AttachRole>;

export const ModelRef = z
  .string()
  .min(1)
  .max(500)
  .describe('provider:model, e.g. openai:gpt-4.1 or local:qwen2.5-coder@http://127.0.0.1:11434/v1');

export const SessionInfo = message({
  sessionId: SessionId,
  workspaceRoot: z.string().min(1),
  title: z.string().max(500),
  permissionMode: PermissionMode,
  chatContext: ChatContext,
  model: ModelRef.optional(),
  agent: AgentName.optional().describe(
    'The agent profile the session runs with (protocol 1.1); absent: none',
  ),
  state: TurnState,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type SessionInfo = z.infer<typeof SessionInfo>;

export const MessageRole = z.enum(['user', 'assistant', 'tool']);
export const MessageStatus = z
  .enum(['complete', 'cancelled', 'budget_exceeded', 'max_iterations', 'error', 'interrupted'])
  .describe('interrupted: the daemon stopped while the turn ran');

/**
 * One piece of a turn's streamed output, in stream order (sessions.md#stored-parts):
 * a run of `chat/chunk` text into one node, or the place where a tree node first appeared.
 */
export const StoredPart = z
  .discriminatedUnion('type', [
    message({
      type: z.literal('text'),
      nodeId: NodeId,
      text: z.string().min(1).describe('Consecutive chat/chunk texts into nodeId, joined'),
    }),
    message({
      type: z.literal('node'),
      nodeId: NodeId.describe('A node of the message’s tree, other than the turn node'),
    }),
  ])
  .describe('text: streamed into nodeId; node: the first tree/update that named nodeId');
export type StoredPart = z.infer<typeof StoredPart>;

/**
 * What a data policy can keep out of the store (sessions.md#stored-omitted):
 * the answer's text, the tool calls' arguments, the tools' results.
 */
export const OmittedData = z
  .enum(['text', 'toolCalls', 'toolResults'])
  .describe(
    'text: the answer; toolCalls: tool arguments; toolResults: tool results, of all tools or of some (protocol 1.1)',
  );
export type OmittedData = z.infer<typeof OmittedData>;

/** The turn's `cost/summary` as it was sent, without the fields that place it in a session. */
export const StoredTurnCost = CostSummaryParams.omit({ sessionId: true, seq: true, turnId: true });
export type StoredTurnCost = z.infer<typeof StoredTurnCost>;

export const StoredMessage = message({
  id: z.string().min(1),
  turnId: TurnId,
  role: MessageRole,
  content: z.string(),
  createdAt: Timestamp,
  status: MessageStatus.optional(),
  tree: ExecutionTreeSnapshot.optional().describe('Assistant messages: the tree of that answer'),
  usage: Usage.optional(),
  parts: z
    .array(StoredPart)
    .optional()
    .describe(
      'Assistant messages (protocol 1.1): the turn’s text and tool cards in the order they streamed',
    ),
  cost: StoredTurnCost.optional().describe(
    'Assistant messages (protocol 1.1): the turn’s cost/summary, when one was sent',
  ),
  omitted: z
    .array(OmittedData)
    .min(1)
    .optional()
    .describe(
      'Assistant messages (protocol 1.1): what of the turn the daemon did not keep, by the data policy of the session’s agent profile',
    ),
});
export type StoredMessage = z.infer<typeof StoredMessage>;

// session/new
export const SessionNewParams = message({
  workspaceRoot: z.string().min(1).describe('Absolute path of an existing directory'),
  permissionMode: PermissionMode.default('default'),
  chatContext: ChatContext.default({ kind: 'thread' }),
  model: ModelRef.optional(),
  title: z.string().max(500).optional(),
  agent: AgentName.optional().describe(
    "An agent profile of agents/list (protocol 1.1, capabilities.agents); absent: the daemon's default, if any",
  ),
});
export const SessionNew = request({
  method: 'session/new',
  direction: 'clientToDaemon',
  params: SessionNewParams,
  result: SessionInfo,
  summary: 'Creates a session bound to a workspace root; the caller is attached as controller.',
  specRef: 'sessions.md#session-new',
});

// session/list
export const SessionListParams = message({
  workspaceRoot: z.string().min(1).optional().describe('Only sessions of this workspace root'),
  cursor: z.string().max(500).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export const SessionListResult = message({
  sessions: z.array(SessionInfo).describe('Newest first'),
  nextCursor: z.string().optional(),
});
export const SessionList = request({
  method: 'session/list',
  direction: 'clientToDaemon',
  params: objectOrEmptyArray(SessionListParams).default({ limit: 50 }),
  result: SessionListResult,
  summary: 'Lists sessions, newest first, paged.',
  specRef: 'sessions.md#session-list',
});

// session/load
export const SessionRef = message({ sessionId: SessionId });
export const SessionLoadResult = message({
  session: SessionInfo,
  messages: z.array(StoredMessage),
  lastSeq: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      'seq of the newest event when loaded: attach with sinceSeq = lastSeq to miss nothing',
    ),
  plan: z
    .array(PlanEntry)
    .max(200)
    .optional()
    .describe(
      "The session's plan: the entries of its last plan/update; absent when it never had one (protocol 1.1)",
    ),
});
export const SessionLoad = request({
  method: 'session/load',
  direction: 'clientToDaemon',
  params: SessionRef,
  result: SessionLoadResult,
  summary: 'Returns a session with its messages and the tree snapshot of every answer.',
  specRef: 'sessions.md#session-load',
});

export const SessionDelete = request({
  method: 'session/delete',
  direction: 'clientToDaemon',
  params: SessionRef,
  result: Empty,
  summary: 'Deletes a session; a running turn is cancelled first.',
  specRef: 'sessions.md#session-delete',
});

// session/deleted (d->c)
export const SessionDeletedParams = message({ ...sessionEvent });
export const SessionDeleted = notification({
  method: 'session/deleted',
  direction: 'daemonToClient',
  params: SessionDeletedParams,
  summary: 'The session was deleted; the last event of the session every attached client gets.',
  specRef: 'sessions.md#session-deleted',
});

// session/detached (d->c)
export const SessionDetachedParams = message({
  sessionId: SessionId,
  reason: z
    .string()
    .max(100)
    .describe(
      'slow_consumer: the client read too slowly and its unread events passed the daemon’s limit. Other values may come; handle them alike',
    ),
});
export const SessionDetached = notification({
  method: 'session/detached',
  direction: 'daemonToClient',
  params: SessionDetachedParams,
  summary:
    'The daemon detached this client from the session; it may re-attach with sinceSeq to resume.',
  specRef: 'sessions.md#session-detached',
});

// session/attach
export const SessionAttachParams = message({
  sessionId: SessionId,
  role: AttachRole.default('controller'),
  sinceSeq: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('Replay every event with seq > sinceSeq; absent: no replay'),
});
export const SessionSnapshot = message({
  tree: ExecutionTreeSnapshot.optional().describe('Tree of the running turn, if any'),
  turnId: TurnId.optional(),
  texts: z
    .array(message({ nodeId: z.string().min(1), text: z.string() }))
    .optional()
    .describe('Text streamed so far in the running turn, per tree node'),
  parts: z
    .array(StoredPart)
    .optional()
    .describe(
      'Protocol 1.1: the running turn’s text and nodes so far in stream order, as session/load will store them',
    ),
  pendingApprovals: z.array(ApprovalRequestParams),
  pendingQuestions: z
    .array(QuestionRequestParams)
    .optional()
    .describe('Protocol 1.1: questions of the running turn not yet answered'),
});
export const SessionAttachResult = message({
  session: SessionInfo,
  role: AttachRole,
  lastSeq: z.number().int().nonnegative().describe('seq of the newest event at attach time'),
  replay: z
    .enum(['none', 'events', 'snapshot'])
    .describe(
      'events: missed events follow with their original seq; snapshot: too old, see snapshot',
    ),
  snapshot: SessionSnapshot.optional(),
});
export const SessionAttach = request({
  method: 'session/attach',
  direction: 'clientToDaemon',
  params: SessionAttachParams,
  result: SessionAttachResult,
  summary: 'Attaches as controller or observer; replays missed events from sinceSeq.',
  specRef: 'sessions.md#session-attach',
});

export const SessionDetach = request({
  method: 'session/detach',
  direction: 'clientToDaemon',
  params: SessionRef,
  result: Empty,
  summary: 'Stops receiving the session’s events; the session and its turn go on.',
  specRef: 'sessions.md#session-detach',
});

// session/setPermissionMode
export const SetPermissionModeParams = message({ sessionId: SessionId, mode: PermissionMode });
export const SetPermissionModeResult = message({ mode: PermissionMode });
export const SessionSetPermissionMode = request({
  method: 'session/setPermissionMode',
  direction: 'clientToDaemon',
  params: SetPermissionModeParams,
  result: SetPermissionModeResult,
  summary: 'Changes the session’s permission mode; every attached client gets session/update.',
  specRef: 'sessions.md#session-set-permission-mode',
});

// session/setModel
export const SetModelParams = message({ sessionId: SessionId, model: ModelRef });
export const SetModelResult = message({
  model: ModelRef.describe('The model in force from the next turn on, as SessionInfo shows it'),
});
export const SessionSetModel = request({
  method: 'session/setModel',
  direction: 'clientToDaemon',
  params: SetModelParams,
  result: SetModelResult,
  capability: 'daemon.sessions.setModel',
  summary:
    'Changes the session’s model from its next turn on; every attached client gets session/update.',
  specRef: 'sessions.md#session-set-model',
});

// session/update (d->c)
export const SessionUpdateParams = message({
  ...sessionEvent,
  permissionMode: PermissionMode.optional(),
  title: z.string().max(500).optional(),
  model: ModelRef.optional(),
});
export const SessionUpdate = notification({
  method: 'session/update',
  direction: 'daemonToClient',
  params: SessionUpdateParams,
  summary: 'A session property changed (permission mode, title, model).',
  specRef: 'sessions.md#session-update',
});

// session/state (d->c)
/** An idle state: with stopReason it ends a turn and carries what only a turn's end knows. */
export const IdleSessionStateParams = message({
  ...sessionEvent,
  state: z.literal('idle'),
  turnId: TurnId.optional(),
  stopReason: StopReason.optional().describe('Present when a turn ended'),
  usage: Usage.optional().describe('The whole turn’s usage, when it ended'),
  error: message({ message: z.string() }).optional().describe('With stopReason error'),
});
export type IdleSessionStateParams = z.infer<typeof IdleSessionStateParams>;
/** Only an idle state ends a turn, so a busy one carries none of its results. */
const notWhileBusy = z.never().optional().describe('Only with state idle');
export const BusySessionStateParams = message({
  ...sessionEvent,
  state: z.enum(['running', 'requires_action']),
  turnId: TurnId.optional(),
  stopReason: notWhileBusy,
  usage: notWhileBusy,
  error: notWhileBusy,
});
export const SessionStateParams = z.discriminatedUnion('state', [
  IdleSessionStateParams,
  BusySessionStateParams,
]);
export type SessionStateParams = z.infer<typeof SessionStateParams>;
export const SessionState = notification({
  method: 'session/state',
  direction: 'daemonToClient',
  params: SessionStateParams,
  summary: 'running / requires_action / idle; idle with stopReason ends a turn.',
  specRef: 'turns.md#session-state',
});
