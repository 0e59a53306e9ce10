/**
 * The daemon's MCP servers, shared per workspace: the sessions of one
 * workspace root use the same server processes, started on the first turn
 * that needs tools, and stopped when the last of those sessions goes (or
 * with the daemon). A turn waits for servers still starting — at most the
 * initialize timeout — and gets the tools of those that are ready.
 *
 * The workspace's `.arbor/mcp.json` is read again whenever it changed, from
 * the next turn on: unchanged servers keep running, the others are stopped or
 * started. A session may also have servers of its own (those an ACP editor
 * passes): run for it alone, and in its turns they replace the workspace's
 * servers of the same name.
 */
import { join } from 'node:path';
import type { ToolServer } from '@arbor/protocol';
import type { McpConfig, McpServers } from '../../config/mcpConfig.js';
import type { LogLevel } from '../../logging/logger.js';
import type { Tool } from '../tool.js';
import { ManagedMcpServer, type McpServerStatus } from './managedMcpServer.js';
import {
  WORKSPACE_MCP_FILE,
  workspaceFileState,
  workspaceMcpServers,
  type NamedMcpServer,
} from './mcpServerSources.js';
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

/** The source a session's own servers have in their status and the logs. */
const SESSION_SOURCE = 'session';

interface WorkspaceGroup {
  servers: ManagedMcpServer[];
  problems: string[];
  sessions: Set<string>;
  /** The workspace file as last read: a turn that finds it otherwise reloads the servers. */
  fileState: string | undefined;
}

interface OwnServers {
  workspaceRoot: string;
  servers: ManagedMcpServer[];
  /** Workspace servers already logged as replaced in this session. */
  replaced: Set<string>;
}

export class McpHub {
  private readonly groups = new Map<string, WorkspaceGroup>();
  private readonly sessionRoots = new Map<string, string>();
  private readonly ownServers = new Map<string, OwnServers>();
  private readonly log = (level: LogLevel, message: string): void =>
    this.options.log?.(level, message);

  constructor(private readonly options: McpHubOptions) {}

  /**
   * The MCP tools a turn of this session gets now (starting the workspace's
   * servers and its own). A cancelled turn stops waiting for servers still starting:
   * they go on starting for the next turn.
   */
  async toolsFor(sessionId: string, workspaceRoot: string, signal?: AbortSignal): Promise<Tool[]> {
    const servers = this.serversFor(sessionId, this.join(sessionId, workspaceRoot));
    await untilAborted(Promise.all(servers.map((server) => server.ensureStarted())), signal);
    return servers.flatMap((server) => server.readyTools());
  }

  /**
   * The servers of the session (its workspace's and its own) as tools/list
   * reports them (tools.md#tools-list-servers), as they are now: call after
   * toolsFor, which starts them. Only its own for a session no turn has
   * asked tools for yet.
   */
  serversOf(sessionId: string): ToolServer[] {
    const root = this.sessionRoots.get(sessionId);
    const group = root === undefined ? undefined : this.groups.get(root);
    return this.serversFor(sessionId, group).map((server) => toolServer(server.status()));
  }

  /**
   * Gives the session servers of its own — trusted: the user configured them
   * in the client that passes them — in place of those it had (unchanged ones
   * keep running). They start with its next turn and stop when it is
   * released; an empty record takes them all away.
   */
  setSessionServers(sessionId: string, workspaceRoot: string, servers: McpServers): void {
    const previous = this.ownServers.get(sessionId);
    this.ownServers.delete(sessionId);
    const wanted: NamedMcpServer[] = Object.entries(servers).map(([name, config]) => ({
      name,
      config,
      source: SESSION_SOURCE,
    }));
    const sameRoot = previous !== undefined && previous.workspaceRoot === workspaceRoot;
    if (previous !== undefined && !sameRoot) stopAll(previous.servers);
    const next = this.reconcile(sameRoot ? previous.servers : [], wanted, workspaceRoot);
    if (next.length === 0) return;
    this.ownServers.set(sessionId, { workspaceRoot, servers: next, replaced: new Set() });
  }

  /** Each server of the workspace after trying to start it (`arbor mcp list`). */
  async statusOf(workspaceRoot: string): Promise<WorkspaceMcpStatus> {
    const group = this.group(workspaceRoot);
    await Promise.all(group.servers.map((server) => server.ensureStarted()));
    return { servers: group.servers.map((server) => server.status()), problems: group.problems };
  }

  /** The session is gone: its own servers stop, and the last one of a workspace stops the workspace's. */
  release(sessionId: string): void {
    this.leave(sessionId);
    const own = this.ownServers.get(sessionId);
    this.ownServers.delete(sessionId);
    if (own !== undefined) stopAll(own.servers);
  }

  async closeAll(): Promise<void> {
    const servers = this.allServers();
    this.groups.clear();
    this.sessionRoots.clear();
    this.ownServers.clear();
    await Promise.all(servers.map((server) => server.stop()));
  }

  /** Synchronously, at process exit: no server process outlives the daemon. */
  killAll(): void {
    for (const server of this.allServers()) server.kill();
  }

  private allServers(): ManagedMcpServer[] {
    return [
      ...[...this.groups.values()].flatMap((group) => group.servers),
      ...[...this.ownServers.values()].flatMap((own) => own.servers),
    ];
  }

  /** The servers a turn of the session gets: the workspace's, but those its own replace, then its own. */
  private serversFor(sessionId: string, group: WorkspaceGroup | undefined): ManagedMcpServer[] {
    const shared = group?.servers ?? [];
    const own = this.ownServers.get(sessionId);
    if (own === undefined) return shared;
    const names = new Set(own.servers.map((server) => server.name));
    const kept = shared.filter((server) => {
      if (!names.has(server.name)) return true;
      if (!own.replaced.has(server.name)) {
        own.replaced.add(server.name);
        this.log(
          'info',
          `${server.name}: the session's own server replaces the one from ${server.server.source} in session ${sessionId}`,
        );
      }
      return false;
    });
    return [...kept, ...own.servers];
  }

  private join(sessionId: string, workspaceRoot: string): WorkspaceGroup {
    const previous = this.sessionRoots.get(sessionId);
    if (previous !== undefined && previous !== workspaceRoot) this.leave(sessionId);
    const group = this.group(workspaceRoot);
    group.sessions.add(sessionId);
    this.sessionRoots.set(sessionId, workspaceRoot);
    return group;
  }

  /** The session no longer uses its workspace's servers: the last one to go stops them. */
  private leave(sessionId: string): void {
    const root = this.sessionRoots.get(sessionId);
    this.sessionRoots.delete(sessionId);
    if (root === undefined) return;
    const group = this.groups.get(root);
    group?.sessions.delete(sessionId);
    if (group === undefined || group.sessions.size > 0) return;
    this.groups.delete(root);
    stopAll(group.servers);
  }

  /** The workspace's group, its servers reloaded first when its file changed since last read. */
  private group(workspaceRoot: string): WorkspaceGroup {
    let group = this.groups.get(workspaceRoot);
    if (group === undefined) {
      group = { servers: [], problems: [], sessions: new Set(), fileState: undefined };
      this.groups.set(workspaceRoot, group);
    } else if (group.fileState === workspaceFileState(workspaceRoot)) {
      return group;
    }
    const reloading = group.fileState !== undefined;
    const { servers, problems, fileState } = workspaceMcpServers(
      this.options.config,
      workspaceRoot,
    );
    if (reloading) this.log('info', `${join(workspaceRoot, WORKSPACE_MCP_FILE)} changed`);
    // Only new problems are logged: a reload does not repeat the same warnings.
    for (const problem of problems)
      if (!group.problems.includes(problem)) this.log('warn', problem);
    group.servers = this.reconcile(group.servers, servers, workspaceRoot);
    group.problems = problems;
    group.fileState = fileState;
    return group;
  }

  /**
   * The servers for `wanted`: those of `current` with the same definition
   * as they are (running or not), a new one for each other; the rest of
   * `current` is stopped.
   */
  private reconcile(
    current: readonly ManagedMcpServer[],
    wanted: readonly NamedMcpServer[],
    workspaceRoot: string,
  ): ManagedMcpServer[] {
    const left = new Map(current.map((server) => [server.name, server]));
    const next = wanted.map((named) => {
      const existing = left.get(named.name);
      if (existing !== undefined && sameDefinition(existing.server, named)) {
        left.delete(named.name);
        return existing;
      }
      if (existing !== undefined) this.log('info', `${named.name}: its definition changed`);
      return this.managed(named, workspaceRoot);
    });
    for (const gone of left.values()) {
      const still = next.some((server) => server.name === gone.name);
      if (!still) this.log('info', `${gone.name}: no longer configured, stopped`);
    }
    stopAll([...left.values()]);
    return next;
  }

  private managed(server: NamedMcpServer, workspaceRoot: string): ManagedMcpServer {
    return new ManagedMcpServer(server, {
      workspaceRoot,
      initializeTimeoutMs: this.options.config.initializeTimeoutMs,
      callTimeoutMs: this.options.config.callTimeoutMs,
      emitProgress: this.options.config.emitProgress,
      clientVersion: this.options.clientVersion,
      log: this.log,
    });
  }
}

function stopAll(servers: readonly ManagedMcpServer[]): void {
  void Promise.all(servers.map((server) => server.stop()));
}

function sameDefinition(a: NamedMcpServer, b: NamedMcpServer): boolean {
  return (
    a.source === b.source &&
    a.disabledBecause === b.disabledBecause &&
    a.failedBecause === b.failedBecause &&
    canonicalJson(a.config) === canonicalJson(b.config)
  );
}

/** JSON with object keys sorted: the same definition with its keys reordered is the same. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : inner,
  );
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
