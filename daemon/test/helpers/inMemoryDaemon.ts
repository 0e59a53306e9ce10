/**
 * A daemon and any number of clients in one process, over PassThrough stream
 * pairs: fast, deterministic unit tests of routing, sessions and fan-out.
 * Its store lives in a fresh temp dir, or in `dataDir` to play a restart.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import {
  createMessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import { Methods, type NotificationDescriptor } from '@arbor/protocol';
import { DEFAULT_BUDGET_LIMITS } from '../../src/agent/budgetLimits.js';
import type { TurnRequest, TurnResult, TurnRunner } from '../../src/agent/turnRunner.js';
import { silentLogger } from '../../src/logging/logger.js';
import { ClientConnection } from '../../src/server/clientConnection.js';
import { clientIdAllocator, type DaemonContext } from '../../src/server/daemonContext.js';
import { buildRouter } from '../../src/server/handlers/index.js';
import { SessionManager } from '../../src/session/sessionManager.js';
import { EVENT_RETENTION, openStore, type Store } from '../../src/store/index.js';

export interface Received {
  method: string;
  params: Record<string, unknown>;
}

export interface TestClient {
  rpc: MessageConnection;
  events: Received[];
  // Results are loose here: each test validates them against the descriptor's schema.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  request<D extends { method: string }>(descriptor: D, params?: unknown): Promise<any>;
  eventsOf(descriptor: NotificationDescriptor): Record<string, unknown>[];
  close(): void;
  closed: Promise<void>;
}

export interface InMemoryDaemon {
  context: DaemonContext;
  store: Store;
  dataDir: string;
  /** Closes the store, as a daemon that exits does. */
  close(): void;
  connect(options?: { initialize?: boolean; token?: string }): Promise<TestClient>;
}

export function inMemoryDaemon(
  options: {
    runner?: TurnRunner | (() => Promise<TurnRunner>);
    testing?: boolean;
    maxMessageBytes?: number;
    requiredToken?: string;
    /** Events the store keeps per session (default EVENT_RETENTION). */
    eventRetention?: number;
    /** Reuse a data dir (a "restarted" daemon); default: a fresh temp dir. */
    dataDir?: string;
    maxHistoryTokens?: number;
    /** Idle eviction of loaded sessions (SessionManager.evictIdle) and its clock. */
    idleEvictMs?: number;
    now?: () => number;
  } = {},
): InMemoryDaemon {
  const runner = options.runner ?? new FakeRunner();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'arbor-data-'));
  const store = openStore(dataDir, {
    ...(options.eventRetention !== undefined && { eventRetention: options.eventRetention }),
  });
  const sessions = new SessionManager({
    store,
    turnRunner: typeof runner === 'function' ? runner : () => Promise.resolve(runner),
    log: silentLogger,
    maxHistoryTokens: options.maxHistoryTokens ?? DEFAULT_BUDGET_LIMITS.maxHistoryTokens,
    ...(options.idleEvictMs !== undefined && { idleEvictMs: options.idleEvictMs }),
    ...(options.now && { now: options.now }),
  });
  sessions.recoverInterruptedTurns();
  const context = testContext(sessions, {
    maxMessageBytes: options.maxMessageBytes ?? 8 * 1024 * 1024,
    replayRetention: options.eventRetention ?? EVENT_RETENTION,
    testing: options.testing ?? false,
  });
  const router = buildRouter(context);
  return {
    context,
    store,
    dataDir,
    close: () => store.close(),
    async connect({ initialize = true, token } = {}) {
      const client = connectClient(context, router, {
        ...(options.requiredToken !== undefined && { requiredToken: options.requiredToken }),
      });
      if (initialize) {
        await client.request(Methods.Initialize, { ...(token !== undefined && { token }) });
        client.rpc.sendNotification(Methods.Initialized.method, {});
      }
      return client;
    },
  };
}

/** What every in-process test daemon shares; `overrides` sets the rest. */
export function testContext(
  sessions: SessionManager,
  overrides: Partial<DaemonContext> = {},
): DaemonContext {
  return {
    sessions,
    log: silentLogger,
    maxMessageBytes: 8 * 1024 * 1024,
    replayRetention: EVENT_RETENTION,
    testing: true,
    daemonVersion: '0.0.0-test',
    nextClientId: clientIdAllocator(),
    ...overrides,
  };
}

/**
 * A protocol client of an in-process daemon over a PassThrough pair, not yet
 * initialized. `configure` registers the client's own request handlers before
 * it listens; `onEvent` sees every notification as it arrives.
 */
export function connectClient(
  context: DaemonContext,
  router: ReturnType<typeof buildRouter>,
  options: {
    requiredToken?: string;
    configure?: (rpc: MessageConnection) => void;
    onEvent?: (event: Received) => void;
  } = {},
): TestClient {
  const toDaemon = new PassThrough();
  const fromDaemon = new PassThrough();
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const server = new ClientConnection({
    input: toDaemon,
    output: fromDaemon,
    context,
    router,
    ...(options.requiredToken !== undefined && { requiredToken: options.requiredToken }),
    onClosed: () => resolveClosed(),
  });
  server.start();
  const rpc = createMessageConnection(
    new StreamMessageReader(fromDaemon),
    new StreamMessageWriter(toDaemon),
  );
  const events: Received[] = [];
  rpc.onNotification((method, params) => {
    const event = { method, params: params as Record<string, unknown> };
    events.push(event);
    options.onEvent?.(event);
  });
  options.configure?.(rpc);
  rpc.listen();
  return {
    rpc,
    events,
    request: (descriptor, params) =>
      params === undefined
        ? rpc.sendRequest(descriptor.method)
        : rpc.sendRequest(descriptor.method, params),
    eventsOf: (descriptor) =>
      events.filter((e) => e.method === descriptor.method).map((e) => e.params),
    close: () => {
      rpc.dispose();
      toDaemon.end();
    },
    closed,
  };
}

/** A TurnRunner whose turns the test drives: emit events, then finish. */
export class FakeRunner implements TurnRunner {
  readonly requests: TurnRequest[] = [];
  private pending: {
    request: TurnRequest;
    finish: (result: TurnResult) => void;
    fail: (e: Error) => void;
  }[] = [];
  /** When set, run() answers at once with this. */
  autoResult: ((request: TurnRequest) => TurnResult) | undefined;

  run(request: TurnRequest): Promise<TurnResult> {
    this.requests.push(request);
    if (this.autoResult) return Promise.resolve(this.autoResult(request));
    return new Promise((finish, fail) => {
      this.pending.push({ request, finish, fail });
      request.signal.addEventListener('abort', () =>
        finish(result(request, 'cancelled', 'partial')),
      );
    });
  }

  get current(): TurnRequest {
    const last = this.pending[this.pending.length - 1];
    if (!last) throw new Error('no running turn');
    return last.request;
  }

  finish(text = 'done'): void {
    const turn = this.pending.shift();
    if (!turn) throw new Error('no running turn');
    turn.finish(result(turn.request, 'end_turn', text));
  }

  fail(message: string): void {
    const turn = this.pending.shift();
    if (!turn) throw new Error('no running turn');
    turn.fail(new Error(message));
  }
}

export function result(
  request: TurnRequest,
  stopReason: TurnResult['stopReason'],
  text: string,
): TurnResult {
  return {
    stopReason,
    text,
    usage: { inputTokens: 3, outputTokens: 5 },
    tree: {
      version: 1,
      nodes: [
        {
          id: `${request.turnId}-root`,
          parentId: null,
          kind: 'turn',
          name: 'turn',
          status: 'done',
          depth: 0,
        },
      ],
    },
  };
}

/** The JSON-RPC error code a request failed with; fails the test when it succeeded. */
export async function errorCodeOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ResponseError, `not a JSON-RPC error: ${String(error)}`);
    return error.code;
  }
  assert.fail('expected an error');
}

export async function until(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}
