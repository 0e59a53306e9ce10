/**
 * Assembles a daemon from its configuration: logger, the store in the data
 * dir, sessions, the lazily created agent, and the chosen transport.
 */
import { PROTOCOL_PACKAGE_VERSION } from '@arbor/protocol';
import type { TurnRunner } from '../agent/turnRunner.js';
import { ConfigError, type DaemonConfig } from '../config/daemonConfig.js';
import type { McpServers } from '../config/mcpConfig.js';
import type { UserPermissions } from '../config/configSchema.js';
import type { PermissionRules } from '../permissions/rules/index.js';
import type { SessionToolsets, TurnToolsProvider, TurnToolsRequest } from '../tools/toolset.js';
import type { ToolCatalogueSource } from '../tools/catalogue.js';
import type { WorkspaceIoFactory } from '../tools/workspace/workspaceIo.js';
import { lazyToolCatalogue } from '../tools/lazyCatalogue.js';
import { DAEMON_TOOL_NAMES } from '../tools/toolNames.js';
import { isMcpToolName } from '../tools/mcp/mcpToolNames.js';
import type { McpHub } from '../tools/mcp/mcpHub.js';
import { serverSecrets } from '../tools/mcp/mcpSecrets.js';
import type { Logger } from '../logging/logger.js';
import { daemonSecrets } from '../security/secretRedactor.js';
import { startupSecrets } from '../security/startupSecrets.js';
import { configureSandbox } from '../tools/sandbox/sandboxSettings.js';
import { configureWebFetch } from '../tools/web/webFetchSettings.js';
import { SessionManager } from '../session/sessionManager.js';
import type { Store } from '../store/index.js';
import { limitsByKind } from '../agent/budgetLimits.js';
import { CommandCatalogue } from '../commands/commandCatalogue.js';
import { AgentProfiles } from '../agents/agentProfiles.js';
import { checkConfigAgents } from '../agents/checkConfigAgents.js';
import { clientIdAllocator, type DaemonContext } from './daemonContext.js';
import { formatAddress, parseListenAddress } from './listenAddress.js';
import { serveSocket } from './socketTransport.js';
import { loadOrCreateToken } from './socketToken.js';
import { serveStdio } from './stdioTransport.js';

export interface DaemonOptions {
  config: DaemonConfig;
  log: Logger;
  daemonVersion: string;
  /** `--testing`: serve `_arbor/testing/*` even without `--provider scripted`. */
  testing: boolean;
}

/**
 * MCP servers a client passes for one of its sessions (ACP's `mcpServers`),
 * for a daemon running in that client's process: the wire protocol has no
 * way to pass them.
 */
export interface SessionMcpServers {
  /** The session's own servers from its next turn on (McpHub.setSessionServers). */
  set(sessionId: string, workspaceRoot: string, servers: McpServers): void;
  /** Stops every MCP server of the daemon (their processes would keep it alive). */
  stopAll(): Promise<void>;
}

/**
 * Where a session's workspace tools read and write files and run commands,
 * set by a client in the daemon's process for the sessions it opened (ACP:
 * the editor's files and terminals); the wire protocol has no way to ask a
 * client for that. Unset: the disk and the daemon's own (sandboxed) spawn.
 */
export interface SessionWorkspaceIo {
  /** From the session's next tool call on; undefined: back to the disk. */
  set(sessionId: string, io: WorkspaceIoFactory | undefined): void;
}

/**
 * Opens the store (a StoreError naming the path when the data dir cannot be
 * used), ends the turns a previous daemon process left running, and builds
 * the context every connection shares. The store is open before any request.
 */
export async function createDaemonContext(options: DaemonOptions): Promise<{
  context: DaemonContext;
  store: Store;
  sessionMcpServers: SessionMcpServers;
  sessionWorkspaceIo: SessionWorkspaceIo;
}> {
  const { config, log } = options;
  // MCP tools are known only once their servers run: any mcp__ name may be listed.
  const unknown = config.alwaysAsk.filter(
    (name) => !DAEMON_TOOL_NAMES.includes(name) && !isMcpToolName(name),
  );
  if (unknown.length > 0) {
    throw new ConfigError(
      `alwaysAsk names unknown tools: ${unknown.join(', ')} (known: ${DAEMON_TOOL_NAMES.join(', ')})`,
    );
  }
  checkConfigAgents(config);
  if (hasRules(config.permissions)) {
    // Loaded only for a config with rules: a bad one is a startup error naming it.
    const { checkUserRules } = await import('../permissions/rules/index.js');
    try {
      checkUserRules(config.permissions);
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
  }
  // Before any session exists: every event and command output is redacted of
  // these, and every command runs with these settings.
  daemonSecrets.add(...startupSecrets(config, process.env));
  configureSandbox({ ...config.sandbox, dataDir: config.dataDir });
  configureWebFetch(config.webFetch);
  // SQLite loads here, for `arbor daemon` only: --version and --help never touch it.
  const { openStore, EVENT_RETENTION } = await import('../store/index.js');
  const store = openStore(config.dataDir);
  try {
    // The user's own commands/ and skills/ live in the data dir (~/.arbor by default).
    const commands = new CommandCatalogue(config.dataDir);
    const agent = lazyAgent(options, store, commands);
    const agents = new AgentProfiles(config.agents, config.defaultAgent);
    const sessions = new SessionManager({
      store,
      commands,
      agents,
      turnRunner: agent.turnRunner,
      toolsets: agent.toolsets,
      approvalTimeoutMs: config.approvalTimeoutMs,
      idleEvictMs: config.sessionIdleEvictMs,
      log,
      maxHistoryTokens: config.budgets.maxHistoryTokens,
      ...(config.checkpoints && { checkpoints: { dataDir: config.dataDir } }),
      // An approval is asked only by a running turn, so the agent (and its rules) is loaded.
      saveRule: (workspaceRoot, rule) => agent.rules()?.remember(workspaceRoot, rule) ?? false,
    });
    const interrupted = sessions.recoverInterruptedTurns();
    if (interrupted.length > 0) {
      log.info(`${interrupted.length} turn(s) left running by the previous daemon: interrupted`);
    }
    const context: DaemonContext = {
      sessions,
      log,
      maxMessageBytes: config.maxMessageBytes,
      replayRetention: EVENT_RETENTION,
      testing: options.testing || config.provider === 'scripted',
      daemonVersion: options.daemonVersion,
      nextClientId: clientIdAllocator(),
      budgetLimits: limitsByKind(config.budgets),
      connectionLimits: config.connectionLimits,
      approvalTimeoutMs: config.approvalTimeoutMs,
      tools: agent.tools,
      checkpoints: config.checkpoints,
      commands: true,
      agents,
    };
    return {
      context,
      store,
      sessionMcpServers: agent.sessionMcpServers,
      sessionWorkspaceIo: agent.sessionWorkspaceIo,
    };
  } catch (error) {
    store.close();
    throw error;
  }
}

/**
 * The agent (providers, tools...) is imported on the first chat/send,
 * not at startup: cold start stays fast, and a broken agent fails one turn
 * with a clear error instead of the whole daemon.
 */
function lazyAgent(
  { config, log, daemonVersion }: DaemonOptions,
  store: Store,
  commands: CommandCatalogue,
): {
  turnRunner: () => Promise<TurnRunner>;
  toolsets: TurnToolsProvider;
  tools: ToolCatalogueSource;
  sessionMcpServers: SessionMcpServers;
  sessionWorkspaceIo: SessionWorkspaceIo;
  /** The permission rules, once the agent is loaded. */
  rules: () => PermissionRules | undefined;
} {
  let pending: Promise<TurnRunner> | undefined;
  let rules: PermissionRules | undefined;
  // Loaded with the agent; a session asks for tools only after its runner is loaded.
  let loaded: SessionToolsets | undefined;
  let hub: McpHub | undefined;
  // Servers given to sessions before the hub was loaded, handed to it when it is.
  const early = new Map<string, { workspaceRoot: string; servers: McpServers }>();
  const sessionMcpServers: SessionMcpServers = {
    set: (sessionId, workspaceRoot, servers) => {
      if (hub !== undefined) {
        hub.setSessionServers(sessionId, workspaceRoot, servers);
        return;
      }
      // Redacted from now on, as the hub would at once.
      for (const server of Object.values(servers)) daemonSecrets.add(...serverSecrets(server));
      early.set(sessionId, { workspaceRoot, servers });
    },
    stopAll: async () => {
      early.clear();
      await loaded?.closeAll();
    },
  };
  const workspaceIo = new Map<string, WorkspaceIoFactory>();
  const sessionWorkspaceIo: SessionWorkspaceIo = {
    set: (sessionId, io) => {
      if (io === undefined) workspaceIo.delete(sessionId);
      else workspaceIo.set(sessionId, io);
    },
  };
  const toolsets: TurnToolsProvider = {
    forTurn: async (request: TurnToolsRequest) => {
      if (loaded === undefined) throw new Error('the workspace tools are not loaded yet');
      return loaded.forTurn(request);
    },
    serversOf: (sessionId: string) => loaded?.serversOf(sessionId),
    release: (sessionId) => {
      early.delete(sessionId);
      workspaceIo.delete(sessionId);
      loaded?.release(sessionId);
    },
  };
  const turnRunner = (): Promise<TurnRunner> => {
    pending ??= Promise.all([
      import('../agent/index.js'),
      import('../permissions/permissionGate.js'),
      import('../tools/toolset.js'),
      import('../tools/mcp/mcpHub.js'),
      import('../permissions/rules/index.js'),
      import('../hooks/index.js'),
    ])
      .then(([agent, permissions, tools, mcp, ruleModule, hooks]) => {
        rules ??= new ruleModule.PermissionRules({
          user: config.permissions,
          dataDir: config.dataDir,
          trustWorkspaceAllow: config.permissions.trustWorkspaceAllow ?? false,
        });
        if (loaded === undefined) {
          const created = new mcp.McpHub({
            config: config.mcp,
            clientVersion: daemonVersion,
            log: (level, message) => log.log(level, `mcp: ${message}`),
          });
          // Server processes must not outlive the daemon, however it exits.
          process.once('exit', () => created.killAll());
          for (const [sessionId, given] of early)
            created.setSessionServers(sessionId, given.workspaceRoot, given.servers);
          early.clear();
          hub = created;
          loaded = new tools.SessionToolsets({
            log: (message) => log.info(`tools: ${message}`),
            mcp: created,
            workspaceIo: (sessionId) => workspaceIo.get(sessionId),
            skills: commands,
          });
        }
        return agent.createTurnRunner({
          budgets: config.budgets,
          defaultModel: config.model,
          subtaskModel: config.subtaskModel,
          scriptPath: config.script,
          providers: config.providers,
          context: config.context,
          sessionContext: (sessionId) => store.context.of(sessionId),
          log: (level, message) => log.log(level, `agent: ${message}`),
          gate: permissions.createPermissionGate({
            alwaysAsk: config.alwaysAsk,
            dataDir: config.dataDir,
            rules,
          }),
          hooks: new hooks.HookRunner({
            user: config.hooks,
            log: (level, message) => log.log(level, `hooks: ${message}`),
          }),
        });
      })
      .catch((error: unknown) => {
        pending = undefined; // retry on the next turn
        throw error;
      });
    return pending;
  };
  // tools/list loads the agent as the first chat/send does, and lists from the same toolsets.
  const tools = lazyToolCatalogue(async () => {
    await turnRunner();
    return { toolsets, alwaysAsk: config.alwaysAsk, ...(rules && { rules }) };
  });
  return {
    turnRunner,
    toolsets,
    tools,
    sessionMcpServers,
    sessionWorkspaceIo,
    rules: () => rules,
  };
}

export async function runDaemon(options: DaemonOptions & { stdio: boolean }): Promise<void> {
  const { context, store } = await createDaemonContext(options);
  // Committed data is safe without it (WAL); closing checkpoints the WAL into arbor.db.
  process.once('exit', () => store.close());
  const { config, log } = options;
  // Which SQLite this Node runs the store on (store/sqlite/): the first thing to know when it fails.
  const { sqliteBackend } = await import('../store/index.js');
  log.info(
    `sessions stored in ${store.path} (SQLite via ${sqliteBackend()}, Node ${process.version})`,
  );
  if (options.stdio) {
    serveStdio(context);
    log.info(
      `arbor ${options.daemonVersion} (protocol package ${PROTOCOL_PACKAGE_VERSION}) serving stdio`,
    );
    return;
  }
  if (!config.listen) throw new Error('arbor daemon needs --stdio or --listen <address>');
  const token = loadOrCreateToken(config.dataDir);
  daemonSecrets.add(token);
  const server = await serveSocket(context, parseListenAddress(config.listen), token);
  // Machine-readable: launchers and tests read the bound address from this line.
  process.stderr.write(`arbor: listening on ${formatAddress(server.address)}\n`);
  const stop = (signal: string) => {
    log.info(`${signal}: closing`);
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

function hasRules(permissions: UserPermissions): boolean {
  return [permissions.allow, permissions.ask, permissions.deny].some(
    (list) => (list?.length ?? 0) > 0,
  );
}
