/**
 * The tool catalogue behind `tools/list` (tools.md#tools-list): the tools a
 * turn's root loop offers the model, built from the pieces a turn is built
 * from — the agent's own tools, the daemon's extra tools, then the session's
 * toolset as SessionToolsets.forTurn composes it for the sending client —
 * each described by toolDefinition(), the function that hands it to the
 * model, and judged by decideCall(), the permission gate's own table.
 *
 * Loaded with the agent (lazyToolCatalogue): it imports the workspace tools.
 */
import type { NamedAgentProfile } from '../agents/agentProfile.js';
import { turnTools } from '../agents/turnProfile.js';
import { tmpdir } from 'node:os';
import type {
  ChatContext,
  PermissionMode,
  ToolInfo,
  ToolPermission,
  ToolsListResult,
} from '@arbor/protocol';
import { RUN_SUBTASK, runSubtaskTool } from '../agent/subtaskTools.js';
import { parallelSubtaskTools, RUN_SUBTASKS } from '../agent/parallelSubtasks/runSubtasks.js';
import { decideCall, knownCategory } from '../permissions/permissionMatrix.js';
import type { PermissionRules, RuleSet } from '../permissions/rules/index.js';
import { askUserTool } from './askUser.js';
import { CommandCatalogue } from '../commands/commandCatalogue.js';
import { readSkillTool } from '../commands/readSkillTool.js';
import { MEMORY_TOOLS } from './memory.js';
import { processTools } from './processes/processTools.js';
import { SessionProcesses } from './processes/sessionProcesses.js';
import { readArtifactTool } from './readArtifact.js';
import { toolDefinition, type Tool } from './tool.js';
import type { ToolSender, TurnToolsProvider } from './toolset.js';
import { createWorkspaceTools, openWorkspace } from './workspace/index.js';

/** The agent's own tools, first in every root loop's belt (unifiedTurnRunner.ts). */
export const AGENT_TOOLS: readonly Tool[] = [
  runSubtaskTool as Tool,
  ...MEMORY_TOOLS,
  readArtifactTool as Tool,
];

/**
 * Calls the agent loop carries out itself, never through the permission gate
 * (loop.ts runOneCall): run_subtask and run_subtasks start loops whose own calls are gated.
 */
const UNGATED: ReadonlySet<string> = new Set([RUN_SUBTASK, RUN_SUBTASKS]);

export function passesPermissionGate(tool: Tool): boolean {
  return !UNGATED.has(tool.name);
}

/**
 * A root loop's belt, in the order the model is offered it: the agent's own
 * tools and the daemon's extra tools, then the session's tools, which never
 * shadow them (a session tool with a taken name is left out). The rule
 * UnifiedTurnRunner.run applies; test/tools/toolsList.test.ts compares the
 * two on real turns, until the runner calls this function itself.
 */
export function composeTurnTools(
  extraTools: readonly Tool[],
  sessionTools: readonly Tool[],
): Tool[] {
  const own = [...AGENT_TOOLS, ...extraTools];
  const taken = new Set(own.map((tool) => tool.name));
  return [...own, ...sessionTools.filter((tool) => !taken.has(tool.name))];
}

let neutralWorkspaceTools: Tool[] | undefined;

/**
 * The daemon's built-in tools, as a thread-context turn of a client that
 * answers questions, without client tools, offers them. Workspace tools bind a root only at call time, so any existing
 * directory yields the same definitions; these are never executed.
 */
export function builtinTools(extraTools: readonly Tool[] = []): Tool[] {
  neutralWorkspaceTools ??= neutralSessionTools();
  return composeTurnTools(extraTools, neutralWorkspaceTools);
}

function neutralSessionTools(): Tool[] {
  const workspace = openWorkspace(tmpdir(), { watch: false });
  return [
    ...createWorkspaceTools(workspace),
    ...processTools(new SessionProcesses(), 'no session', workspace),
    askUserTool as Tool,
    // Its definition does not depend on which folders it reads.
    readSkillTool(new CommandCatalogue(tmpdir())),
  ];
}

export interface ToolCatalogueOptions {
  /** The daemon's toolsets: the very object its sessions compose their turns' tools with. */
  toolsets: TurnToolsProvider;
  /** The always-ask list the permission gate uses. */
  alwaysAsk: readonly string[];
  /** The permission rules the gate uses. */
  rules?: PermissionRules;
  /** Tools the agent adds to every turn (AgentOptions.tools); none in production. */
  extraTools?: readonly Tool[];
}

/** A session as tools/list sees it, and the client that asks. */
export interface SessionToolsQuery {
  sessionId: string;
  workspaceRoot: string;
  chatContext: ChatContext;
  permissionMode: PermissionMode;
  /** The requesting client: the one whose client tools its turns would get. */
  sender: ToolSender | undefined;
  /** The session's agent profile: its turns get only its tools, and its hitlTools ask. */
  agent?: NamedAgentProfile;
}

export class ToolCatalogue {
  private readonly alwaysAsk: ReadonlySet<string>;
  private readonly extraTools: readonly Tool[];

  constructor(private readonly options: ToolCatalogueOptions) {
    this.alwaysAsk = new Set(options.alwaysAsk);
    this.extraTools = options.extraTools ?? [];
  }

  /** tools/list without a session: no `permission`, which depends on a session's mode. */
  builtins(): ToolInfo[] {
    return builtinTools(this.extraTools).map((tool) => describeTool(tool));
  }

  /**
   * tools/list with a session: what a turn of `sender` would offer, with each
   * verdict, and the tool servers those tools come from.
   */
  async forSession(query: SessionToolsQuery): Promise<ToolsListResult> {
    const { toolsets } = this.options;
    const sessionTools = await toolsets.forTurn({
      sessionId: query.sessionId,
      workspaceRoot: query.workspaceRoot,
      chatContext: query.chatContext,
      sender: query.sender,
    });
    let rules: RuleSet | undefined;
    let rulesError: string | undefined;
    try {
      rules = this.options.rules?.forWorkspace(query.workspaceRoot);
    } catch (error) {
      rulesError = (error as Error).message;
    }
    const tools = turnTools(
      query.agent,
      // A profile's run_subtasks, as its turns get it (unifiedTurnRunner.ts).
      composeTurnTools(
        [...this.extraTools, ...parallelSubtaskTools(query.agent?.profile)],
        sessionTools,
      ),
    ).map((tool) =>
      describeTool(
        tool,
        rulesError === undefined
          ? this.permissionOf(tool, query.permissionMode, rules, query.agent)
          : 'block',
      ),
    );
    const servers = toolsets.serversOf(query.sessionId);
    return {
      tools,
      ...(servers === undefined ? {} : { servers }),
      ...(this.options.rules && { rules: rules?.list() ?? [] }),
      ...(rulesError !== undefined && { rulesError }),
    };
  }

  /**
   * The gate's verdict before grants, protected paths and rules with a
   * specifier, which depend on the call; rules naming the whole tool count.
   */
  private permissionOf(
    tool: Tool,
    mode: PermissionMode,
    rules: RuleSet | undefined,
    agent: NamedAgentProfile | undefined,
  ): ToolPermission {
    if (!passesPermissionGate(tool)) return 'run';
    const rule = rules?.decide(tool.name, undefined);
    const verdict = decideCall(mode, {
      category: knownCategory(tool.category),
      alwaysAsk:
        this.alwaysAsk.has(tool.name) || (agent?.profile.hitlTools.includes(tool.name) ?? false),
      protectedPath: false,
      ...(rule && { rule: rule.effect }),
    });
    return verdict === 'deny' ? 'block' : verdict;
  }
}

function describeTool(tool: Tool, permission?: ToolPermission): ToolInfo {
  const offered = toolDefinition(tool);
  return {
    name: offered.name,
    description: offered.description,
    category: knownCategory(tool.category),
    inputSchema: offered.inputSchema,
    parallelSafe: tool.parallelSafe,
    origin: tool.origin ?? 'daemon',
    ...(permission === undefined ? {} : { permission }),
  };
}

/** What the tools/list handler holds: the catalogue, loaded on first use. */
export interface ToolCatalogueSource {
  load(): Promise<ToolCatalogue>;
}
