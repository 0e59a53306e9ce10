/**
 * The Node-only part of the client core (`@arbor/protocol/client/node`):
 * spawning `arbor daemon --stdio` and connecting to a daemon's socket. The
 * common modules never import child_process or net; this one hands them a
 * MessageConnection and nothing else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import {
  createMessageConnection,
  SocketMessageReader,
  SocketMessageWriter,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import { ArborClient, type ArborClientOptions } from './arborClient.js';

export const DEFAULT_DAEMON_COMMAND = 'arbor';
export const DEFAULT_DAEMON_ARGS: readonly string[] = ['daemon', '--stdio'];

export interface SpawnDaemonOptions {
  /** Executable to run; default `arbor`. */
  command?: string;
  /** Default `['daemon', '--stdio']`. */
  args?: readonly string[];
  cwd?: string;
  /** The daemon's environment (API keys reach it only this way). Default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** The daemon's stderr (its logs): piped to `onStderr` by default, and always drained so the daemon never blocks on it. */
  stderr?: 'pipe' | 'inherit' | 'ignore';
  onStderr?: (text: string) => void;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface DaemonProcess {
  child: ChildProcess;
  connection: MessageConnection;
  /** Settles when the process exits. */
  exited: Promise<ExitStatus>;
}

/** Spawns the daemon with stdio transport; rejects when it cannot start (e.g. ENOENT). */
export function spawnDaemon(options: SpawnDaemonOptions = {}): Promise<DaemonProcess> {
  const child = spawn(
    options.command ?? DEFAULT_DAEMON_COMMAND,
    [...(options.args ?? DEFAULT_DAEMON_ARGS)],
    {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', options.stderr ?? 'pipe'],
    },
  );
  if (child.stderr) {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => options.onStderr?.(text));
  }
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => {
      child.off('error', reject);
      // Later errors (e.g. EPIPE after the daemon died) surface as the connection closing.
      child.on('error', () => undefined);
      const connection = createMessageConnection(
        new StreamMessageReader(child.stdout!),
        new StreamMessageWriter(child.stdin!),
      );
      resolve({ child, connection, exited });
    });
  });
}

export type SocketAddress = { path: string } | { host: string; port: number };

/**
 * `127.0.0.1:7777`, `localhost:7777` or a bare port (`7777`, meaning
 * 127.0.0.1) is TCP; anything else is a Unix socket (or Windows pipe) path.
 */
export function parseSocketAddress(address: string): SocketAddress {
  if (/^\d+$/.test(address)) return { host: '127.0.0.1', port: Number(address) };
  const tcp = /^(?<host>[A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\]):(?<port>\d+)$/.exec(address);
  if (tcp?.groups) {
    return { host: tcp.groups['host']!.replace(/^\[|\]$/g, ''), port: Number(tcp.groups['port']) };
  }
  return { path: address };
}

/** Connects to a daemon started with `arbor daemon --listen <address>`. */
export function connectSocket(
  address: string | SocketAddress,
): Promise<{ socket: Socket; connection: MessageConnection }> {
  const target = typeof address === 'string' ? parseSocketAddress(address) : address;
  return new Promise((resolve, reject) => {
    const socket = 'path' in target ? connect(target.path) : connect(target.port, target.host);
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.on('error', () => undefined);
      const connection = createMessageConnection(
        new SocketMessageReader(socket),
        new SocketMessageWriter(socket),
      );
      resolve({ socket, connection });
    });
  });
}

/** A socket token from a file (`<data-dir>/token`, or a conformance run's token file), trimmed. */
export function readTokenFile(file: string): string {
  return readFileSync(file, 'utf8').trim();
}

export type DaemonTarget = { spawn: SpawnDaemonOptions } | { socket: string | SocketAddress };

export interface ArborConnection {
  client: ArborClient;
  /** Present when the daemon was spawned. */
  process?: DaemonProcess;
  socket?: Socket;
  /**
   * shutdown + exit, then waits for a spawned daemon to exit (killing it after
   * `timeoutMs`, default 5000) or ends the socket.
   */
  close(timeoutMs?: number): Promise<void>;
}

/**
 * Opens a connection and wraps it in an ArborClient, not yet initialized:
 * create a SessionTracker (or set handlers) first, then `client.initialize()`.
 */
export async function connectArbor(
  target: DaemonTarget,
  options: ArborClientOptions = {},
): Promise<ArborConnection> {
  if ('spawn' in target) {
    const daemon = await spawnDaemon(target.spawn);
    const client = new ArborClient(daemon.connection, { processId: process.pid, ...options });
    return {
      client,
      process: daemon,
      close: async (timeoutMs = 5000) => {
        await withTimeout(
          client.shutdown().catch(() => undefined),
          timeoutMs,
        );
        if (daemon.child.exitCode === null && daemon.child.signalCode === null) {
          const exited = await withTimeout(daemon.exited, timeoutMs);
          if (exited === undefined) daemon.child.kill('SIGKILL');
        }
      },
    };
  }
  const { socket, connection } = await connectSocket(target.socket);
  const client = new ArborClient(connection, options);
  return {
    client,
    socket,
    close: async (timeoutMs = 5000) => {
      await withTimeout(
        client.shutdown().catch(() => undefined),
        timeoutMs,
      );
      socket.end();
    },
  };
}

/** The promise's value, or undefined when it takes longer than `ms`. */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
