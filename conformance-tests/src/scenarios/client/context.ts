/**
 * The suite as a daemon: it listens on Unix sockets in a temp dir, starts the
 * client under test with the conformance driver environment, and serves the
 * first connection the client makes (directly, or through the stdio bridge).
 */
import { Methods } from '@arbor/protocol';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection, timeouts, type JsonObject } from '../../harness/connection.js';
import { makeTempDir, removeDir, spawnCommand, type Spawned } from '../../harness/process.js';
import { Abort, type ScenarioBase } from '../scenario.js';

export interface ClientTarget {
  command: string;
  /** How the client reaches the fake daemon: spawning ARBOR_DAEMON_COMMAND, or the endpoint socket. */
  transport: 'stdio' | 'socket';
}

export interface HandshakeOptions {
  /** Changes the initialize result the fake daemon answers with (e.g. to add unknown fields). */
  initializeResult?: (result: JsonObject) => JsonObject;
}

/**
 * The protocol version an `initialize` asks for, read as a daemon must read
 * it: the top-level `protocolVersion`, else `initializationOptions.protocolVersion`,
 * else 1 (versioning.md#negotiation).
 */
export function requestedVersion(params: unknown): unknown {
  const p = (params ?? {}) as JsonObject;
  const options = (p.initializationOptions ?? {}) as JsonObject;
  return p.protocolVersion ?? options.protocolVersion ?? 1;
}

/**
 * The message a driver sends with chat/send in the scenario that sets
 * ARBOR_CONFORMANCE_MESSAGE. Not ASCII, so that a client counting
 * Content-Length in characters or UTF-16 code units is caught (client.wire.frames).
 */
export const DRIVER_MESSAGE = 'conformance: say hello — grüße, 日本語, 🌳';

/** The answer the client's driver gives to approval requests, per scenario. */
export type ApprovalPolicy = 'allow' | 'allowForSession' | 'allowAlways' | 'deny' | 'ignore';

export interface ClientContext extends ScenarioBase {
  target: ClientTarget;
  protocolVersion: number;
  sessionId: string;
  policy: ApprovalPolicy;
  /** Waits for the client to connect. */
  accept(timeoutMs?: number): Promise<Connection>;
  /**
   * Plays initialize / initialized / session/attach; aborts the scenario if the
   * client does not. `initializeResult` may reshape the initialize result.
   */
  handshake(conn: Connection, options?: HandshakeOptions): Promise<void>;
  /** Sends a session event with the next seq (or the given one). */
  emit(conn: Connection, method: string, params: JsonObject, seq?: number): number;
  lastSeq: number;
  sessionInfo(): JsonObject;
  daemonCapabilities: JsonObject;
  /** The client process's exit code. */
  clientExit: Promise<number | null>;
  /** The token a socket client must present. */
  token: string;
}

const BRIDGE = fileURLToPath(new URL('../../../bin/stdio-bridge.mjs', import.meta.url));

/** How long a client may take to start and connect, whatever the answer timeout. */
const CONNECT_TIMEOUT_MS = 10_000;

/** The driver's approval policy for each scenario (documented in README). */
const POLICIES: Record<string, ApprovalPolicy> = {
  'client-approval': 'deny',
  'client-approval-always': 'allowAlways',
  'client-approval-cancel': 'ignore',
  'client-unknown-outcome': 'ignore',
  'client-approval-resend': 'ignore',
  'client-approval-timeout': 'ignore',
  'client-approval-race': 'deny',
  // `ignore` leaves questions unanswered too (conformance.md#conformance-driver-questions).
  'client-question-resend': 'ignore',
  'client-question-resolved': 'ignore',
  'client-question-cancel': 'ignore',
};

/**
 * The answer the driver gives to questions, per scenario (ARBOR_CONFORMANCE_ANSWER;
 * unset: the first option's label, or `ok`). Not ASCII, and no option's label.
 */
export const DRIVER_ANSWERS: Record<string, string> = {
  'client-question-answer': 'Vitest, with the fast config — grüße 🌳',
};

/** The scenario whose stdio daemon writes a well-formed frame to stderr. */
export const STDERR_SCENARIO = 'client-daemon-stderr';

/** The limit the fake daemon advertises in client-respects-max: room for the driver's own frames. */
export const SMALL_MAX_MESSAGE_BYTES = 1024;

/** Scenarios whose driver sends ARBOR_CONFORMANCE_MESSAGE once attached. */
const MESSAGES: Record<string, string> = {
  'client-driver-message': DRIVER_MESSAGE,
  'client-respects-max': `conformance: a message longer than the daemon accepts ${'.'.repeat(SMALL_MAX_MESSAGE_BYTES)}`,
};

export async function makeClientContext(
  base: ScenarioBase,
  target: ClientTarget,
  protocolVersion: number,
  scenarioId: string,
): Promise<{ ctx: ClientContext; dispose: () => Promise<void> }> {
  const dir = makeTempDir('arbor-conformance-client-');
  const token = randomBytes(16).toString('hex');
  const endpoint = path.join(dir, 'daemon.sock');
  const bridgeSocket = path.join(dir, 'bridge.sock');
  const sessionId = `conformance-${scenarioId}`;
  const policy = POLICIES[scenarioId] ?? 'deny';
  const tokenFile = path.join(dir, 'token');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const connections: Connection[] = [];
  const sockets: net.Socket[] = [];
  let onConnection: ((conn: Connection) => void) | undefined;
  const queued: Connection[] = [];

  const serve = (via: string) => (socket: net.Socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    const conn = new Connection({
      label: `client(${via})`,
      implRole: 'client',
      input: socket,
      output: socket,
      stdio: false,
      transcript: base.transcript,
      recorder: base.recorder,
      close: () => socket.destroy(),
    });
    connections.push(conn);
    if (onConnection) onConnection(conn);
    else queued.push(conn);
  };
  const servers = [net.createServer(serve('socket')), net.createServer(serve('stdio'))];
  await Promise.all([
    new Promise<void>((resolve) => servers[0]!.listen(endpoint, resolve)),
    new Promise<void>((resolve) => servers[1]!.listen(bridgeSocket, resolve)),
  ]);

  // The conformance driver convention (conformance.md#driver). ENDPOINT would take
  // precedence over DAEMON_COMMAND, so each transport sets only its own, and the
  // caller's environment must not leak one in.
  const env: NodeJS.ProcessEnv = {
    ARBOR_CONFORMANCE_SCENARIO: scenarioId,
    ARBOR_CONFORMANCE_SESSION: sessionId,
    ARBOR_CONFORMANCE_ROLE: 'controller',
    ARBOR_CONFORMANCE_APPROVAL: policy,
    ARBOR_CONFORMANCE_ENDPOINT: undefined,
    ARBOR_CONFORMANCE_TOKEN_FILE: undefined,
    ARBOR_CONFORMANCE_MESSAGE: MESSAGES[scenarioId],
    ARBOR_CONFORMANCE_ANSWER: DRIVER_ANSWERS[scenarioId],
    ARBOR_DAEMON_COMMAND: undefined,
  };
  if (target.transport === 'socket') {
    env.ARBOR_CONFORMANCE_ENDPOINT = endpoint;
    env.ARBOR_CONFORMANCE_TOKEN_FILE = tokenFile;
  } else {
    const decoy = scenarioId === STDERR_SCENARIO ? ` --stderr-decoy "${sessionId}"` : '';
    env.ARBOR_DAEMON_COMMAND = `"${process.execPath}" "${BRIDGE}" "${bridgeSocket}"${decoy}`;
  }
  const client: Spawned = spawnCommand(target.command, {
    env,
    transcript: base.transcript,
    label: 'client-process',
  });

  const daemonCapabilities: JsonObject = {
    sessions: { persistence: false },
    attach: { replay: true, replayRetention: 1000 },
    permissionModes: ['plan', 'default', 'auto'],
    clientTools: {},
    plan: {},
    questions: {},
    maxMessageBytes: scenarioId === 'client-respects-max' ? SMALL_MAX_MESSAGE_BYTES : 8388608,
  };
  const created = new Date().toISOString();
  const sessionInfo = (): JsonObject => ({
    sessionId,
    workspaceRoot: dir,
    title: 'conformance',
    permissionMode: 'default',
    chatContext: { kind: 'thread' },
    state: 'idle',
    createdAt: created,
    updatedAt: created,
  });

  const ctx: ClientContext = {
    ...base,
    target,
    protocolVersion,
    sessionId,
    policy,
    lastSeq: 0,
    daemonCapabilities,
    sessionInfo,
    clientExit: client.exit,
    token,
    // Starting a client process can take seconds on a busy machine; answers should not.
    accept(timeoutMs = Math.max(timeouts.requestMs, CONNECT_TIMEOUT_MS)) {
      const ready = queued.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Abort(`the client did not connect within ${timeoutMs} ms`)),
          timeoutMs,
        );
        onConnection = (conn) => {
          clearTimeout(timer);
          onConnection = undefined;
          resolve(conn);
        };
        void client.exit.then((code) =>
          reject(new Abort(`the client exited (code ${code}) without connecting`)),
        );
      });
    },
    async handshake(conn, options = {}) {
      const reshape = options.initializeResult ?? ((result) => result);
      conn.handle(Methods.Initialize.method, () =>
        reshape({
          protocolVersion: ctx.protocolVersion,
          serverInfo: { name: 'arbor-conformance-fake-daemon', version: '0.1.0' },
          capabilities: daemonCapabilities,
          clientId: `conformance-client`,
        }),
      );
      conn.handle(Methods.ChatSend.method, () => ({ turnId: 'turn-driver' }));
      conn.handle(Methods.Shutdown.method, () => null);
      conn.handle(Methods.SessionAttach.method, (params) => {
        const p = params as JsonObject;
        return {
          session: sessionInfo(),
          role: p.role ?? 'controller',
          lastSeq: ctx.lastSeq,
          replay: p.sinceSeq === undefined ? 'none' : 'events',
        };
      });
      const init = await conn.waitFor(
        (m) =>
          m.kind === 'notification' &&
          (m.message as JsonObject).method === Methods.Initialized.method,
        timeouts.requestMs,
      );
      if (!init) throw new Abort('the client did not complete initialize / initialized');
      const attach = await conn.waitFor(
        (m) =>
          m.kind === 'request' && (m.message as JsonObject).method === Methods.SessionAttach.method,
        timeouts.requestMs,
      );
      if (!attach)
        throw new Abort(`the client did not attach to ${sessionId} (see the driver convention)`);
      await new Promise((r) => setTimeout(r, 20)); // let the attach answer go out first
    },
    emit(conn, method, params, seq) {
      const value = seq ?? ctx.lastSeq + 1;
      ctx.lastSeq = Math.max(ctx.lastSeq, value);
      conn.notify(method, { sessionId, seq: value, ...params });
      return value;
    },
  };
  const dispose = async (): Promise<void> => {
    for (const conn of connections) conn.finish();
    client.kill();
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    removeDir(dir);
  };
  return { ctx, dispose };
}
