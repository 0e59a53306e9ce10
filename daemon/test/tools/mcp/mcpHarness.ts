/**
 * A daemon in one process with the real agent loop, permission gate, store
 * and tool catalogue, whose toolsets get MCP servers from `servers` — real
 * server processes — and protocol clients that answer approvals as told.
 */
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Methods, type PermissionMode, type Script } from '@arbor/protocol';
import { DEFAULT_BUDGET_LIMITS } from '../../../src/agent/budgetLimits.js';
import { createTurnRunner } from '../../../src/agent/index.js';
import {
  resolveMcpConfig,
  type McpServers,
  type McpSettings,
} from '../../../src/config/mcpConfig.js';
import { silentLogger } from '../../../src/logging/logger.js';
import { createPermissionGate } from '../../../src/permissions/permissionGate.js';
import type { ProviderCapabilities } from '../../../src/providers/provider.js';
import { ScriptedProvider } from '../../../src/providers/scripted.js';
import { buildRouter } from '../../../src/server/handlers/index.js';
import { SessionManager } from '../../../src/session/sessionManager.js';
import { openStore, type Store } from '../../../src/store/index.js';
import { lazyToolCatalogue } from '../../../src/tools/lazyCatalogue.js';
import { McpHub } from '../../../src/tools/mcp/mcpHub.js';
import { SessionToolsets } from '../../../src/tools/toolset.js';
import { RecordingProvider } from '../../agent/harness.js';
import { connectClient, testContext, type TestClient } from '../../helpers/inMemoryDaemon.js';
import { turnEnd as waitForTurnEnd } from '../../permissions/helpers.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '../../../node_modules/.bin');
const ROOT_BIN = join(dirname(fileURLToPath(import.meta.url)), '../../../../node_modules/.bin');

/** Where npm put a devDependency's bin (the workspace's or the root's node_modules). */
export function serverBin(name: string): string {
  for (const dir of [BIN, ROOT_BIN]) {
    try {
      return realpathSync(join(dir, name));
    } catch {
      // Not in this one.
    }
  }
  throw new Error(`${name} is not installed (a devDependency of the daemon)`);
}

/** The SDK fixture servers of these tests, run by the current node. */
export function fixtureServer(file: string): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: [join(dirname(fileURLToPath(import.meta.url)), 'fixtures', file)],
  };
}

export function tempDir(prefix = 'arbor-mcp-ws-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export interface McpClient extends TestClient {
  /** Every tool/approvalRequest's params, in order. */
  approvals: Record<string, unknown>[];
}

export interface McpDaemon {
  store: Store;
  dataDir: string;
  provider: RecordingProvider;
  hub: McpHub;
  /** What the MCP servers logged (their stderr included). */
  logs: string[];
  connect(decision?: 'allow' | 'deny'): Promise<McpClient>;
  close(): Promise<void>;
}

export function mcpDaemon(
  turnScript: Script,
  servers: McpServers,
  settings: McpSettings = {},
  /** What the scripted model can do (e.g. `images: false` for a text-only model). */
  capabilities: Partial<ProviderCapabilities> = {},
): McpDaemon {
  const dataDir = tempDir('arbor-mcp-data-');
  const store = openStore(dataDir);
  const provider = new RecordingProvider(new ScriptedProvider(turnScript, { capabilities }));
  const runner = createTurnRunner({
    budgets: DEFAULT_BUDGET_LIMITS,
    defaultModel: undefined,
    scriptPath: undefined,
    log: () => undefined,
    provider,
    tools: [],
    gate: createPermissionGate({ alwaysAsk: [], dataDir }),
    chunkCoalesceMs: 0,
    // As the daemon does: each turn as the model saw it is stored for the next.
    sessionContext: (sessionId) => store.context.of(sessionId),
  });
  const logs: string[] = [];
  const hub = new McpHub({
    config: resolveMcpConfig(servers, { initializeTimeoutMs: 15_000, ...settings }),
    clientVersion: '0.0.0-test',
    log: (level, message) => logs.push(`${level}: ${message}`),
  });
  const toolsets = new SessionToolsets({ watch: false, mcp: hub });
  const sessions = new SessionManager({
    store,
    turnRunner: () => Promise.resolve(runner),
    toolsets,
    approvalTimeoutMs: 600_000,
    log: silentLogger,
    maxHistoryTokens: DEFAULT_BUDGET_LIMITS.maxHistoryTokens,
  });
  const context = testContext(sessions, {
    tools: lazyToolCatalogue(() => Promise.resolve({ toolsets, alwaysAsk: [] })),
  });
  const router = buildRouter(context);
  const clients: TestClient[] = [];
  return {
    store,
    dataDir,
    provider,
    hub,
    logs,
    async connect(decision = 'allow') {
      const approvals: Record<string, unknown>[] = [];
      const client = connectClient(context, router, {
        configure: (rpc) => {
          rpc.onRequest(Methods.ApprovalRequest.method, (params) => {
            approvals.push(params as Record<string, unknown>);
            return { decision };
          });
        },
      });
      clients.push(client);
      await client.request(Methods.Initialize, { capabilities: { approvals: {} } });
      client.rpc.sendNotification(Methods.Initialized.method, {});
      return Object.assign(client, { approvals });
    },
    async close() {
      for (const client of clients) client.close();
      await toolsets.closeAll();
      store.close();
    },
  };
}

export async function newSession(
  client: TestClient,
  workspaceRoot: string,
  permissionMode: PermissionMode = 'default',
): Promise<string> {
  const info = (await client.request(Methods.SessionNew, {
    workspaceRoot,
    permissionMode,
    chatContext: { kind: 'thread' },
  })) as { sessionId: string };
  return info.sessionId;
}

export async function send(client: TestClient, sessionId: string, text: string): Promise<string> {
  const { turnId } = (await client.request(Methods.ChatSend, { sessionId, text })) as {
    turnId: string;
  };
  return turnId;
}

/** Every state a tool node was announced in, in order (tree/update upserts folded per event). */
export function toolNodeUpdates(client: TestClient, name: string): Record<string, unknown>[] {
  const folded = new Map<string, Record<string, unknown>>();
  const seen: Record<string, unknown>[] = [];
  for (const update of client.eventsOf(Methods.TreeUpdate)) {
    for (const node of update['nodes'] as Record<string, unknown>[]) {
      const id = node['id'] as string;
      const next = { ...folded.get(id), ...node };
      folded.set(id, next);
      if (next['kind'] === 'tool' && next['name'] === name) seen.push(next);
    }
  }
  return seen;
}

/** The last state of each tool node called `name`. */
export function toolNodes(client: TestClient, name: string): Record<string, unknown>[] {
  const last = new Map<unknown, Record<string, unknown>>();
  for (const node of toolNodeUpdates(client, name)) last.set(node['id'], node);
  return [...last.values()];
}

/** Waits for the turn's `session/state` idle (MCP servers may take seconds to start). */
export function turnEnd(
  client: TestClient,
  turnId: string,
  timeoutMs = 20_000,
): Promise<Record<string, unknown>> {
  return waitForTurnEnd(client, turnId, timeoutMs);
}

/** Whether the process is alive (a server a test expects stopped, or still running). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
