/**
 * LSP's `$/` base methods as Arbor uses them (lifecycle.md#lsp-base-methods).
 * They keep their LSP names, but get descriptors like every other method so
 * wire validation covers their params and no method string is typed twice.
 */
import { z } from 'zod';
import { message } from './base.js';
import { notification } from './descriptor.js';
import { JsonRpcId } from './jsonrpc.js';

export const CancelRequestParams = message({
  id: JsonRpcId.describe('The id of the request to cancel'),
});
export type CancelRequestParams = z.infer<typeof CancelRequestParams>;

export const TraceValue = z.enum(['off', 'messages', 'verbose']);
export type TraceValue = z.infer<typeof TraceValue>;

export const SetTraceParams = message({ value: TraceValue });
export type SetTraceParams = z.infer<typeof SetTraceParams>;

export const LogTraceParams = message({
  message: z.string(),
  verbose: z.string().optional().describe('Only while the trace value is verbose'),
});
export type LogTraceParams = z.infer<typeof LogTraceParams>;

export const CancelRequest = notification({
  method: '$/cancelRequest',
  direction: 'both',
  params: CancelRequestParams,
  summary: 'Cancels an outstanding request; the receiver still answers it (result or -32800).',
  specRef: 'lifecycle.md#cancel-request',
});

export const SetTrace = notification({
  method: '$/setTrace',
  direction: 'clientToDaemon',
  params: SetTraceParams,
  summary: 'Sets how much the daemon reports through $/logTrace on this connection.',
  specRef: 'lifecycle.md#set-trace',
});

export const LogTrace = notification({
  method: '$/logTrace',
  direction: 'daemonToClient',
  params: LogTraceParams,
  summary: "One trace line of the daemon's, sent only while the trace value is not off.",
  specRef: 'lifecycle.md#log-trace',
});
