/**
 * A deliberately independent wire client for process-level tests: it frames
 * and unframes bytes itself, so the daemon's own framing code never checks
 * itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';

export const ARBOR_BIN = fileURLToPath(new URL('../../bin/arbor.js', import.meta.url));

export type Json = Record<string, unknown>;

export function frame(body: string | object): Buffer {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'ascii'), bytes]);
}

/** Splits received bytes into JSON messages; fails loudly on anything that is not a frame. */
export class FrameCollector {
  private buffer = Buffer.alloc(0);
  readonly messages: Json[] = [];
  readonly garbage: string[] = [];
  private waiters: (() => void)[] = [];

  push(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end === -1) return;
      const header = this.buffer.subarray(0, end).toString('ascii');
      const match = /^Content-Length: (\d+)$/im.exec(header);
      if (!match || !/^(Content-(Length|Type): [^\r\n]+\r?\n?)+$/i.test(header + '\n')) {
        this.garbage.push(this.buffer.toString('utf8'));
        this.buffer = Buffer.alloc(0);
        return;
      }
      const length = Number(match[1]);
      if (this.buffer.length < end + 4 + length) return;
      const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
      this.buffer = this.buffer.subarray(end + 4 + length);
      this.messages.push(JSON.parse(body) as Json);
      const waiters = this.waiters;
      this.waiters = [];
      waiters.forEach((w) => w());
    }
  }

  get leftover(): number {
    return this.buffer.length;
  }

  async waitFor(predicate: (m: Json) => boolean, timeoutMs = 5000, from = 0): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.slice(from).find(predicate);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) {
        // The newest messages say where it stopped; each clipped, a 200 KB chunk is one line.
        const last = this.messages.slice(-12).map((m) => JSON.stringify(m).slice(0, 300));
        throw new Error(
          `timed out after ${this.messages.length} messages; the last ones:\n${last.join('\n')}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/** A client speaking raw frames over any stream pair. */
export class WireClient {
  readonly received = new FrameCollector();
  private nextId = 1;

  constructor(
    private readonly input: Writable,
    output: Readable,
  ) {
    output.on('data', (chunk: Buffer) => this.received.push(chunk));
  }

  write(bytes: Buffer | string): void {
    this.input.write(bytes);
  }

  send(message: object): void {
    this.write(frame(message));
  }

  notify(method: string, params?: unknown): void {
    this.send({ jsonrpc: '2.0', method, ...(params !== undefined && { params }) });
  }

  /** Sends a request and resolves with its response (result or error). */
  async request(method: string, params?: unknown, timeoutMs?: number): Promise<Json> {
    const id = this.nextId++;
    this.send({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) });
    return this.response(id, timeoutMs);
  }

  async result(method: string, params?: unknown): Promise<Json> {
    const response = await this.request(method, params);
    if (response['error'])
      throw new Error(`${method} failed: ${JSON.stringify(response['error'])}`);
    return response['result'] as Json;
  }

  response(id: number | string | null, timeoutMs?: number, from = 0): Promise<Json> {
    return this.received.waitFor((m) => m['id'] === id && !('method' in m), timeoutMs, from);
  }

  /** The params of turn `turnId`'s idle `session/state` (its end), once it arrives. */
  async turnEnd(turnId: unknown, timeoutMs = 20_000, from = 0): Promise<Json> {
    const idle = await this.received.waitFor(
      (m) =>
        m['method'] === 'session/state' &&
        (m['params'] as Json)['state'] === 'idle' &&
        (m['params'] as Json)['turnId'] === turnId,
      timeoutMs,
      from,
    );
    return idle['params'] as Json;
  }

  notifications(method?: string): Json[] {
    return this.received.messages.filter(
      (m) => 'method' in m && !('id' in m) && (!method || m['method'] === method),
    );
  }

  takeId(): number {
    return this.nextId++;
  }
}

export interface DaemonProcess {
  child: ChildProcess;
  client: WireClient;
  stderr: () => string;
  rawStdout: () => Buffer;
  exited: Promise<number | null>;
}

/** `node` (default: this test's Node) runs the daemon; `env` is added to this process's environment. */
export interface SpawnOptions {
  node?: string;
  env?: NodeJS.ProcessEnv;
}

export function spawnStdioDaemon(args: string[], options: SpawnOptions = {}): DaemonProcess {
  const child = spawn(options.node ?? process.execPath, [ARBOR_BIN, 'daemon', '--stdio', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.env && { env: { ...process.env, ...options.env } }),
  });
  let stderr = '';
  const stdout: Buffer[] = [];
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout!.on('data', (c: Buffer) => stdout.push(c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    client: new WireClient(child.stdin!, child.stdout!),
    stderr: () => stderr,
    rawStdout: () => Buffer.concat(stdout),
    exited,
  };
}

export interface SocketDaemon {
  child: ChildProcess;
  /** `unix:/path` or `127.0.0.1:port` as printed by the daemon. */
  address: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

export async function spawnSocketDaemon(listen: string, args: string[]): Promise<SocketDaemon> {
  const child = spawn(process.execPath, [ARBOR_BIN, 'daemon', '--listen', listen, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no listening line; stderr: ${stderr}`)),
      10_000,
    );
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      const match = /^arbor: listening on (\S+)$/m.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`daemon exited with ${code}: ${stderr}`)));
  });
  return { child, address, stderr: () => stderr, exited };
}

export async function connectTo(address: string): Promise<{ socket: Socket; client: WireClient }> {
  const socket = address.startsWith('unix:')
    ? connect(address.slice('unix:'.length))
    : connect(Number(address.slice(address.lastIndexOf(':') + 1)), '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, client: new WireClient(socket, socket) };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
