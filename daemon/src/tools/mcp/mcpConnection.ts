/**
 * One live connection to an MCP server through the official SDK: a stdio
 * child process or a Streamable HTTP endpoint, initialized and with its tool
 * list fetched within the initialize timeout. It reports its own end (a
 * crash, a closed stream) and tool-list changes; it never restarts itself.
 */
import { isAbsolute, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../config/mcpConfig.js';
import type { LogLevel } from '../../logging/logger.js';
import { daemonSecrets } from '../../security/secretRedactor.js';
import { scrubEnv } from '../../security/secretEnv.js';

/** Pages of tools/list read at most: a server that pages forever is cut off. */
const MAX_TOOL_PAGES = 20;
/** How much of a stdio server's last stderr output a status message quotes. */
const STDERR_TAIL_CHARS = 600;

export interface McpConnectOptions {
  name: string;
  config: McpServerConfig;
  workspaceRoot: string;
  initializeTimeoutMs: number;
  /** Aborting gives up the start (the server's workspace is going away). */
  signal: AbortSignal;
  clientVersion: string;
  /** The server ended the connection by itself (not close()): why, for its status. */
  onClosed(reason: string): void;
  /** notifications/tools/list_changed, with the refetched list. */
  onToolsChanged(tools: McpToolInfo[]): void;
  log(level: LogLevel, message: string): void;
}

export interface McpConnection {
  readonly client: Client;
  readonly tools: McpToolInfo[];
  /** A stdio server's process id (for the kill at daemon exit); null over HTTP. */
  readonly pid: number | null;
  /** The connection ended (the server exited, the stream closed, or close()). */
  readonly isClosed: boolean;
  /** What the server last wrote to stderr, redacted (for error messages). */
  stderrTail(): string;
  close(): Promise<void>;
}

export async function connectMcpServer(options: McpConnectOptions): Promise<McpConnection> {
  const { name } = options;
  let stderr = '';
  let closing = false;
  let closed = false;
  const transport = createTransport(options, (text) => {
    stderr = (stderr + text).slice(-STDERR_TAIL_CHARS * 2);
    for (const line of text.split('\n'))
      if (line.trim() !== '') options.log('debug', `${name} stderr: ${daemonSecrets.redact(line)}`);
  });
  const stderrTail = (): string => daemonSecrets.redact(stderr.trim().slice(-STDERR_TAIL_CHARS));
  const client = new Client(
    { name: 'arbor', version: options.clientVersion },
    {
      capabilities: {},
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (closing) return;
            if (error)
              options.log('warn', `${name}: refreshing the tool list failed: ${error.message}`);
            else if (tools) options.onToolsChanged(tools);
          },
        },
      },
    },
  );
  client.onclose = () => {
    closed = true;
    if (closing) return;
    const tail = stderrTail();
    options.onClosed(`the server closed the connection${tail ? ` (stderr: ${tail})` : ''}`);
  };
  // Transport errors also end in onclose when fatal; the rest are worth a log line only.
  client.onerror = (error) =>
    options.log('debug', `${name}: ${daemonSecrets.redact(error.message)}`);

  // Closing the client ends the start: connect() or listTools() rejects.
  const giveUp = (): void => void client.close().catch(() => undefined);
  options.signal.addEventListener('abort', giveUp, { once: true });
  const deadline = Date.now() + options.initializeTimeoutMs;
  const remaining = (): number => Math.max(1, deadline - Date.now());
  try {
    await withDeadline(client.connect(transport, { timeout: remaining() }), remaining());
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: remaining(),
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return {
      client,
      tools,
      pid: transport instanceof StdioClientTransport ? transport.pid : null,
      get isClosed() {
        return closed;
      },
      stderrTail,
      close: async () => {
        closing = true;
        await client.close();
      },
    };
  } catch (error) {
    closing = true;
    if (options.signal.aborted) throw new Error('start abandoned');
    await client.close().catch(() => undefined);
    const tail = stderrTail();
    throw new Error(
      `${startFailure(error, options.initializeTimeoutMs)}${tail ? ` (stderr: ${tail})` : ''}`,
    );
  } finally {
    options.signal.removeEventListener('abort', giveUp);
  }
}

function createTransport(options: McpConnectOptions, onStderr: (text: string) => void): Transport {
  const { config, workspaceRoot } = options;
  if (config.url !== undefined) {
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers ?? {} },
    });
  }
  const cwd = config.cwd === undefined ? workspaceRoot : resolveIn(workspaceRoot, config.cwd);
  const transport = new StdioClientTransport({
    command: config.command!,
    args: config.args ?? [],
    // The daemon's own secrets (provider keys...) stay out; the server's own env goes in.
    env: { ...scrubEnv(process.env), ...config.env },
    cwd,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString('utf8')));
  return transport;
}

function resolveIn(root: string, path: string): string {
  return isAbsolute(path) ? path : resolve(root, path);
}

/** The SDK's timeouts cover requests; this covers a transport that never gets that far. */
async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StartTimeout()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

class StartTimeout extends Error {}

function startFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof StartTimeout || (error as { code?: unknown })?.code === -32001)
    return `did not start within ${timeoutMs} ms`;
  const code = (error as NodeJS.ErrnoException)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ENOENT') return `command not found (${message})`;
  return daemonSecrets.redact(message);
}
