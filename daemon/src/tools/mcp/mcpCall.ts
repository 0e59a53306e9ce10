/**
 * One tools/call on a live connection: bounded by the call timeout (renewed
 * by each progress notification), cancelled with the turn — the SDK then
 * sends notifications/cancelled and the loop ends the node `cancelled` — and
 * with the server's progress as the call's node progress. A failure is an
 * error result the model reads; only the turn's own stop escapes.
 */
import type { NodeProgress } from '@arbor/protocol';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { daemonSecrets } from '../../security/secretRedactor.js';
import type { ToolContext, ToolOutput } from '../tool.js';
import type { McpConnection } from './mcpConnection.js';
import { mcpResultOutput } from './mcpResult.js';

export interface McpCallOptions {
  server: string;
  callTimeoutMs: number;
  /** Progress goes to the tree (the call still asks for it: it renews the timeout). */
  emitProgress: boolean;
}

export async function callMcpTool(
  connection: McpConnection,
  tool: string,
  args: unknown,
  ctx: ToolContext,
  options: McpCallOptions,
): Promise<ToolOutput> {
  // A signal per call: the SDK never removes the abort listener it adds, so
  // the turn's own signal would collect one per call.
  const cancel = new AbortController();
  const onAbort = (): void => cancel.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (ctx.signal.aborted) cancel.abort(ctx.signal.reason);
  try {
    const result = await connection.client.callTool(
      { name: tool, arguments: args as Record<string, unknown> },
      CallToolResultSchema,
      {
        signal: cancel.signal,
        timeout: options.callTimeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => {
          if (options.emitProgress) ctx.progress?.(nodeProgress(progress));
        },
      },
    );
    // Servers of protocol 2024-10-07 answer with a bare toolResult.
    if (!('content' in result)) return daemonSecrets.redact(JSON.stringify(result.toolResult));
    return mcpResultOutput(result as CallToolResult);
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    const message = daemonSecrets.redact(error instanceof Error ? error.message : String(error));
    // A server that died: what it last said is usually the reason.
    const tail = connection.isClosed ? connection.stderrTail() : '';
    return {
      content: `MCP server ${options.server} could not run ${tool}: ${message}${tail ? ` (stderr: ${tail})` : ''}`,
      isError: true,
    };
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

/** An MCP progress notification as node progress; the message may name what a server was given. */
export function nodeProgress(progress: Progress): NodeProgress {
  return {
    progress: Math.max(0, progress.progress),
    ...(progress.total !== undefined && progress.total > 0 ? { total: progress.total } : {}),
    ...(progress.message ? { message: daemonSecrets.redact(progress.message) } : {}),
  };
}
