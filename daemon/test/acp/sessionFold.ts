/**
 * What an editor shows after a stream of session/updates: the agent's text,
 * the order tool calls appeared in, and each tool call with every update
 * merged in. Live turns and replayed ones are compared through this fold.
 */
import type { SessionNotification, ToolCall } from '@agentclientprotocol/sdk';

export interface FoldedSession {
  userText: string;
  agentText: string;
  /** Stream order: agent text runs (adjacent chunks joined) and the first sight of each tool call. */
  timeline: string[];
  toolCallOrder: string[];
  toolCalls: Map<string, ToolCall>;
  modes: string[];
  plans: unknown[];
}

export function foldUpdates(notifications: readonly SessionNotification[]): FoldedSession {
  const folded: FoldedSession = {
    userText: '',
    agentText: '',
    timeline: [],
    toolCallOrder: [],
    toolCalls: new Map(),
    modes: [],
    plans: [],
  };
  for (const { update } of notifications) {
    switch (update.sessionUpdate) {
      case 'user_message_chunk':
        if (update.content.type === 'text') folded.userText += update.content.text;
        break;
      case 'agent_message_chunk':
        if (update.content.type === 'text') {
          folded.agentText += update.content.text;
          const last = folded.timeline.length - 1;
          if (folded.timeline[last]?.startsWith('text:'))
            folded.timeline[last] += update.content.text;
          else folded.timeline.push(`text:${update.content.text}`);
        }
        break;
      case 'tool_call': {
        const { sessionUpdate: _, ...call } = update;
        if (folded.toolCalls.has(call.toolCallId))
          throw new Error(`tool_call ${call.toolCallId} sent twice`);
        folded.toolCallOrder.push(call.toolCallId);
        folded.timeline.push(`call:${call.toolCallId}`);
        folded.toolCalls.set(call.toolCallId, call);
        break;
      }
      case 'tool_call_update': {
        const { sessionUpdate: _, ...changes } = update;
        const call = folded.toolCalls.get(changes.toolCallId);
        if (!call) throw new Error(`tool_call_update before tool_call: ${changes.toolCallId}`);
        for (const [key, value] of Object.entries(changes)) {
          if (value !== undefined && value !== null) (call as Record<string, unknown>)[key] = value;
        }
        break;
      }
      case 'current_mode_update':
        folded.modes.push(update.currentModeId);
        break;
      case 'plan':
        folded.plans.push(update.entries);
        break;
      default:
        break;
    }
  }
  return folded;
}

/** The tool calls in the order they appeared. */
export function toolCallsInOrder(folded: FoldedSession): ToolCall[] {
  return folded.toolCallOrder.map((id) => folded.toolCalls.get(id)!);
}
