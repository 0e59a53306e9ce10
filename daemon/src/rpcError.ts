/**
 * An error that becomes a JSON-RPC error response. Session and server code
 * throw it; the method router turns it into vscode-jsonrpc's ResponseError, so
 * only the router knows which JSON-RPC library is underneath.
 */
import {
  ArborErrorCodes,
  JsonRpcErrorCodes,
  LspErrorCodes,
  type CheckpointConflictData,
  type TurnInProgressData,
  type UnsupportedProtocolVersionData,
} from '@arbor/protocol';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export const rpcErrors = {
  invalidParams: (message: string) => new RpcError(JsonRpcErrorCodes.InvalidParams, message),
  invalidRequest: (message: string) => new RpcError(JsonRpcErrorCodes.InvalidRequest, message),
  methodNotFound: (method: string) =>
    new RpcError(JsonRpcErrorCodes.MethodNotFound, `unknown method ${method}`),
  notInitialized: () =>
    new RpcError(LspErrorCodes.ServerNotInitialized, 'initialize must be the first request'),
  cancelled: () => new RpcError(LspErrorCodes.RequestCancelled, 'request cancelled'),
  sessionNotFound: (sessionId: string) =>
    new RpcError(ArborErrorCodes.SessionNotFound, `no session ${sessionId}`),
  notAttached: (sessionId: string) =>
    new RpcError(
      ArborErrorCodes.NotAttached,
      `this client is not attached to session ${sessionId}; call session/attach first`,
    ),
  notController: (what: string) =>
    new RpcError(
      ArborErrorCodes.NotController,
      `${what} needs a controller; this client is attached as an observer`,
    ),
  turnInProgress: (turnId: string) =>
    new RpcError(ArborErrorCodes.TurnInProgress, `turn ${turnId} is still running`, {
      turnId,
    } satisfies TurnInProgressData),
  unsupportedProtocolVersion: (requested: number, supported: readonly number[]) =>
    new RpcError(
      ArborErrorCodes.UnsupportedProtocolVersion,
      `protocol version ${requested} is not supported`,
      { supported: [...supported] } satisfies UnsupportedProtocolVersionData,
    ),
  invalidWorkspaceRoot: (reason: string) =>
    new RpcError(ArborErrorCodes.InvalidWorkspaceRoot, reason),
  invalidModel: (reason: string) => new RpcError(ArborErrorCodes.InvalidModel, reason),
  checkpointConflict: (files: string[]) =>
    new RpcError(
      ArborErrorCodes.CheckpointConflict,
      `${files.slice(0, 5).join(', ')}${files.length > 5 ? ` and ${files.length - 5} more` : ''} changed since the session last changed ${files.length === 1 ? 'it' : 'them'}; restore with force to overwrite`,
      { files } satisfies CheckpointConflictData,
    ),
  checkpointUnavailable: (reason: string) =>
    new RpcError(ArborErrorCodes.CheckpointUnavailable, reason),
  /** The store could not write (a full disk): the request did nothing; the message says what to do. */
  notStored: (reason: string) => new RpcError(JsonRpcErrorCodes.InternalError, reason),
};
