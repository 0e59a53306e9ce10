/** Client tools: tools a client declares in `initialize` and runs on `tool/execute`. */
import { z } from 'zod';
import { NodeId, SessionId, ToolCallId, TurnId, message } from './base.js';
import { request } from './descriptor.js';

export const ToolExecuteParams = message({
  sessionId: SessionId,
  turnId: TurnId,
  nodeId: NodeId,
  toolCallId: ToolCallId,
  name: z.string().min(1),
  args: z.unknown(),
});
export type ToolExecuteParams = z.infer<typeof ToolExecuteParams>;

export const ToolExecuteResult = message({
  content: z.string().describe('What the model sees as the tool result'),
  isError: z.boolean().optional(),
});
export type ToolExecuteResult = z.infer<typeof ToolExecuteResult>;

export const ToolExecute = request({
  method: 'tool/execute',
  direction: 'daemonToClient',
  params: ToolExecuteParams,
  result: ToolExecuteResult,
  capability: 'client.clientTools',
  summary: 'Runs a tool the client declared; cancellable with $/cancelRequest.',
  specRef: 'client-tools.md#tool-execute',
});
