/**
 * A stored session as the `session/update`s a live client saw: each user
 * message, then each answer's text and tool calls in the order they streamed
 * (the stored `parts`), every tool call in its final state. Turns stored
 * without parts (protocol 1.0) show their tool calls before their text.
 */
import type { ExecutionTreeNode, StoredMessage } from '@arbor/protocol';
import type { ToolCatalogue } from '@arbor/protocol/client';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { toolCallOf } from './toolCalls.js';
import { storedStatusNotice } from './turnNotices.js';

export interface ReplayContext {
  workspaceRoot: string;
  catalogue: ToolCatalogue;
}

export function replayUpdates(
  messages: readonly StoredMessage[],
  context: ReplayContext,
): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      updates.push({
        sessionUpdate: 'user_message_chunk',
        content: { type: 'text', text: message.content },
      });
    } else if (message.role === 'assistant') {
      updates.push(...answerUpdates(message, context));
      const notice = storedStatusNotice(message);
      if (notice) updates.push(notice);
    }
    // `tool` messages are the model's view of tool results; the tool calls above already show them.
  }
  return updates;
}

function answerUpdates(message: StoredMessage, context: ReplayContext): SessionUpdate[] {
  const nodes = new Map((message.tree?.nodes ?? []).map((node) => [node.id, node]));
  const parts = message.parts ?? [
    ...[...nodes.values()].map((node) => ({ type: 'node' as const, nodeId: node.id })),
    ...(message.content === ''
      ? []
      : [{ type: 'text' as const, nodeId: '', text: message.content }]),
  ];
  const textOf = new Map<string, string>();
  for (const part of parts) {
    if (part.type === 'text') textOf.set(part.nodeId, (textOf.get(part.nodeId) ?? '') + part.text);
  }
  const toolCall = (node: ExecutionTreeNode): SessionUpdate => ({
    sessionUpdate: 'tool_call',
    ...toolCallOf(node, {
      turnId: message.turnId,
      workspaceRoot: context.workspaceRoot,
      catalogue: context.catalogue,
      text: textOf.get(node.id) ?? '',
    }),
  });
  const updates: SessionUpdate[] = [];
  const shown = new Set<string>();
  for (const part of parts) {
    const node = nodes.get(part.nodeId);
    if (part.type === 'text') {
      // Text of a subtask is that tool call's content; the rest is the answer.
      if (node === undefined || node.parentId === null) {
        updates.push({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: part.text },
        });
      }
    } else if (node !== undefined && node.parentId !== null && !shown.has(node.id)) {
      shown.add(node.id);
      updates.push(toolCall(node));
    }
  }
  return updates;
}
