/**
 * Checks a parsed JSON value against the JSON-RPC 2.0 envelopes of
 * @arbor/protocol before it reaches vscode-jsonrpc, which would otherwise log
 * and drop (or guess at) a broken message instead of answering -32600.
 */
import {
  JsonRpcErrorCodes,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  Methods,
  isResponseShaped,
} from '@arbor/protocol';
import type { Message } from 'vscode-jsonrpc';
import { faults, type JsonRpcIdOrNull, type ProtocolFault } from './protocolFault.js';

export type EnvelopeCheck =
  { ok: true; message: Message } | { ok: false; fault: ProtocolFault | null };

export function checkEnvelope(value: unknown): EnvelopeCheck {
  if (Array.isArray(value)) {
    return { ok: false, fault: faults.invalidRequest('batch requests are not supported') };
  }
  if (typeof value !== 'object' || value === null) {
    return { ok: false, fault: faults.invalidRequest('a message must be a JSON object') };
  }
  const record = value as Record<string, unknown>;
  const id = usableId(record['id']);
  const hasMethod = 'method' in record;
  const hasId = 'id' in record;

  const schema = hasMethod ? (hasId ? JsonRpcRequest : JsonRpcNotification) : JsonRpcResponse;
  const parsed = schema.safeParse(record);
  if (!parsed.success) {
    const kind = hasMethod ? (hasId ? 'request' : 'notification') : 'response';
    const where = parsed.error.issues[0];
    const detail = where ? `${where.path.join('.') || 'message'}: ${where.message}` : 'invalid';
    if (isResponseShaped(record)) return invalidResponse(id, detail);
    return { ok: false, fault: faults.invalidRequest(`invalid JSON-RPC ${kind} (${detail})`, id) };
  }
  // vscode-jsonrpc reads `params.id` of a cancel notification unguarded; a bad
  // one is a notification, so it is dropped rather than answered. A *request*
  // of that name is just an unknown method, answered like any other.
  if (
    !hasId &&
    record['method'] === Methods.CancelRequest.method &&
    !hasValidCancelId(record['params'])
  ) {
    return { ok: false, fault: null };
  }
  // The original object goes on: zod's parse strips fields we must not lose.
  return { ok: true, message: record as unknown as Message };
}

/**
 * A response is never answered (transport.md#transport-invalid-response): an
 * invalid one becomes an error answer to the request it names, which fails
 * that request (or is ignored like any answer to no outstanding request).
 */
function invalidResponse(id: JsonRpcIdOrNull, detail: string): EnvelopeCheck {
  if (id === null) return { ok: false, fault: null };
  const error = {
    code: JsonRpcErrorCodes.InvalidRequest,
    message: `invalid JSON-RPC response (${detail})`,
  };
  return { ok: true, message: { jsonrpc: '2.0', id, error } as unknown as Message };
}

function usableId(id: unknown): JsonRpcIdOrNull {
  return JsonRpcId.safeParse(id).success ? (id as string | number) : null;
}

function hasValidCancelId(params: unknown): boolean {
  return (
    typeof params === 'object' &&
    params !== null &&
    JsonRpcId.safeParse((params as Record<string, unknown>)['id']).success
  );
}
