/**
 * JSON-RPC 2.0 envelopes as zod schemas. The daemon checks raw frames against
 * them before routing, so a bad envelope gets -32600 instead of being guessed at.
 */
import { z } from 'zod';

export const JsonRpcId = z.union([z.string(), z.number().int()]);

/**
 * By-name or by-position params. `null` is accepted and means "no params",
 * as generic LSP clients send it for methods without params.
 */
const Params = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown()), z.null()]);

export const JsonRpcRequest = z.object({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcId,
  method: z.string().min(1),
  params: Params.optional(),
});

export const JsonRpcNotification = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string().min(1),
  params: Params.optional(),
});

/** A response carries exactly one of `result` and `error` (transport.md#transport-invalid-response). */
const absent = z.never().optional();
export const JsonRpcResponse = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id: JsonRpcId, result: z.unknown(), error: absent }),
  z.object({
    jsonrpc: z.literal('2.0'),
    id: JsonRpcId.nullable(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
    result: absent,
  }),
]);

/** A message shaped as a response (no method, a result or an error), valid or not: never answered. */
export function isResponseShaped(value: Record<string, unknown>): boolean {
  return !('method' in value) && ('result' in value || 'error' in value);
}

export const JsonRpcMessage = z.union([JsonRpcRequest, JsonRpcNotification, JsonRpcResponse]);
export type JsonRpcMessage = z.infer<typeof JsonRpcMessage>;
