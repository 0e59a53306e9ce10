/**
 * A daemon in one process with the real agent, the permission gate, the
 * workspace tools and the approval broker, and protocol clients over
 * PassThrough pairs that can answer `tool/approvalRequest` and `tool/execute`.
 */
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CancellationToken } from 'vscode-jsonrpc/node';
import {
  Methods,
  type ClientCapabilities,
  type ClientToolDeclaration,
  type PermissionMode,
  type Script,
} from '@arbor/protocol';
import { DEFAULT_BUDGET_LIMITS } from '../../src/agent/budgetLimits.js';
import { createTurnRunner } from '../../src/agent/index.js';
import { silentLogger } from '../../src/logging/logger.js';
import { createPermissionGate } from '../../src/permissions/permissionGate.js';
import { ScriptedProvider } from '../../src/providers/scripted.js';
import { buildRouter } from '../../src/server/handlers/index.js';
import { SessionManager } from '../../src/session/sessionManager.js';
import { openStore, type Store } from '../../src/store/index.js';
import type { Tool } from '../../src/tools/tool.js';
import { SessionToolsets } from '../../src/tools/toolset.js';
import { RecordingProvider } from '../agent/harness.js';
import { connectClient, testContext, type TestClient } from '../helpers/inMemoryDaemon.js';

export interface ApprovalAsk {
  params: Record<string, unknown>;
  token: CancellationToken;
  /** Resolves the request with this result (or rejects with an error response). */
  answer(result: unknown): void;
  fail(message: string): void;
  cancelled: Promise<void>;
}

export interface PermClient extends TestClient {
  clientId: string;
  /** What the daemon advertised in its initialize result. */
  daemonCapabilities: Record<string, unknown>;
  asks: ApprovalAsk[];
  executes: ApprovalAsk[];
  /** tool/question requests, answered by the test. */
  questions: ApprovalAsk[];
  /** Every message in arrival order (events, requests), for ordering checks. */
  log: string[];
}

export interface ClientOptions {
  capabilities?: ClientCapabilities;
  tools?: ClientToolDeclaration[];
  /** Answers every approval request at once with this result. */
  autoAnswer?: unknown;
  /** Answers every tool/execute with this. */
  onExecute?: (params: Record<string, unknown>, token: CancellationToken) => unknown;
}

export interface PermDaemon {
  store: Store;
  dataDir: string;
  provider: RecordingProvider;
  sessions: SessionManager;
  toolsets: SessionToolsets;
  connect(options?: ClientOptions): Promise<PermClient>;
  close(): Promise<void>;
}

export function tempDir(prefix = 'arbor-ws-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export function permDaemon(
  script: Script,
  options: {
    alwaysAsk?: string[];
    approvalTimeoutMs?: number;
    extraTools?: Tool[];
    watch?: boolean;
    /** Take workspace checkpoints and serve checkpoint/* (checkpoints.md). */
    checkpoints?: boolean;
  } = {},
): PermDaemon {
  const dataDir = tempDir('arbor-data-');
  const store = openStore(dataDir);
  const provider = new RecordingProvider(new ScriptedProvider(script));
  const runner = createTurnRunner({
    budgets: DEFAULT_BUDGET_LIMITS,
    defaultModel: undefined,
    scriptPath: undefined,
    log: () => undefined,
    provider,
    tools: options.extraTools ?? [],
    gate: createPermissionGate({ alwaysAsk: options.alwaysAsk ?? [], dataDir }),
    chunkCoalesceMs: 0,
  });
  const toolsets = new SessionToolsets({ watch: options.watch ?? false });
  const sessions = new SessionManager({
    store,
    turnRunner: () => Promise.resolve(runner),
    toolsets,
    approvalTimeoutMs: options.approvalTimeoutMs ?? 600_000,
    log: silentLogger,
    maxHistoryTokens: DEFAULT_BUDGET_LIMITS.maxHistoryTokens,
    ...(options.checkpoints && { checkpoints: { dataDir } }),
  });
  const context = testContext(sessions, { checkpoints: options.checkpoints ?? false });
  const router = buildRouter(context);
  const clients: PermClient[] = [];
  return {
    store,
    dataDir,
    provider,
    sessions,
    toolsets,
    async close() {
      for (const client of clients) client.close();
      await toolsets.closeAll();
      store.close();
    },
    async connect(clientOptions: ClientOptions = {}) {
      const log: string[] = [];
      const asks: ApprovalAsk[] = [];
      const executes: ApprovalAsk[] = [];
      const questions: ApprovalAsk[] = [];
      const pendingRequest = (
        list: ApprovalAsk[],
        params: unknown,
        token: CancellationToken,
      ): Promise<unknown> =>
        new Promise((resolve, reject) => {
          let onCancelled!: () => void;
          const cancelled = new Promise<void>((r) => (onCancelled = r));
          token.onCancellationRequested(() => onCancelled());
          list.push({
            params: params as Record<string, unknown>,
            token,
            answer: resolve,
            fail: (message) => reject(new Error(message)),
            cancelled,
          });
        });
      const base = connectClient(context, router, {
        onEvent: ({ method, params }) =>
          log.push(
            method === Methods.SessionState.method
              ? `${method}:${String(params['state'])}`
              : method,
          ),
        configure: (rpc) => {
          rpc.onRequest(Methods.ApprovalRequest.method, (params, token) => {
            log.push(Methods.ApprovalRequest.method);
            if (clientOptions.autoAnswer !== undefined) {
              asks.push({
                params: params as Record<string, unknown>,
                token,
                answer: () => undefined,
                fail: () => undefined,
                cancelled: new Promise(() => undefined),
              });
              return clientOptions.autoAnswer;
            }
            return pendingRequest(asks, params, token);
          });
          rpc.onRequest(Methods.QuestionRequest.method, (params, token) => {
            log.push(Methods.QuestionRequest.method);
            return pendingRequest(questions, params, token);
          });
          rpc.onRequest(Methods.ToolExecute.method, (params, token) => {
            log.push(Methods.ToolExecute.method);
            if (clientOptions.onExecute) {
              executes.push({
                params: params as Record<string, unknown>,
                token,
                answer: () => undefined,
                fail: () => undefined,
                cancelled: new Promise(() => undefined),
              });
              return clientOptions.onExecute(params as Record<string, unknown>, token);
            }
            return pendingRequest(executes, params, token);
          });
        },
      });
      const init = (await base.request(Methods.Initialize, {
        capabilities: clientOptions.capabilities ?? { approvals: {} },
        ...(clientOptions.tools && { tools: clientOptions.tools }),
      })) as { clientId: string; capabilities: Record<string, unknown> };
      base.rpc.sendNotification(Methods.Initialized.method, {});
      const client: PermClient = {
        ...base,
        clientId: init.clientId,
        daemonCapabilities: init.capabilities,
        asks,
        executes,
        questions,
        log,
      };
      clients.push(client);
      return client;
    },
  };
}

export async function newSession(
  client: PermClient,
  workspaceRoot: string,
  permissionMode: PermissionMode = 'default',
  chatContext: 'thread' | 'editor' = 'thread',
): Promise<string> {
  const info = (await client.request(Methods.SessionNew, {
    workspaceRoot,
    permissionMode,
    chatContext: { kind: chatContext },
  })) as { sessionId: string };
  return info.sessionId;
}

export async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Waits for the turn's final `session/state` idle and returns its params. */
export async function turnEnd(
  client: TestClient,
  turnId: string,
  timeoutMs?: number,
): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  await until(() => {
    found = client
      .eventsOf(Methods.SessionState)
      .find((p) => p['turnId'] === turnId && p['state'] === 'idle');
    return found !== undefined;
  }, timeoutMs);
  return found!;
}

export async function send(client: PermClient, sessionId: string, text: string): Promise<string> {
  const { turnId } = (await client.request(Methods.ChatSend, { sessionId, text })) as {
    turnId: string;
  };
  return turnId;
}

/** The tree nodes of a session's turns as clients saw them (tree/update folded). */
export function treeNodes(client: PermClient): Map<string, Record<string, unknown>> {
  const nodes = new Map<string, Record<string, unknown>>();
  for (const update of client.eventsOf(Methods.TreeUpdate)) {
    for (const node of update['nodes'] as Record<string, unknown>[]) {
      nodes.set(node['id'] as string, { ...nodes.get(node['id'] as string), ...node });
    }
  }
  return nodes;
}

export function toolNodes(client: PermClient, name?: string): Record<string, unknown>[] {
  return [...treeNodes(client).values()].filter(
    (n) => n['kind'] === 'tool' && (name === undefined || n['name'] === name),
  );
}

/** Tool results the model received, in order, across all of its requests. */
export function toolResults(
  provider: RecordingProvider,
): { name: string; content: string; isError?: boolean; metadata?: { approval?: string } }[] {
  const last = provider.requests[provider.requests.length - 1];
  const seen = new Map<
    string,
    { name: string; content: string; isError?: boolean; metadata?: { approval?: string } }
  >();
  for (const request of provider.requests) {
    for (const message of request.messages) {
      if (message.role === 'tool')
        seen.set(`${message.toolCallId}:${message.name}:${request.system.length}`, message);
    }
  }
  void last;
  return [...seen.values()];
}
