/**
 * The daemon's MCP servers, shared per workspace: the sessions of one
 * workspace root use the same server processes, started on the first turn
 * that needs tools, and stopped when the last of those sessions goes (or
 * with the daemon). A turn waits for servers still starting — at most the
 * initialize timeout — and gets the tools of those that are ready.
 */
import type { ToolServer } from '@arbor/protocol';
import type { McpConfig } from '../../config/mcpConfig.js';
import type { LogLevel } from '../../logging/logger.js';
import type { Tool } from '../tool.js';
import { ManagedMcpServer, type McpServerStatus } from './managedMcpServer.js';
import { workspaceMcpServers } from './mcpServerSources.js';
import { mcpOrigin } from './mcpToolNames.js';

export interface McpHubOptions {
  config: McpConfig;
  /** Sent to servers as the client's version. */
  clientVersion: string;
  log?: (level: LogLevel, message: string) => void;
}

export interface WorkspaceMcpStatus {
  servers: McpServerStatus[];
  /** Problems with the workspace file (its servers are then missing). */
  problems: string[];
}

interface WorkspaceGroup {
  servers: ManagedMcpServer[];
  problems: string[];
  sessions: Set<string>;
}

export class McpHub {
  private readonly groups = new Map<string, WorkspaceGroup>();
  private readonly sessionRoots = new Map<string, string>();

  constructor(private readonly options: McpHubOptions) {}

  /**
   * The MCP tools a turn of this session gets now (starting the workspace's
   * servers). A cancelled turn stops waiting for servers still starting:
   * they go on starting for the next turn.
   */
  async toolsFor(sessionId: string, workspaceRoot: string, signal?: AbortSignal): Promise<Tool[]> {
    const group = this.join(sessionId, workspaceRoot);
    await untilAborted(Promise.all(group.servers.map((server) => server.ensureStarted())), signal);
    return group.servers.flatMap((server) => server.readyTools());
  }

  /**
   * The servers of the session's workspace as tools/list reports them
   * (tools.md#tools-list-servers), as they are now: call after toolsFor,
   * which starts them. Empty for a session no turn has asked tools for.
   */
  serversOf(sessionId: string): ToolServer[] {
    const root = this.sessionRoots.get(sessionId);
    const group = root === undefined ? undefined : this.groups.get(root);
    return (group?.servers ?? []).map((server) => toolServer(server.status()));
  }

  /** Each server of the workspace after trying to start it (`arbor mcp list`). */
  async statusOf(workspaceRoot: string): Promise<WorkspaceMcpStatus> {
    const group = this.group(workspaceRoot);
    await Promise.all(group.servers.map((server) => server.ensureStarted()));
    return { servers: group.servers.map((server) => server.status()), problems: group.problems };
  }

  /** The session is gone: the last one of a workspace stops its servers. */
  release(sessionId: string): void {
    const root = this.sessionRoots.get(sessionId);
    this.sessionRoots.delete(sessionId);
    if (root === undefined) return;
    const group = this.groups.get(root);
    group?.sessions.delete(sessionId);
    if (group === undefined || group.sessions.size > 0) return;
    this.groups.delete(root);
    void Promise.all(group.servers.map((server) => server.stop()));
  }

  async closeAll(): Promise<void> {
    const groups = [...this.groups.values()];
    this.groups.clear();
    this.sessionRoots.clear();
    await Promise.all(groups.flatMap((group) => group.servers.map((server) => server.stop())));
  }

  /** Synchronously, at process exit: no server process outlives the daemon. */
  killAll(): void {
    for (const group of this.groups.values()) for (const server of group.servers) server.kill();
  }

  private join(sessionId: string, workspaceRoot: string): WorkspaceGroup {
    const previous = this.sessionRoots.get(sessionId);
    if (previous !== undefined && previous !== workspaceRoot) this.release(sessionId);
    const group = this.group(workspaceRoot);
    group.sessions.add(sessionId);
    this.sessionRoots.set(sessionId, workspaceRoot);
    return group;
  }

  private group(workspaceRoot: string): WorkspaceGroup {
    let group = this.groups.get(workspaceRoot);
    if (group !== undefined) return group;
    const log = this.options.log ?? (() => undefined);
    const { servers, problems } = workspaceMcpServers(this.options.config, workspaceRoot);
    for (const problem of problems) log('warn', problem);
    group = {
      servers: servers.map(
        (server) =>
          new ManagedMcpServer(server, {
            workspaceRoot,
            initializeTimeoutMs: this.options.config.initializeTimeoutMs,
            callTimeoutMs: this.options.config.callTimeoutMs,
            emitProgress: this.options.config.emitProgress,
            clientVersion: this.options.clientVersion,
            log,
          }),
      ),
      problems,
      sessions: new Set(),
    };
    this.groups.set(workspaceRoot, group);
    return group;
  }
}

/** A server's status in protocol terms: `stopped` (between restarts, or not yet started) is `starting`. */
function toolServer(status: McpServerStatus): ToolServer {
  const ready = status.state === 'ready';
  return {
    origin: mcpOrigin(status.name),
    status: status.state === 'stopped' ? 'starting' : status.state,
    ...(status.message === undefined ? {} : { message: status.message }),
    ...(ready ? { toolCount: status.tools.length } : {}),
  };
}

/** Settles with `work`, or as soon as `signal` aborts (never rejects: ensureStarted does not). */
async function untilAborted(
  work: Promise<unknown>,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (signal === undefined) {
    await work;
    return;
  }
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}
