/**
 * One configured MCP server of a workspace through its life: started on
 * first need, its tools rebuilt when its list changes, restarted with
 * exponential backoff after it dies, stopped with its workspace. Every
 * failure becomes its status (state + message) and the absence of its tools;
 * nothing here throws into a turn.
 */
import type { ToolCategory } from '@arbor/protocol';
import type { McpServerConfig } from '../../config/mcpConfig.js';
import type { LogLevel } from '../../logging/logger.js';
import { daemonSecrets } from '../../security/secretRedactor.js';
import type { Tool, ToolContext, ToolOutput } from '../tool.js';
import { callMcpTool } from './mcpCall.js';
import { connectMcpServer, type McpConnection } from './mcpConnection.js';
import type { NamedMcpServer } from './mcpServerSources.js';
import { serverSecrets } from './mcpSecrets.js';
import { createMcpTools } from './mcpTools.js';

export type McpServerState = 'stopped' | 'starting' | 'ready' | 'error' | 'disabled';

export interface McpServerStatus {
  name: string;
  /** `config` or the workspace file it comes from. */
  source: string;
  state: McpServerState;
  /** Why it is in error; what was left out when ready. */
  message?: string;
  /** Its tools when ready, by the names the model calls them. */
  tools: { name: string; category: ToolCategory }[];
}

export interface McpServerOptions {
  workspaceRoot: string;
  initializeTimeoutMs: number;
  callTimeoutMs: number;
  emitProgress: boolean;
  clientVersion: string;
  log(level: LogLevel, message: string): void;
}

/**
 * After a failure the next attempt waits 1 s, doubling up to 30 s. A failed
 * start is tried again by the next turn that needs tools once that wait is
 * over; a crashed server is restarted by itself, up to 5 times in a row.
 */
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
const MAX_AUTOMATIC_RESTARTS = 5;
/** A server that ran this long before dying starts its backoff afresh. */
const STABLE_MS = 60_000;

export class ManagedMcpServer {
  private state: McpServerState;
  private message: string | undefined;
  private connection: McpConnection | undefined;
  private starting: Promise<void> | undefined;
  private tools: Tool[] = [];
  private failures = 0;
  private nextAttemptAt = 0;
  private readyAt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Gives up a start still under way when the server is stopped. */
  private readonly stopping = new AbortController();

  constructor(
    readonly server: NamedMcpServer,
    private readonly options: McpServerOptions,
  ) {
    this.state = server.config.disabled === true ? 'disabled' : 'stopped';
    this.message = server.disabledBecause;
    if (server.failedBecause !== undefined) {
      this.state = 'error';
      this.message = server.failedBecause;
      options.log('warn', `${server.name}: ${server.failedBecause}`);
    }
    // Before the first start: whatever the server says from now on is redacted of these.
    daemonSecrets.add(...serverSecrets(server.config));
  }

  get name(): string {
    return this.server.name;
  }

  private get config(): McpServerConfig {
    return this.server.config;
  }

  /** Starts the server unless it is running, starting, disabled or backing off. Never rejects. */
  ensureStarted(): Promise<void> {
    if (this.stopped || this.state === 'disabled' || this.state === 'ready')
      return Promise.resolve();
    // Its definition cannot work until the config (or the environment) changes.
    if (this.server.failedBecause !== undefined) return Promise.resolve();
    if (this.starting) return this.starting;
    if (Date.now() < this.nextAttemptAt) return Promise.resolve();
    return this.start();
  }

  /** The tools of a ready server; none otherwise. */
  readyTools(): Tool[] {
    return this.state === 'ready' ? this.tools : [];
  }

  status(): McpServerStatus {
    return {
      name: this.name,
      source: this.server.source,
      state: this.state,
      ...(this.message === undefined ? {} : { message: this.message }),
      tools: this.readyTools().map((tool) => ({ name: tool.name, category: tool.category })),
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    clearTimeout(this.retryTimer);
    const connection = this.connection;
    this.connection = undefined;
    if (this.state !== 'disabled') this.setState('stopped', undefined);
    await connection?.close().catch(() => undefined);
  }

  /** At process exit, when nothing can be awaited: the child must not outlive the daemon. */
  kill(): void {
    const pid = this.connection?.pid;
    if (pid === null || pid === undefined) return;
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }

  private start(): Promise<void> {
    clearTimeout(this.retryTimer);
    this.setState('starting', undefined);
    // Set once connected; the callbacks below only act on the connection they belong to.
    let connection: McpConnection | undefined;
    const attempt = connectMcpServer({
      name: this.name,
      config: this.config,
      workspaceRoot: this.options.workspaceRoot,
      initializeTimeoutMs: this.options.initializeTimeoutMs,
      signal: this.stopping.signal,
      clientVersion: this.options.clientVersion,
      log: this.options.log,
      onClosed: (reason) => this.onCrash(connection, reason),
      onToolsChanged: (tools) => {
        if (this.connection !== connection) return;
        this.options.log('info', `${this.name}: tool list changed (${tools.length} tools)`);
        this.buildTools(tools);
      },
    });
    const starting = attempt
      .then(
        async (connected) => {
          connection = connected;
          if (this.stopped) {
            await connected.close().catch(() => undefined);
            return;
          }
          // It may have died between its answer and now: onCrash ignored it then.
          if (connected.isClosed) {
            const tail = connected.stderrTail();
            this.onFailure(
              `the server exited right after starting${tail ? ` (stderr: ${tail})` : ''}`,
            );
            return;
          }
          this.connection = connected;
          this.readyAt = Date.now();
          this.buildTools(connected.tools);
          this.options.log('info', `${this.name}: ready with ${this.tools.length} tools`);
        },
        (error: unknown) => {
          if (!this.stopped) this.onFailure(error instanceof Error ? error.message : String(error));
        },
      )
      .finally(() => (this.starting = undefined));
    this.starting = starting;
    return starting;
  }

  private buildTools(infos: Parameters<typeof createMcpTools>[2]): void {
    const built = createMcpTools(this.name, this.config, infos, (tool, args, ctx) =>
      this.call(tool, args, ctx),
    );
    this.tools = built.tools;
    this.setState(
      'ready',
      built.leftOut.length === 0 ? undefined : `tools left out: ${built.leftOut.join('; ')}`,
    );
  }

  private async call(tool: string, args: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const connection = this.connection;
    if (this.state !== 'ready' || connection === undefined) {
      return {
        content: `MCP server ${this.name} is not available (${this.state}${this.message ? `: ${this.message}` : ''}); continue without ${tool}.`,
        isError: true,
      };
    }
    return callMcpTool(connection, tool, args, ctx, {
      server: this.name,
      callTimeoutMs: this.options.callTimeoutMs,
      emitProgress: this.options.emitProgress,
    });
  }

  private onCrash(connection: McpConnection | undefined, reason: string): void {
    // A connection that never got ready fails its start instead.
    if (connection === undefined || this.connection !== connection || this.stopped) return;
    this.connection = undefined;
    this.tools = [];
    if (Date.now() - this.readyAt >= STABLE_MS) this.failures = 0;
    const delay = this.onFailure(reason);
    // A server that worked is brought back without waiting for a turn to need it.
    if (this.failures > MAX_AUTOMATIC_RESTARTS) return;
    this.options.log('info', `${this.name}: restarting in ${delay} ms`);
    this.retryTimer = setTimeout(() => void this.ensureStarted(), delay);
    // The daemon may exit while a restart waits.
    this.retryTimer.unref();
  }

  /** Records a failed start or a crash; returns the backoff before the next attempt. */
  private onFailure(reason: string): number {
    this.failures += 1;
    const delay = Math.min(FIRST_RETRY_MS * 2 ** (this.failures - 1), MAX_RETRY_MS);
    this.nextAttemptAt = Date.now() + delay;
    this.setState('error', reason);
    return delay;
  }

  private setState(state: McpServerState, message: string | undefined): void {
    const changed = state !== this.state || message !== this.message;
    this.state = state;
    this.message = message === undefined ? undefined : daemonSecrets.redact(message);
    if (changed && state === 'error')
      this.options.log('warn', `${this.name}: ${this.message ?? state}`);
  }
}
