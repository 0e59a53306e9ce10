/**
 * `initialize` checks, in the order the spec gives them: the socket token
 * (nothing else is served without it), then the protocol version; and what
 * the client declared, wherever a typed LSP client could put it.
 */
import {
  ArborErrorCodes,
  PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  TraceValue,
  type ClientCapabilities,
  type ClientToolDeclaration,
  type InitializeParams,
} from '@arbor/protocol';
import { RpcError, rpcErrors } from '../rpcError.js';
import { tokenMatches } from './socketToken.js';

/**
 * The token as sent, read from the raw params because the token is checked
 * before they are validated (lifecycle.md#lifecycle-initialize-order).
 * Generic LSP clients may only be able to set initializationOptions. A token
 * that is not a string, or two different tokens, is a wrong token
 * (lifecycle.md#lifecycle-token-both-equal): `null`.
 */
export function presentedToken(rawParams: unknown): string | undefined | null {
  const top = member(rawParams, 'token');
  const nested = member(member(rawParams, 'initializationOptions'), 'token');
  for (const token of [top, nested])
    if (token !== undefined && typeof token !== 'string') return null;
  if (top !== undefined && nested !== undefined && top !== nested) return null;
  return (top ?? nested) as string | undefined;
}

function member(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

export function checkToken(expected: string | undefined, rawParams: unknown): void {
  if (expected === undefined) return; // stdio: the client spawned us, no token needed
  const presented = presentedToken(rawParams);
  if (presented === null || !tokenMatches(expected, presented)) {
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
    throw rpcErrors.unsupportedProtocolVersion(requested, SUPPORTED_PROTOCOL_VERSIONS);
  }
  return agreed;
}

/**
 * lifecycle.md#lifecycle-initialization-options: each Arbor client capability
 * is read from the top-level `capabilities` and, where a typed LSP client
 * could not put it there, from `initializationOptions.capabilities`; the
 * top-level member wins when both carry it.
 */
export function declaredCapabilities(params: InitializeParams): ClientCapabilities {
  // zod leaves out members that were absent, so a spread of the top level overrides only what it has.
  return { ...params.initializationOptions?.capabilities, ...params.capabilities };
}

/** The client tools manifest: top-level `tools`, else `initializationOptions.tools`. */
export function declaredToolManifest(params: InitializeParams): ClientToolDeclaration[] {
  return params.tools ?? params.initializationOptions?.tools ?? [];
}

/** LSP's `initialize.trace`: the initial trace value; unknown values mean off. */
export function initialTrace(params: InitializeParams): TraceValue {
  const parsed = TraceValue.safeParse(params.trace);
  return parsed.success ? parsed.data : 'off';
}
