/**
 * Shared pieces of the reliability scenarios: the built daemon spawned as a
 * real process, a raw-frame client written here (the daemon's own client
 * code never checks the daemon), RSS read from /proc, percentiles, a seeded
 * PRNG, and the result every scenario returns to the runner.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ARBOR_BIN = fileURLToPath(new URL('../bin/arbor.js', import.meta.url));
const BUNDLE = fileURLToPath(new URL('../dist/bundle/arbor.js', import.meta.url));

export type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------
// Results and scale

export type Verdict = 'OK' | 'OVER TARGET' | 'FAILED' | 'SKIPPED';

export interface ScenarioResult {
  verdict: Verdict;
  /** One line for the summary table. */
  summary: string;
  /** Why it failed, was over target or skipped. */
  reasons: string[];
}

/** Sizes of one run: `full` is the default, `quick` the CI size. */
export interface Scale {
  name: string;
  fuzzFrames: number;
  raceCalls: number;
  slowTurns: number;
  stallTurns: number;
  seed: number;
}

/** Collects the reasons of a scenario and turns them into a verdict. */
export class Judge {
  readonly failures: string[] = [];
  readonly overTarget: string[] = [];

  /** A broken invariant (crash, hang, gap, escape, lost turn): FAILED. */
  require(ok: boolean, reason: string): boolean {
    if (!ok) this.failures.push(reason);
    return ok;
  }

  /** A missed target (memory, latency): OVER TARGET, unless something failed. */
  target(ok: boolean, reason: string): boolean {
    if (!ok) this.overTarget.push(reason);
    return ok;
  }

  result(summary: string): ScenarioResult {
    if (this.failures.length > 0)
      return { verdict: 'FAILED', summary, reasons: [...this.failures, ...this.overTarget] };
    if (this.overTarget.length > 0)
      return { verdict: 'OVER TARGET', summary, reasons: this.overTarget };
    return { verdict: 'OK', summary, reasons: [] };
  }
}

/** `OK` / `OVER TARGET` after a figure, as the benchmarks print it. */
export function mark(ok: boolean): string {
  return ok ? 'OK' : 'OVER TARGET';
}

export function log(line: string): void {
  console.log(`  ${line}`);
}

// ---------------------------------------------------------------------------
// Numbers

export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

export function latencySummary(values: readonly number[]): string {
  const max = values.length === 0 ? NaN : Math.max(...values);
  return (
    `n=${values.length} p50 ${percentile(values, 0.5).toFixed(2)} ms  ` +
    `p99 ${percentile(values, 0.99).toFixed(2)} ms  max ${max.toFixed(2)} ms`
  );
}

export const MiB = 1024 * 1024;

export function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

/** mulberry32: a small seeded PRNG, so a failing fuzz run can be replayed with its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resident set size of a process in bytes (Linux /proc), undefined when unreadable. */
export function rssBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; keeps the peak. */
export class RssSampler {
  peak = 0;
  last = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number | undefined,
    everyMs = 20,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  sample(): number {
    const rss = rssBytes(this.pid);
    if (rss !== undefined) {
      this.last = rss;
      this.peak = Math.max(this.peak, rss);
    }
    return this.last;
  }

  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}

// ---------------------------------------------------------------------------
// Frames

export function frame(body: string | object | Buffer): Buffer {
  const bytes = Buffer.isBuffer(body)
    ? body
    : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'ascii'), bytes]);
}

const HEADER_END = Buffer.from('\r\n\r\n', 'ascii');

/**
 * Splits the daemon's output into messages. Bodies are gathered as a list of
 * chunks and joined once complete, so a multi-megabyte frame costs one copy.
 * Anything that is not a `Content-Length` frame of a JSON body is a protocol
 * error of the daemon, recorded in `errors`.
 */
export class FrameReader {
  private header = Buffer.alloc(0);
  private parts: Buffer[] = [];
  private remaining = -1;
  readonly errors: string[] = [];
  bytes = 0;

  constructor(private readonly onMessage: (message: Json, size: number) => void) {}

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    let rest = chunk;
    while (rest.length > 0 && this.errors.length === 0) {
      if (this.remaining < 0) {
        const joined = this.header.length === 0 ? rest : Buffer.concat([this.header, rest]);
        const end = joined.indexOf(HEADER_END);
        if (end === -1) {
          this.header = Buffer.from(joined);
          if (this.header.length > 8192) this.errors.push('header longer than 8 KiB');
          return;
        }
        const match = /^Content-Length: (\d+)$/im.exec(joined.subarray(0, end).toString('latin1'));
        if (!match) {
          this.errors.push(`bad header ${JSON.stringify(joined.subarray(0, 200).toString())}`);
          return;
        }
        this.header = Buffer.alloc(0);
        this.remaining = Number(match[1]);
        this.parts = [];
        rest = joined.subarray(end + 4);
      }
      const take = Math.min(this.remaining, rest.length);
      this.parts.push(rest.subarray(0, take));
      this.remaining -= take;
      rest = rest.subarray(take);
      if (this.remaining === 0) {
        const body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
        this.parts = [];
        this.remaining = -1;
        let message: unknown;
        try {
          message = JSON.parse(body.toString('utf8'));
        } catch {
          this.errors.push(`body is not JSON: ${body.subarray(0, 200).toString()}`);
          return;
        }
        if (typeof message !== 'object' || message === null || Array.isArray(message)) {
          this.errors.push(`body is not an object: ${body.subarray(0, 200).toString()}`);
          return;
        }
        this.onMessage(message as Json, body.length);
      }
    }
  }
}

/** The key of a JSON-RPC id: 1 and "1" differ. */
export function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

interface Pending {
  resolve(message: Json): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * One raw connection to the daemon: frames out, frames in, requests matched
 * to responses by id. Notifications go to `onNotification`; nothing is kept
 * unless the caller keeps it.
 */
export class RawClient {
  readonly reader: FrameReader;
  private readonly pending = new Map<string, Pending>();
  private nextId = 1;
  closed = false;
  closedAt = 0;
  readonly whenClosed: Promise<void>;
  /** Every message the daemon sent that is not the answer to a request of `request()`. */
  onMessage: (message: Json, size: number) => void = () => undefined;
  onNotification: (method: string, params: Json, size: number) => void = () => undefined;

  constructor(readonly socket: Socket) {
    this.reader = new FrameReader((message, size) => this.dispatch(message, size));
    socket.on('data', (chunk: Buffer) => this.reader.push(chunk));
    socket.on('error', () => undefined);
    this.whenClosed = new Promise((resolve) =>
      socket.once('close', () => {
        this.closed = true;
        this.closedAt = performance.now();
        for (const [key, pending] of this.pending) {
          clearTimeout(pending.timer);
          pending.reject(new Error(`connection closed before the answer to ${key}`));
        }
        this.pending.clear();
        resolve();
      }),
    );
  }

  private dispatch(message: Json, size: number): void {
    const isResponse = !('method' in message) && 'id' in message;
    if (isResponse) {
      const pending = this.pending.get(idKey(message['id']));
      if (pending) {
        this.pending.delete(idKey(message['id']));
        clearTimeout(pending.timer);
        pending.resolve(message);
        return;
      }
    }
    this.onMessage(message, size);
    if (typeof message['method'] === 'string' && !('id' in message))
      this.onNotification(message['method'], (message['params'] ?? {}) as Json, size);
  }

  write(bytes: Buffer | string): boolean {
    if (this.socket.destroyed) return false;
    return this.socket.write(bytes);
  }

  send(message: object): void {
    this.write(frame(message));
  }

  notify(method: string, params?: unknown): void {
    this.send({ jsonrpc: '2.0', method, ...(params !== undefined && { params }) });
  }

  /** Resolves with the response (result or error) to a request with this id, sent by anyone. */
  awaitResponse(id: string | number, timeoutMs = 10_000): Promise<Json> {
    const key = idKey(id);
    return new Promise<Json>((resolve, reject) => {
      if (this.closed) return reject(new Error(`connection closed; no answer to ${key}`));
      const timer =
        timeoutMs === Infinity
          ? undefined
          : setTimeout(() => {
              this.pending.delete(key);
              reject(new Error(`no answer to ${key} within ${timeoutMs} ms`));
            }, timeoutMs);
      this.pending.set(key, { resolve, reject, timer });
    });
  }

  request(method: string, params?: unknown, timeoutMs = 10_000): Promise<Json> {
    const id = this.nextId++;
    const answer = this.awaitResponse(id, timeoutMs);
    this.send({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) });
    return answer;
  }

  async result(method: string, params?: unknown, timeoutMs = 10_000): Promise<Json> {
    const response = await this.request(method, params, timeoutMs);
    if (response['error'])
      throw new Error(`${method} failed: ${JSON.stringify(response['error']).slice(0, 300)}`);
    return response['result'] as Json;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export async function connectTo(address: string, timeoutMs = 5000): Promise<RawClient> {
  const socket = address.startsWith('unix:')
    ? connect(address.slice('unix:'.length))
    : connect(Number(address.slice(address.lastIndexOf(':') + 1)), '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`connect to ${address} timed out`)), timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  return new RawClient(socket);
}

// ---------------------------------------------------------------------------
// The daemon

export interface Daemon {
  child: ChildProcess;
  pid: number;
  /** `unix:/path` as the daemon printed it. */
  address: string;
  token: string;
  dataDir: string;
  /** A directory for session workspaces. */
  workspace: string;
  stderr(): string;
  exited: Promise<number | null>;
  alive(): boolean;
  connect(): Promise<RawClient>;
  /** A connection that presented the token and sent `initialized`. */
  authenticated(capabilities?: Json): Promise<RawClient>;
  close(): Promise<void>;
}

export interface DaemonOptions {
  /** Written to a file and passed with --script. */
  script?: object;
  /** Defaults to a fresh directory (removed on close). */
  dataDir?: string;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
}

export function assertBuilt(): void {
  if (!existsSync(BUNDLE))
    throw new Error(`the daemon is not built (${BUNDLE} is missing): run npm run build first`);
}

/** `arbor daemon --listen <unix socket> --provider scripted` from the built bundle. */
export async function startDaemon(options: DaemonOptions = {}): Promise<Daemon> {
  const scratch = mkdtempSync(join(tmpdir(), 'arbor-rel-'));
  const dataDir = options.dataDir ?? join(scratch, 'data');
  const workspace = join(scratch, 'ws');
  const args = [
    ARBOR_BIN,
    'daemon',
    '--listen',
    join(scratch, 'arbor.sock'),
    '--data-dir',
    dataDir,
    '--provider',
    'scripted',
    '--log-level',
    options.logLevel ?? 'error',
  ];
  if (options.script) {
    const file = join(scratch, 'script.json');
    writeFileSync(file, JSON.stringify(options.script));
    args.push('--script', file);
  }
  mkdirSync(workspace);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no listening line; stderr: ${stderr}`)),
      15_000,
    );
    child.stderr!.on('data', (chunk: Buffer) => {
      // Keep the start (the listening line, early errors) and the recent end.
      stderr = stderr.length > 200_000 ? stderr.slice(0, 20_000) + stderr.slice(-100_000) : stderr;
      stderr += chunk.toString();
      const match = /^arbor: listening on (\S+)$/m.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code}: ${stderr}`));
    });
  });
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  const live = new Set<RawClient>();
  const daemon: Daemon = {
    child,
    pid: child.pid!,
    address,
    token,
    dataDir,
    workspace,
    stderr: () => stderr,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
    connect: async () => {
      const client = await connectTo(address);
      live.add(client);
      void client.whenClosed.then(() => live.delete(client));
      return client;
    },
    authenticated: async (capabilities = {}) => {
      const client = await daemon.connect();
      await client.result('initialize', {
        token,
        protocolVersion: 1,
        clientInfo: { name: 'arbor-reliability' },
        capabilities,
      });
      client.notify('initialized', {});
      return client;
    },
    close: async () => {
      for (const client of live) client.destroy();
      if (daemon.alive()) {
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(scratch, { recursive: true, force: true });
    },
  };
  return daemon;
}

/** Waits for a notification on `client` matching `match`; rejects after `timeoutMs`. */
export function nextNotification(
  client: RawClient,
  match: (method: string, params: Json) => boolean,
  timeoutMs: number,
): Promise<Json> {
  return new Promise<Json>((resolve, reject) => {
    const previous = client.onNotification;
    const timer = setTimeout(() => {
      client.onNotification = previous;
      reject(new Error(`no matching notification within ${timeoutMs} ms`));
    }, timeoutMs);
    client.onNotification = (method, params, size) => {
      previous(method, params, size);
      if (match(method, params)) {
        clearTimeout(timer);
        client.onNotification = previous;
        resolve(params);
      }
    };
  });
}

/**
 * Runs turns on one session and waits for each turn's idle `session/state`.
 * Every notification of the session is checked for a seq gap.
 */
export class TurnDriver {
  private waiters = new Map<string, (params: Json) => void>();
  private earlyIdle = new Map<string, Json>();
  lastSeq: number | undefined;
  readonly gaps: string[] = [];
  events = 0;

  constructor(
    readonly client: RawClient,
    readonly sessionId: string,
  ) {
    const previous = client.onNotification;
    client.onNotification = (method, params, size) => {
      previous(method, params, size);
      if (params['sessionId'] !== sessionId) return;
      const seq = params['seq'];
      if (typeof seq === 'number') {
        if (this.lastSeq !== undefined && seq !== this.lastSeq + 1)
          this.gaps.push(`${method} seq ${seq} after ${this.lastSeq}`);
        this.lastSeq = seq;
        this.events += 1;
      }
      if (method === 'session/state' && params['state'] === 'idle') {
        const turnId = String(params['turnId']);
        const waiter = this.waiters.get(turnId);
        if (waiter) {
          this.waiters.delete(turnId);
          waiter(params);
        } else this.earlyIdle.set(turnId, params);
      }
    };
  }

  /** chat/send, then the turn's idle params (stopReason, error…). */
  async turn(
    text: string,
    timeoutMs = 30_000,
  ): Promise<{ turnId: string; idle: Json; sendMs: number }> {
    const started = performance.now();
    const sent = await this.client.result(
      'chat/send',
      { sessionId: this.sessionId, text },
      timeoutMs,
    );
    const sendMs = performance.now() - started;
    const turnId = String(sent['turnId']);
    const early = this.earlyIdle.get(turnId);
    if (early) {
      this.earlyIdle.delete(turnId);
      return { turnId, idle: early, sendMs };
    }
    const idle = await new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(turnId);
        reject(new Error(`turn ${turnId} did not end within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(turnId, (params) => {
        clearTimeout(timer);
        resolve(params);
      });
    });
    return { turnId, idle, sendMs };
  }
}

export interface Pinger {
  /** Round-trip times of the answered requests, ms. */
  latencies: number[];
  /** When each answer arrived (performance.now()). */
  answeredAt: number[];
  sent: number;
  unanswered: string[];
  stop(): Promise<void>;
}

/**
 * `session/list` every `intervalMs` on `client`, open loop (the next one goes
 * out whether or not the previous was answered), each timed. A request not
 * answered within `hangMs` is recorded in `unanswered`.
 */
export function startPinger(client: RawClient, intervalMs: number, hangMs = 10_000): Pinger {
  const pinger: Pinger = {
    latencies: [],
    answeredAt: [],
    sent: 0,
    unanswered: [],
    stop: async () => {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const sent = performance.now();
    pinger.sent += 1;
    const answer = client
      .request('session/list', { limit: 1 }, hangMs)
      .then(
        () => {
          const now = performance.now();
          pinger.latencies.push(now - sent);
          pinger.answeredAt.push(now);
        },
        (error: Error) => void pinger.unanswered.push(error.message),
      )
      .finally(() => inFlight.delete(answer));
    inFlight.add(answer);
  }, intervalMs);
  return pinger;
}

/** session/new in auto mode on the daemon's workspace; returns the session id. */
export async function newSession(client: RawClient, workspaceRoot: string): Promise<string> {
  const info = await client.result('session/new', { workspaceRoot, permissionMode: 'auto' });
  return String(info['sessionId']);
}
