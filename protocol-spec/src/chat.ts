/** Turns: `chat/send` starts one, `chat/cancel` stops it, `chat/chunk` streams its text. */
import { z } from 'zod';
import { NodeId, SessionId, TurnId, message, sessionEvent } from './base.js';
import { BudgetLimitsByKind } from './budget.js';
import { notification, request } from './descriptor.js';

/** Longest user message accepted by `chat/send`, in Unicode code points. */
export const MAX_USER_MESSAGE_CHARS = 200_000;

export const ChatSendParams = message({
  sessionId: SessionId,
  text: z.string().min(1).max(MAX_USER_MESSAGE_CHARS),
  budgets: BudgetLimitsByKind.optional().describe(
    'Lower limits for this turn only (a cheap turn); a value above the daemon’s own limit changes nothing. Honoured when the daemon advertises capabilities.budgets',
  ),
});
export const ChatSendResult = message({ turnId: TurnId });
export const ChatSend = request({
  method: 'chat/send',
  direction: 'clientToDaemon',
  params: ChatSendParams,
  result: ChatSendResult,
  summary: 'Starts a turn; answers at once with its turnId, the turn then runs on notifications.',
  specRef: 'turns.md#chat-send',
});

export const ChatCancelParams = message({
  sessionId: SessionId,
  turnId: TurnId.optional().describe('Only cancel if this turn is still the running one'),
});
export const ChatCancelResult = message({
  cancelled: z.boolean().describe('false: no matching turn was running'),
});
export const ChatCancel = request({
  method: 'chat/cancel',
  direction: 'clientToDaemon',
  params: ChatCancelParams,
  result: ChatCancelResult,
  summary: 'Cancels the running turn; it ends with stopReason cancelled.',
  specRef: 'turns.md#chat-cancel',
});

export const ChatChunkParams = message({
  ...sessionEvent,
  turnId: TurnId,
  nodeId: NodeId.describe('The turn node or the subtask node this text belongs to'),
  text: z.string().min(1),
});
export type ChatChunkParams = z.infer<typeof ChatChunkParams>;
export const ChatChunk = notification({
  method: 'chat/chunk',
  direction: 'daemonToClient',
  params: ChatChunkParams,
  summary: 'Streamed assistant text, coalesced, tagged with its tree node.',
  specRef: 'turns.md#chat-chunk',
});
