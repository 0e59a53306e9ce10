/**
 * Composes a session's tools for each turn, on the daemon's side only (the
 * client sends no tool list): the workspace tools bound to the session's
 * root, the tools of the workspace's MCP servers (started on the first turn
 * that asks, hence async), plus — in `editor` chat context — the client tools
 * declared by the client that sent the turn's chat/send. A client tool named
 * like one of the daemon's own or an MCP tool is not offered (those win).
 */
import type { ChatContext, ClientToolDeclaration, ToolServer } from '@arbor/protocol';
import { createClientTools, type ClientToolHost } from './clientTools.js';
import type { McpHub } from './mcp/mcpHub.js';
import type { Tool } from './tool.js';
import { DAEMON_TOOL_NAMES } from './toolNames.js';
import { createWorkspaceTools } from './workspace/index.js';
import { openWorkspace, type Workspace } from './workspace/workspace.js';

export interface ToolSender extends ClientToolHost {
  /** Declared in initialize; empty unless both sides advertised clientTools. */
  readonly declaredTools: readonly ClientToolDeclaration[];
}

/** What a session needs to get its tools for a turn. */
export interface TurnToolsProvider {
  forTurn(request: TurnToolsRequest): Promise<Tool[]>;
  /**
   * The tool servers behind the session's last forTurn, and how each is
   * doing (tools.md#tools-list-servers); undefined when the daemon takes no
   * tools from servers.
   */
  serversOf(sessionId: string): ToolServer[] | undefined;
  release(sessionId: string): void;
}

export interface TurnToolsRequest {
  sessionId: string;
  workspaceRoot: string;
  chatContext: ChatContext;
  /** The client that sent the turn's chat/send, when it is still connected. */
  sender: ToolSender | undefined;
  /** The turn's: once it aborts, servers still starting are not waited for. */
  signal?: AbortSignal;
}

export interface SessionToolsetsOptions {
  /** Names of the agent's own tools (run_subtask, memory tools): client tools never shadow them. */
  builtinNames?: readonly string[];
  /** Watch workspaces for the stale-write guard (default true). */
  watch?: boolean;
  /** The daemon's MCP servers; absent: no MCP tools. */
  mcp?: McpHub;
  log?: (message: string) => void;
}

export class SessionToolsets implements TurnToolsProvider {
  private readonly workspaces = new Map<string, { workspace: Workspace; tools: Tool[] }>();

  constructor(private readonly options: SessionToolsetsOptions = {}) {}

  async forTurn(request: TurnToolsRequest): Promise<Tool[]> {
    let entry = this.workspaces.get(request.sessionId);
    if (entry === undefined || entry.workspace.root !== request.workspaceRoot) {
      const workspace = openWorkspace(request.workspaceRoot, {
        watch: this.options.watch ?? true,
        ...(this.options.log && { log: this.options.log }),
      });
      entry = { workspace, tools: createWorkspaceTools(workspace) };
      this.workspaces.set(request.sessionId, entry);
    }
    const mcpTools =
      (await this.options.mcp?.toolsFor(
        request.sessionId,
        request.workspaceRoot,
        request.signal,
      )) ?? [];
    const tools = [...entry.tools, ...mcpTools];
    const { sender } = request;
    if (request.chatContext.kind === 'editor' && sender && sender.declaredTools.length > 0) {
      const taken = new Set<string>([
        ...DAEMON_TOOL_NAMES,
        ...(this.options.builtinNames ?? []),
        ...mcpTools.map((tool) => tool.name),
      ]);
      const offered = sender.declaredTools.filter((declaration) => {
        if (!taken.has(declaration.name)) return true;
        this.options.log?.(
          `client tool ${declaration.name} of ${sender.clientId} not offered: the daemon has a tool of that name`,
        );
        return false;
      });
      tools.push(...createClientTools(offered, sender, request.sessionId, this.options.log));
    }
    return tools;
  }

  serversOf(sessionId: string): ToolServer[] | undefined {
    return this.options.mcp?.serversOf(sessionId);
  }

  /** The session is gone: stop watching its workspace, and its MCP servers if it was their last. */
  release(sessionId: string): void {
    const entry = this.workspaces.get(sessionId);
    this.workspaces.delete(sessionId);
    void entry?.workspace.guard.close();
    this.options.mcp?.release(sessionId);
  }

  async closeAll(): Promise<void> {
    const entries = [...this.workspaces.values()];
    this.workspaces.clear();
    await Promise.all([
      ...entries.map((e) => e.workspace.guard.close()),
      this.options.mcp?.closeAll(),
    ]);
  }
}
