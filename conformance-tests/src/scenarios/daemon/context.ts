/** The suite as a client: how daemon scenarios open connections and initialize. */
import { Methods } from '@arbor/protocol';
import net from 'node:net';
import { Connection, type JsonObject, type ResponseMessage } from '../../harness/connection.js';
import { connectSocket, makeTempDir, removeDir, spawnCommand } from '../../harness/process.js';
import { Abort, Skip, type ScenarioBase } from '../scenario.js';

export type DaemonTarget =
  { kind: 'stdio'; command: string } | { kind: 'socket'; address: string; token: string };

export interface Opened {
  conn: Connection;
  /** stdio only: the daemon process's exit code. */
  exit?: Promise<number | null>;
}

export interface Initialized extends Opened {
  init: JsonObject & { protocolVersion: number; capabilities: JsonObject; clientId: string };
}

export interface InitializeOptions {
  capabilities?: JsonObject;
  tools?: JsonObject[];
  /** Replaces fields of the initialize params (undefined removes one). */
  params?: Record<string, unknown>;
  /** stdio only: variables added to the environment of the daemon process started for it. */
  env?: NodeJS.ProcessEnv;
}

export interface DaemonContext extends ScenarioBase {
  target: DaemonTarget;
  protocolVersion: number;
  /** A fresh, existing, absolute directory to use as a workspace root. */
  workspace: string;
  open(label?: string, env?: NodeJS.ProcessEnv): Promise<Opened>;
  initializeParams(options?: InitializeOptions): JsonObject;
  /** Opens and initializes (recording daemon.lifecycle.initialize-result), without initialized. */
  initialize(label?: string, options?: InitializeOptions): Promise<Initialized>;
  /** Opens, initializes (recording daemon.lifecycle.initialize-result) and sends initialized. */
  connect(label?: string, options?: InitializeOptions): Promise<Initialized>;
}

export async function makeDaemonContext(
  base: ScenarioBase,
  target: DaemonTarget,
  protocolVersion: number,
): Promise<{ ctx: DaemonContext; dispose: () => Promise<void> }> {
  const opened: Opened[] = [];
  const workspace = makeTempDir('arbor-conformance-ws-');
  let count = 0;

  const open = async (label = `conn${++count}`, env?: NodeJS.ProcessEnv): Promise<Opened> => {
    if (target.kind === 'stdio') {
      const spawned = spawnCommand(target.command, { transcript: base.transcript, label, env });
      const conn = new Connection({
        label,
        implRole: 'daemon',
        input: spawned.child.stdout!,
        output: spawned.child.stdin!,
        stdio: true,
        transcript: base.transcript,
        recorder: base.recorder,
        close: spawned.kill,
      });
      const result = { conn, exit: spawned.exit };
      opened.push(result);
      return result;
    }
    let socket: net.Socket;
    try {
      socket = await connectSocket(target.address);
    } catch (error) {
      throw new Error(`cannot connect to ${target.address}: ${String(error)}`);
    }
    const conn = new Connection({
      label,
      implRole: 'daemon',
      input: socket,
      output: socket,
      stdio: false,
      transcript: base.transcript,
      recorder: base.recorder,
      close: () => socket.destroy(),
    });
    const result = { conn };
    opened.push(result);
    return result;
  };

  const initializeParams = (options: InitializeOptions = {}): JsonObject => {
    const params: JsonObject = {
      protocolVersion,
      clientInfo: { name: 'arbor-conformance', version: '0.1.0' },
      capabilities: options.capabilities ?? {},
    };
    if (options.tools) params.tools = options.tools;
    if (target.kind === 'socket') params.token = target.token;
    for (const [key, value] of Object.entries(options.params ?? {})) {
      if (value === undefined) delete params[key];
      else params[key] = value;
    }
    return params;
  };

  const initialize = async (
    label?: string,
    options: InitializeOptions = {},
  ): Promise<Initialized> => {
    const o = await open(label, options.env);
    const response = await o.conn.request(Methods.Initialize.method, initializeParams(options), {
      noResponseCheck: 'daemon.lifecycle.initialize-result',
    });
    if (!response) throw new Abort('initialize was not answered');
    if (
      !base.recorder.expect(
        'daemon.lifecycle.initialize-result',
        response.result !== undefined,
        `initialize failed: ${JSON.stringify(response.error)}`,
      )
    ) {
      throw new Abort('initialize failed');
    }
    return { ...o, init: response.result as Initialized['init'] };
  };

  const connect = async (label?: string, options: InitializeOptions = {}): Promise<Initialized> => {
    const c = await initialize(label, options);
    c.conn.notify(Methods.Initialized.method, {});
    return c;
  };

  const ctx: DaemonContext = {
    ...base,
    target,
    protocolVersion,
    workspace,
    open,
    initializeParams,
    initialize,
    connect,
  };
  const dispose = async (): Promise<void> => {
    for (const o of opened) o.conn.finish();
    removeDir(workspace);
  };
  return { ctx, dispose };
}

// ---- small helpers shared by daemon scenarios ---------------------------------

export function errorCode(response: ResponseMessage | undefined): number | undefined {
  return response?.error?.code;
}

export function describe(response: ResponseMessage | undefined): string {
  if (!response) return 'no response';
  return response.error
    ? `error ${response.error.code} (${response.error.message})`
    : `result ${JSON.stringify(response.result)?.slice(0, 200)}`;
}

/** Skips the scenario unless the daemon advertised `path` (e.g. `testing.scriptedProvider`). */
export function requireDaemonCapability(init: Initialized['init'], path: string): void {
  let node: unknown = init.capabilities;
  for (const key of path.split('.'))
    node =
      typeof node === 'object' && node !== null
        ? (node as Record<string, unknown>)[key]
        : undefined;
  if (node === undefined || node === null || node === false) {
    throw new Skip(`the daemon does not advertise capabilities.${path}`);
  }
}

export function requireSocket(target: DaemonTarget, why: string): void {
  if (target.kind !== 'socket') throw new Skip(`needs a socket target (--socket): ${why}`);
}

export function requireStdio(target: DaemonTarget, why: string): void {
  if (target.kind !== 'stdio') throw new Skip(`needs a stdio target (--command): ${why}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whether the daemon closes the connection within `ms`; the timer never outlives the answer. */
export function closedWithin(conn: Connection, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, ms));
    void conn.closed.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** stdio: the daemon process's exit code, or 'timeout' if it has not exited within `timeoutMs`. */
export async function exitCode(
  exit: Promise<number | null> | undefined,
  timeoutMs: number,
): Promise<number | null | 'timeout'> {
  if (!exit) return 'timeout';
  return Promise.race([
    exit,
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs)),
  ]);
}

export interface Note {
  index: number;
  method: string;
  params: JsonObject;
}

/** Every event of the session one client received, with its position on the connection. */
export function notes(conn: Connection, sessionId: string): Note[] {
  return conn.messages
    .filter((m) => m.kind === 'notification')
    .map((m) => {
      const msg = m.message as JsonObject;
      return {
        index: m.index,
        method: String(msg.method),
        params: (msg.params ?? {}) as JsonObject,
      };
    })
    .filter((n) => n.params.sessionId === sessionId);
}
