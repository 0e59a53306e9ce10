/** Sessions: create, list, load, delete, attach/detach, permission mode, state. */
import { z } from 'zod';
import {
  ChatContext,
  Empty,
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
import { ApprovalRequestParams } from './approval.js';
import { notification, request } from './descriptor.js';
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
  state: TurnState,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type SessionInfo = z.infer<typeof SessionInfo>;

export const MessageRole = z.enum(['user', 'assistant', 'tool']);
export const MessageStatus = z
  .enum(['complete', 'cancelled', 'budget_exceeded', 'max_iterations', 'error', 'interrupted'])
  .describe('interrupted: the daemon stopped while the turn ran');

export const StoredMessage = message({
  id: z.string().min(1),
  turnId: TurnId,
  role: MessageRole,
  content: z.string(),
  createdAt: Timestamp,
  status: MessageStatus.optional(),
  tree: ExecutionTreeSnapshot.optional().describe('Assistant messages: the tree of that answer'),
  usage: Usage.optional(),
});
export type StoredMessage = z.infer<typeof StoredMessage>;

// session/new
export const SessionNewParams = message({
  workspaceRoot: z.string().min(1).describe('Absolute path of an existing directory'),
  permissionMode: PermissionMode.default('default'),
  chatContext: ChatContext.default({ kind: 'thread' }),
  model: ModelRef.optional(),
  title: z.string().max(500).optional(),
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
  pendingApprovals: z.array(ApprovalRequestParams),
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
export const SessionStateParams = message({
  ...sessionEvent,
  state: TurnState,
  turnId: TurnId.optional(),
  stopReason: StopReason.optional().describe('Present when a turn ended (state idle)'),
  usage: Usage.optional().describe('The whole turn’s usage, when it ended'),
  error: message({ message: z.string() }).optional().describe('With stopReason error'),
});
export type SessionStateParams = z.infer<typeof SessionStateParams>;
export const SessionState = notification({
  method: 'session/state',
  direction: 'daemonToClient',
  params: SessionStateParams,
  summary: 'running / requires_action / idle; idle with stopReason ends a turn.',
  specRef: 'turns.md#session-state',
});
