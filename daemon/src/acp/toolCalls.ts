/**
 * One execution-tree node as an ACP tool call: a pure function of the node,
 * the text streamed into it and its arguments, so a live turn and the same
 * turn replayed by `session/load` end in the same tool calls.
 */
import { isAbsolute, resolve } from 'node:path';
import type { ExecutionTreeNode, NodeStatus } from '@arbor/protocol';
import { progressText, type ToolCatalogue } from '@arbor/protocol/client';
import type {
  ToolCall,
  ToolCallContent,
  ToolCallLocation,
  ToolCallStatus,
} from '@agentclientprotocol/sdk';
import { argsOf, stringArg, type ToolArgs } from './toolCallArgs.js';
import { toolKind, toolTitle } from './toolCallKinds.js';

/** Where a node sits, and what else is known about its call. */
export interface NodeContext {
  turnId: string;
  workspaceRoot: string;
  catalogue: ToolCatalogue;
  /** Text streamed into the node: a subtask's own answer. */
  text: string;
  /** The whole arguments, when an approval request carried them. */
  fullArgs?: unknown;
}

/** Node ids are unique within a turn only; ACP wants them unique in the session. */
export function toolCallId(turnId: string, nodeId: string): string {
  return `${turnId}:${nodeId}`;
}

const STATUS: Readonly<Record<NodeStatus, ToolCallStatus>> = {
  pending: 'pending',
  awaiting_approval: 'pending',
  running: 'in_progress',
  done: 'completed',
  error: 'failed',
  cancelled: 'failed',
  denied: 'failed',
  blocked: 'failed',
};

/** How much of a running tool's output goes into its ACP tool call. */
const ACP_OUTPUT_CHARS = 2_000;

export function toolCallOf(node: ExecutionTreeNode, context: NodeContext): ToolCall {
  const args = argsOf(node.argsPreview, context.fullArgs);
  const path = stringArg(args, 'path');
  const filePath = path === undefined ? undefined : resolve(context.workspaceRoot, path);
  const call: ToolCall = {
    toolCallId: toolCallId(context.turnId, node.id),
    title: toolTitle(
      node.name,
      args,
      node.title,
      context.catalogue.summarize(node.name, node.argsPreview),
    ),
    name: node.name,
    kind: toolKind(node.name, context.catalogue.categoryOf(node.name)),
    // An unknown (newer) status is still running as far as we can tell.
    status: STATUS[node.status] ?? 'in_progress',
    content: contentOf(node, args, filePath, context.text),
    locations: locationsOf(node.name, args, filePath),
    rawInput: Object.keys(args).length > 0 ? args : (node.argsPreview ?? {}),
    _meta: { arbor: nodeMeta(node, context.turnId) },
  };
  return call;
}

function contentOf(
  node: ExecutionTreeNode,
  args: ToolArgs,
  filePath: string | undefined,
  text: string,
): ToolCallContent[] {
  const content: ToolCallContent[] = [];
  const diff = filePath === undefined ? undefined : diffOf(node.name, args, filePath);
  if (diff) content.push(diff);
  if (text !== '') content.push(textContent(text));
  // A diff says what a successful edit did; its result text matters only when it failed.
  const showResult = diff === undefined || node.isError === true || node.status !== 'done';
  const progress = progressText(node);
  // A running command's output so far, as the editor's card shows text: its end.
  if (node.status === 'running' && node.output && text === '')
    content.push(textContent(node.output.slice(-ACP_OUTPUT_CHARS)));
  if (progress !== undefined && text === '') content.push(textContent(progress));
  else if (node.resultPreview && showResult && text === '') {
    content.push(textContent(node.resultPreview));
  }
  return content;
}

/**
 * write_file: the new content (the old one is not in the tree, so the diff
 * shows the file as written); edit_file: the replaced text and its replacement.
 */
function diffOf(name: string, args: ToolArgs, path: string): ToolCallContent | undefined {
  if (name === 'write_file') {
    const newText = stringArg(args, 'content');
    return newText === undefined ? undefined : { type: 'diff', path, newText };
  }
  if (name === 'edit_file') {
    const oldText = stringArg(args, 'old');
    const newText = stringArg(args, 'new');
    if (oldText === undefined || newText === undefined) return undefined;
    return { type: 'diff', path, oldText, newText };
  }
  return undefined;
}

const FILE_TOOLS = new Set(['read_file', 'write_file', 'edit_file']);

function locationsOf(
  name: string,
  args: ToolArgs,
  filePath: string | undefined,
): ToolCallLocation[] {
  if (filePath === undefined || !FILE_TOOLS.has(name) || !isAbsolute(filePath)) return [];
  const offset = args['offset'];
  return [typeof offset === 'number' ? { path: filePath, line: offset } : { path: filePath }];
}

function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

/** What ACP has no field for, under `_meta.arbor`: nesting, the exact status, approval, usage. */
function nodeMeta(node: ExecutionTreeNode, turnId: string): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    turnId,
    nodeId: node.id,
    kind: node.kind,
    status: node.status,
    depth: node.depth,
  };
  // A call inside a subtask names the subtask's tool call; calls of the turn itself have no parent.
  if (node.depth > 0 && node.parentId !== null) {
    meta['parentToolCallId'] = toolCallId(turnId, node.parentId);
  }
  if (node.approval !== undefined) meta['approval'] = node.approval;
  if (node.durationMs !== undefined) meta['durationMs'] = node.durationMs;
  if (node.usage !== undefined) meta['usage'] = node.usage;
  if (node.cost !== undefined) meta['cost'] = node.cost;
  return meta;
}
