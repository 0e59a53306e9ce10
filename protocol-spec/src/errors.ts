/**
 * Error codes. Three families, each in its own range so they never collide:
 * JSON-RPC 2.0 (-32768..-32000), LSP's lifecycle codes (-32099..-32000 and
 * -32899..-32800, reused with LSP's meaning), and Arbor's own (-33099..-33000).
 */
import { z } from 'zod';
import { NonNegativeInt, TurnId, message } from './base.js';

export const JsonRpcErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** LSP-compatible codes: same numbers, same meaning as in the Language Server Protocol. */
export const LspErrorCodes = {
  ServerNotInitialized: -32002,
  UnknownErrorCode: -32001,
  RequestFailed: -32803,
  ServerCancelled: -32802,
  RequestCancelled: -32800,
} as const;

/** Arbor's reserved range: -33099 (end) .. -33000 (start). */
export const ArborErrorRange = { start: -33000, end: -33099 } as const;

export const ArborErrorCodes = {
  /** Socket connection without the right token. */
  Unauthorized: -33000,
  /** No protocol version both sides speak. */
  UnsupportedProtocolVersion: -33001,
  /** `initialize` sent twice on one connection. */
  AlreadyInitialized: -33002,
  /** A frame larger than the negotiated maximum message size. */
  MessageTooLarge: -33003,
  SessionNotFound: -33004,
  /** `chat/send` while the session already runs a turn. */
  TurnInProgress: -33005,
  /** An observer tried something only a controller may do. */
  NotController: -33006,
  /** The session is not attached by this client. */
  NotAttached: -33007,
  /** A method whose capability was not negotiated. */
  CapabilityNotNegotiated: -33008,
  /** The workspace root does not exist or is not an absolute directory path. */
  InvalidWorkspaceRoot: -33009,
  /** `tool/execute` named a tool the client did not declare. */
  UnknownClientTool: -33010,
  /** The model string names an unknown provider or is malformed. */
  InvalidModel: -33011,
  /** `checkpoint/restore` without force: files changed since the session last changed them (1.1). */
  CheckpointConflict: -33012,
  /** `checkpoint/restore` or `checkpoint/diff` for a turn with no checkpoint (1.1). */
  CheckpointUnavailable: -33013,
} as const;

export const ErrorCodes = { ...JsonRpcErrorCodes, ...LspErrorCodes, ...ArborErrorCodes } as const;
export type ErrorCodeName = keyof typeof ErrorCodes;

export function isArborErrorCode(code: number): boolean {
  return code <= ArborErrorRange.start && code >= ArborErrorRange.end;
}

/** The `error` member of a JSON-RPC response. */
export const ResponseError = message({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type ResponseError = z.infer<typeof ResponseError>;

/*
 * The `data` of each error that has a defined shape (errors.md#error-data).
 * A sender MAY add members; a receiver reads the listed ones and ignores the rest.
 */

/** -33001 UnsupportedProtocolVersion: every major version the daemon speaks, newest first. */
export const UnsupportedProtocolVersionData = message({
  supported: z.array(z.number().int().positive()).min(1),
}).describe('data of -33001 UnsupportedProtocolVersion');
export type UnsupportedProtocolVersionData = z.infer<typeof UnsupportedProtocolVersionData>;

/** -33003 MessageTooLarge: the limit and the refused frame's announced length. */
export const MessageTooLargeData = message({
  maxMessageBytes: NonNegativeInt,
  contentLength: NonNegativeInt,
}).describe('data of -33003 MessageTooLarge');
export type MessageTooLargeData = z.infer<typeof MessageTooLargeData>;

/** -33005 TurnInProgress: the turn that is still running. */
export const TurnInProgressData = message({ turnId: TurnId }).describe(
  'data of -33005 TurnInProgress',
);
export type TurnInProgressData = z.infer<typeof TurnInProgressData>;

/** -33012 CheckpointConflict: the files someone else changed since the session's last change. */
export const CheckpointConflictData = message({
  files: z.array(z.string().min(1)).min(1).describe('Workspace-relative paths, forward slashes'),
}).describe('data of -33012 CheckpointConflict');
export type CheckpointConflictData = z.infer<typeof CheckpointConflictData>;

/** Error code -> the schema of its `data`, for every code whose data has a shape. */
export const ERROR_DATA_SCHEMAS: Readonly<Record<number, z.ZodType>> = {
  [ArborErrorCodes.UnsupportedProtocolVersion]: UnsupportedProtocolVersionData,
  [ArborErrorCodes.MessageTooLarge]: MessageTooLargeData,
  [ArborErrorCodes.TurnInProgress]: TurnInProgressData,
  [ArborErrorCodes.CheckpointConflict]: CheckpointConflictData,
};
