/**
 * The ACP agent: `initialize`, sessions (new, load, list, delete), prompts,
 * cancel and modes, each answered through the bridge's Arbor client. One
 * AcpSession per session this editor opened; the Arbor session tracker
 * routes its events.
 */
import { isAbsolute } from 'node:path';
import { Methods, type SessionInfo } from '@arbor/protocol';
import {
  loadToolCatalogue,
  type ArborClient,
  type SessionTracker,
  ToolCatalogue,
} from '@arbor/protocol/client';
import {
  PROTOCOL_VERSION,
  RequestError,
  agent,
  methods,
  type AgentApp,
  type AgentContext,
  type ClientCapabilities,
  type McpServer,
} from '@agentclientprotocol/sdk';
import type { Logger } from '../logging/logger.js';
import type { SessionMcpServers, SessionWorkspaceIo } from '../server/startDaemon.js';
import { editorMcpServers } from './acpMcpServers.js';
import { delegatedIo, editorWorkspaceIo } from './editorWorkspaceIo.js';
import { AcpSession } from './acpSession.js';
import { seedCommands } from './availableCommands.js';
import { arborCall } from './arborErrors.js';
import { planEntriesOf } from './planEntries.js';
import { promptText } from './promptText.js';
import { permissionModeOf, sessionModes } from './sessionModes.js';
import { replayUpdates } from './sessionReplay.js';

export interface AcpAgentOptions {
  arbor: ArborClient;
  tracker: SessionTracker;
  version: string;
  /** The model of sessions this bridge creates (`--connect --model`). */
  sessionModel: string | undefined;
  /**
   * Runs the MCP servers the editor passes, for the daemon in this process;
   * absent (`--connect`): they are refused, the Arbor protocol cannot pass them.
   */
  mcpServers?: SessionMcpServers;
  /**
   * Lets the editor's files and terminals serve the workspace tools of the
   * sessions it opens, for the daemon in this process; absent (`--connect`):
   * the daemon's disk, the Arbor protocol cannot delegate them.
   */
  workspaceIo?: SessionWorkspaceIo;
  log: Logger;
}

export function createAcpAgent(options: AcpAgentOptions): AgentApp {
  const { arbor, tracker, log } = options;
  const runsMcpServers = options.mcpServers !== undefined;
  const sessions = new Map<string, AcpSession>();
  /** What the editor advertised in initialize: its files and terminals serve the tools. */
  let clientCapabilities: ClientCapabilities | undefined;
  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };

  /** Starts bridging a session the tracker follows, at once: no event of it may pass unseen. */
  const open = (info: SessionInfo, catalogue: ToolCatalogue, editor: AgentContext): AcpSession => {
    const view = tracker.get(info.sessionId);
    if (!view) throw new Error(`session ${info.sessionId} is not tracked`);
    sessions.get(info.sessionId)?.dispose();
    const session = new AcpSession({
      arbor,
      view,
      workspaceRoot: info.workspaceRoot,
      catalogue,
      editor,
      editorCapabilities: clientCapabilities,
      log: (message) => log.warn(`acp ${info.sessionId}: ${message}`),
    });
    sessions.set(info.sessionId, session);
    return session;
  };

  /**
   * Lets the editor's files and terminals serve the session's workspace
   * tools, as far as it advertised them (before any of its turns).
   */
  const delegateIo = (sessionId: string, editor: AgentContext): void => {
    if (options.workspaceIo === undefined) return;
    const io = editorWorkspaceIo({
      editor,
      sessionId,
      capabilities: clientCapabilities,
      showTerminal: (ctx, terminalId) =>
        sessions.get(sessionId)?.showTerminal(ctx.turnId, ctx.nodeId, terminalId),
      log: (message) => log.warn(`acp ${sessionId}: ${message}`),
    });
    options.workspaceIo.set(sessionId, io);
    if (io !== undefined)
      log.info(`acp ${sessionId}: the editor serves ${delegatedIo(clientCapabilities).join(', ')}`);
  };

  /** The session's slash commands, to the editor as available_commands_update. */
  const announceCommands = async (sessionId: string): Promise<void> => {
    const view = tracker.get(sessionId);
    if (view)
      await seedCommands(arbor, view, (message) => log.warn(`acp ${sessionId}: ${message}`));
  };

  return agent({ name: 'arbor' })
    .onRequest(methods.agent.initialize, ({ params }) => {
      clientCapabilities = params.clientCapabilities;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          // Only a daemon in this process can be given the editor's servers (see daemon/docs/acp.md).
          mcpCapabilities: { http: runsMcpServers, sse: false },
          sessionCapabilities: { list: {}, delete: {} },
        },
        agentInfo: { name: 'arbor', title: 'Arbor', version: options.version },
        authMethods: [],
      };
    })
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      checkCwd(params.cwd);
      const { session: info } = await arborCall(() =>
        tracker.create({
          workspaceRoot: params.cwd,
          ...(options.sessionModel === undefined ? {} : { model: options.sessionModel }),
        }),
      );
      const given = giveMcpServers(options, info.sessionId, info.workspaceRoot, params.mcpServers);
      delegateIo(info.sessionId, client);
      // Lists the session's tools, which starts its MCP servers: their tools get titles and kinds.
      const catalogue = await catalogueOf(arbor, info.sessionId, log);
      open(info, catalogue, client);
      // Not awaited: the list's round trip lets this response reach the editor before the update.
      void announceCommands(info.sessionId);
      return {
        sessionId: info.sessionId,
        modes: sessionModes(info.permissionMode),
        ...mcpServersMeta(given, catalogue, log),
      };
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      const { sessionId } = params;
      const loaded = await arborCall(
        () => arbor.request(Methods.SessionLoad, { sessionId }),
        sessionId,
      );
      const given = giveMcpServers(
        options,
        sessionId,
        loaded.session.workspaceRoot,
        params.mcpServers,
      );
      delegateIo(sessionId, client);
      const catalogue = await catalogueOf(arbor, sessionId, log);
      // Idle: attached from the loaded seq, so nothing after the load is missed.
      // A turn running: attached without replay, for a snapshot of that turn
      // (its tree, text and pending approvals), which is not stored yet.
      const since = loaded.session.state === 'idle' ? (loaded.lastSeq ?? null) : null;
      await arborCall(
        () => tracker.attach(sessionId, { role: 'controller', sinceSeq: since }),
        sessionId,
      );
      const session = open(loaded.session, catalogue, client);
      await session.replay([
        ...replayUpdates(loaded.messages, {
          workspaceRoot: loaded.session.workspaceRoot,
          catalogue,
        }),
        // The plan the session had (sessions.md#sessions-load-plan), after its history.
        ...(loaded.plan?.length
          ? [{ sessionUpdate: 'plan' as const, entries: planEntriesOf(loaded.plan) }]
          : []),
      ]);
      void announceCommands(sessionId);
      return {
        modes: sessionModes(loaded.session.permissionMode),
        ...mcpServersMeta(given, catalogue, log),
      };
    })
    .onRequest(methods.agent.session.list, async ({ params }) => {
      const listed = await arborCall(() =>
        arbor.request(Methods.SessionList, {
          ...(params.cwd ? { workspaceRoot: params.cwd } : {}),
          ...(params.cursor ? { cursor: params.cursor } : {}),
        }),
      );
      return {
        sessions: listed.sessions.map((info) => ({
          sessionId: info.sessionId,
          cwd: info.workspaceRoot,
          title: info.title,
          updatedAt: info.updatedAt,
        })),
        ...(listed.nextCursor === undefined ? {} : { nextCursor: listed.nextCursor }),
      };
    })
    .onRequest(methods.agent.session.delete, async ({ params }) => {
      const { sessionId } = params;
      sessions.get(sessionId)?.dispose();
      sessions.delete(sessionId);
      tracker.forget(sessionId);
      await arborCall(() => arbor.request(Methods.SessionDelete, { sessionId }), sessionId);
      return {};
    })
    .onRequest(methods.agent.session.prompt, ({ params, signal }) =>
      sessionOf(params.sessionId).prompt(promptText(params.prompt), signal),
    )
    .onNotification(methods.agent.session.cancel, ({ params }) =>
      sessions.get(params.sessionId)?.cancel(),
    )
    .onRequest(methods.agent.session.setMode, async ({ params }) => {
      const mode = permissionModeOf(params.modeId);
      await arborCall(() => sessionOf(params.sessionId).setMode(mode), params.sessionId);
      return {};
    });
}

function checkCwd(cwd: string): void {
  if (!isAbsolute(cwd)) {
    throw RequestError.invalidParams({ cwd }, 'cwd must be an absolute path');
  }
}

/** The session's tools, for titles and kinds of tools the bridge does not know by name. */
async function catalogueOf(
  arbor: ArborClient,
  sessionId: string,
  log: Logger,
): Promise<ToolCatalogue> {
  try {
    return await loadToolCatalogue(arbor, sessionId);
  } catch (error) {
    log.warn(`acp: tools/list failed, tool calls are named by tool only: ${String(error)}`);
    return new ToolCatalogue();
  }
}

/** What became of the MCP servers the editor passed for a session. */
interface GivenMcpServers {
  /** Run for the session: editor name and server name. */
  run: { name: string; as: string }[];
  refused: { name: string; reason: string }[];
}

/**
 * Hands the editor's servers to the daemon as the session's own (replacing
 * those a previous session/new or session/load gave it); with `--connect`
 * every one is refused.
 */
function giveMcpServers(
  options: AcpAgentOptions,
  sessionId: string,
  workspaceRoot: string,
  servers: readonly McpServer[],
): GivenMcpServers {
  const { log } = options;
  if (options.mcpServers === undefined) {
    const reason =
      'a daemon reached with --connect cannot be given MCP servers over the Arbor protocol';
    return { run: [], refused: servers.map((server) => ({ name: server.name, reason })) };
  }
  const converted = editorMcpServers(servers);
  for (const { name, as } of converted.names) {
    if (name !== as)
      log.info(
        `acp ${sessionId}: MCP server "${name}" runs as ${as} (its tools are mcp__${as}__*)`,
      );
  }
  options.mcpServers.set(sessionId, workspaceRoot, converted.servers);
  return { run: converted.names, refused: converted.refused };
}

/**
 * The answer's `_meta.arbor`: how each server the editor passed is doing
 * (`mcpServers`, from tools/list) and those not run, with why
 * (`unsupported`); both also logged, so a failing server is never silent.
 */
function mcpServersMeta(
  given: GivenMcpServers,
  catalogue: ToolCatalogue,
  log: Logger,
): { _meta?: Record<string, unknown> } {
  const arbor: Record<string, unknown> = {};
  if (given.run.length > 0) {
    arbor['mcpServers'] = given.run.map(({ name, as: server }) => {
      const status = catalogue.servers.find((listed) => listed.origin === `mcp:${server}`);
      if (status?.status === 'error')
        log.warn(`acp: MCP server ${name} failed: ${status.message ?? 'unknown error'}`);
      const { origin: _origin, ...rest } = status ?? { origin: '', status: 'starting' };
      return { name, server, ...rest };
    });
  }
  if (given.refused.length > 0) {
    const names = given.refused.map((refused) => refused.name);
    const reason = given.refused.map((refused) => `${refused.name}: ${refused.reason}`).join('; ');
    log.warn(`acp: MCP servers from the editor not run: ${reason}`);
    arbor['unsupported'] = { mcpServers: names, reason };
  }
  return Object.keys(arbor).length === 0 ? {} : { _meta: { arbor } };
}
