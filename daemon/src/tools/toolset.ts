/**
 * Composes a session's tools for each turn, on the daemon's side only (the
 * client sends no tool list): the workspace tools bound to the session's
 * root and the tools of its background processes (their registry is the
 * toolsets' own, so releasing a session stops them), ask_user when the
 * sending client answers questions, the tools of the
 * workspace's MCP servers (started on the first turn that asks, hence async), plus — in `editor` chat context — the client tools
 * declared by the client that sent the turn's chat/send. A client tool named
 * like one of the daemon's own or an MCP tool is not offered (those win).
 * The workspace tools do their I/O where the session's WorkspaceIo says (the
 * disk unless a client in the daemon's process installed its own).
 */
import type {
  ChatContext,
  ClientCapabilities,
  ClientToolDeclaration,
  ToolServer,
} from '@arbor/protocol';
import type { CommandCatalogue } from '../commands/commandCatalogue.js';
import { readSkillTool } from '../commands/readSkillTool.js';
import { askUserTool } from './askUser.js';
import { createClientTools, type ClientToolHost } from './clientTools.js';
import type { McpHub } from './mcp/mcpHub.js';
import { processTools } from './processes/processTools.js';
import { SessionProcesses } from './processes/sessionProcesses.js';
import { closeWorkspaceIndexes, releaseWorkspaceIndex } from './search/workspaceIndex.js';
import type { Tool } from './tool.js';
import { DAEMON_TOOL_NAMES } from './toolNames.js';
import { createWorkspaceTools } from './workspace/index.js';
import { openWorkspace, type Workspace } from './workspace/workspace.js';
import type { WorkspaceIoFactory } from './workspace/workspaceIo.js';

export interface ToolSender extends ClientToolHost {
  /** Declared in initialize; empty unless both sides advertised clientTools. */
  readonly declaredTools: readonly ClientToolDeclaration[];
  /** What the client negotiated: ask_user is offered to a turn whose sender answers questions. */
  readonly capabilities?: ClientCapabilities;
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
  /** A session's own workspace I/O (an ACP editor's files and terminals); undefined: the disk. */
  workspaceIo?: (sessionId: string) => WorkspaceIoFactory | undefined;
  log?: (message: string) => void;
  /** The daemon's skills: a turn whose workspace or user has some gets read_skill. */
  skills?: CommandCatalogue;
}

export class SessionToolsets implements TurnToolsProvider {
  private readonly workspaces = new Map<
    string,
    { workspace: Workspace; io: WorkspaceIoFactory | undefined; tools: Tool[] }
  >();

  private readonly processes = new SessionProcesses();

  constructor(private readonly options: SessionToolsetsOptions = {}) {}

  async forTurn(request: TurnToolsRequest): Promise<Tool[]> {
    let entry = this.workspaces.get(request.sessionId);
    const io = this.options.workspaceIo?.(request.sessionId);
    if (entry === undefined || entry.workspace.root !== request.workspaceRoot || entry.io !== io) {
      // The same root with other I/O keeps its guard: what the agent saw still counts.
      const guard =
        entry?.workspace.root === request.workspaceRoot ? entry.workspace.guard : undefined;
      if (entry !== undefined && guard === undefined) void entry.workspace.guard.close();
      const workspace = openWorkspace(request.workspaceRoot, {
        watch: this.options.watch ?? true,
        ...(this.options.log && { log: this.options.log }),
        ...(io && { io }),
        ...(guard && { guard }),
      });
      entry = {
        workspace,
        io,
        tools: [
          ...createWorkspaceTools(workspace),
          ...processTools(this.processes, request.sessionId, workspace),
        ],
      };
      this.workspaces.set(request.sessionId, entry);
    }
    const mcpTools =
      (await this.options.mcp?.toolsFor(
        request.sessionId,
        request.workspaceRoot,
        request.signal,
      )) ?? [];
    const { sender } = request;
    const tools = [
      ...entry.tools,
      ...(sender?.capabilities?.questions === undefined ? [] : [askUserTool as Tool]),
      ...(this.options.skills && this.options.skills.read(request.workspaceRoot).skills.length > 0
        ? [this.readSkill(this.options.skills)]
        : []),
      ...mcpTools,
    ];
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

  private readSkillInstance: Tool | undefined;

  /** One read_skill for every turn: it reads the catalogue afresh at each call. */
  private readSkill(catalogue: CommandCatalogue): Tool {
    return (this.readSkillInstance ??= readSkillTool(catalogue));
  }

  serversOf(sessionId: string): ToolServer[] | undefined {
    return this.options.mcp?.serversOf(sessionId);
  }

  /**
   * The session is gone: stop its background processes, stop watching its
   * workspace, and its MCP servers if it was their last.
   */
  release(sessionId: string): void {
    void this.processes.release(sessionId);
    const entry = this.workspaces.get(sessionId);
    this.workspaces.delete(sessionId);
    void entry?.workspace.guard.close();
    // Its search index closes when no other session of that workspace uses it.
    if (entry) releaseWorkspaceIndex(entry.workspace);
    this.options.mcp?.release(sessionId);
  }

  async closeAll(): Promise<void> {
    const entries = [...this.workspaces.values()];
    this.workspaces.clear();
    closeWorkspaceIndexes();
    await Promise.all([
      ...entries.map((e) => e.workspace.guard.close()),
      this.processes.closeAll(),
      this.options.mcp?.closeAll(),
    ]);
  }
}
