/**
 * `initialize` checks, in the order the spec gives them: the socket token
 * (nothing else is served without it), then the protocol version.
 */
import {
  ArborErrorCodes,
  PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type InitializeParams,
} from '@arbor/protocol';
import { RpcError } from '../rpcError.js';
import { tokenMatches } from './socketToken.js';

/** Generic LSP clients may only be able to set initializationOptions. */
export function presentedToken(params: InitializeParams): string | undefined {
  return params.token ?? params.initializationOptions?.token;
}

export function checkToken(expected: string | undefined, params: InitializeParams): void {
  if (expected === undefined) return; // stdio: the client spawned us, no token needed
  const presented = presentedToken(params);
  if (!tokenMatches(expected, presented)) {
    throw new RpcError(
      ArborErrorCodes.Unauthorized,
      presented === undefined
        ? 'this socket requires the token from <data-dir>/token in initialize'
        : 'wrong token',
    );
  }
}

/** The client names the newest version it speaks (absent: 1); we answer the newest both speak. */
export function negotiateVersion(params: InitializeParams): number {
  const requested = params.protocolVersion ?? params.initializationOptions?.protocolVersion ?? 1;
  const candidate = Math.min(requested, PROTOCOL_VERSION);
  const agreed = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v <= candidate).sort((a, b) => b - a)[0];
  if (agreed === undefined) {
    throw new RpcError(
      ArborErrorCodes.UnsupportedProtocolVersion,
      `protocol version ${requested} is not supported`,
      { supported: [...SUPPORTED_PROTOCOL_VERSIONS] },
    );
  }
  return agreed;
}
