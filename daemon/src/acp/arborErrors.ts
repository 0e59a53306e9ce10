/**
 * An Arbor error response as the ACP error an editor understands: the ACP
 * code where one means the same, the Arbor code and message kept in `data`.
 */
import { ArborErrorCodes } from '@arbor/protocol';
import { RequestError } from '@agentclientprotocol/sdk';

export function acpErrorOf(error: unknown, sessionId?: string): RequestError {
  if (error instanceof RequestError) return error;
  // A JSON-RPC error response (vscode-jsonrpc's ResponseError) carries its numeric code.
  if (!(error instanceof Error) || typeof (error as { code?: unknown }).code !== 'number') {
    return RequestError.internalError(
      undefined,
      error instanceof Error ? error.message : String(error),
    );
  }
  const code = (error as Error & { code: number }).code;
  const data = { arbor: { code: code, message: error.message } };
  switch (code) {
    case ArborErrorCodes.SessionNotFound:
      return sessionId === undefined
        ? new RequestError(-32002, error.message, data)
        : RequestError.sessionNotFound(sessionId);
    case ArborErrorCodes.InvalidWorkspaceRoot:
    case ArborErrorCodes.InvalidModel:
      return RequestError.invalidParams(data, error.message);
    case ArborErrorCodes.TurnInProgress:
    case ArborErrorCodes.NotController:
      return RequestError.invalidRequest(data, error.message);
    default:
      return new RequestError(code, error.message, data);
  }
}

/** Runs an Arbor call, turning its error response into an ACP one. */
export async function arborCall<T>(call: () => Promise<T>, sessionId?: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw acpErrorOf(error, sessionId);
  }
}
