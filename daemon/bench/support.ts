/**
 * Shared pieces of the process-level benchmarks (streaming.ts, turnLatency.ts):
 * a spawned scripted daemon driven by the client core, the raw vscode-jsonrpc
 * peer (rpcPeer.ts), CPU time of a child read from /proc, and percentiles.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Methods, type ScriptInput } from '@arbor/protocol';
import type { ArborClient } from '@arbor/protocol/client';
import { connectArbor, type ArborConnection } from '@arbor/protocol/client/node';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';

export const ARBOR = fileURLToPath(new URL('../bin/arbor.js', import.meta.url));
const PEER = fileURLToPath(new URL('./rpcPeer.ts', import.meta.url));
const MACROTASK_DAEMON = fileURLToPath(new URL('./macrotaskDaemon.ts', import.meta.url));
const DAEMON_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * Delta i of a long answer, as the scripted provider streams it: the provider
 * splits text into pieces of at most 24 characters at spaces, so words of 23
 * characters joined by single spaces come out as exactly one delta per word —
 * the first 23 characters, every later one a space plus 23 characters.
 */
const WORD = 'abcdefghijklmnopqrstuvw';
const SPACED_WORD = ` ${WORD}`;
export function deltaText(i: number): string {
  return i === 0 ? WORD : SPACED_WORD;
}
/** The text the scripted provider streams as exactly `deltas` deltas. */
export function longText(deltas: number): string {
  return new Array<string>(deltas).fill(WORD).join(' ');
}

let clockTicks: number | undefined;
/** User + system CPU time of a process in µs (Linux /proc; clock-tick resolution), undefined elsewhere. */
export function processCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  // Fields after "(comm) ": state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / clockTicks;
}

/** This process's user + system CPU time in µs. */
export function ownCpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface RawPeer {
  child: ChildProcess;
  connection: MessageConnection;
  close(): Promise<void>;
}

/** Spawns rpcPeer.ts (plain vscode-jsonrpc over stdio) and connects to it. */
export function spawnRawPeer(): Promise<RawPeer> {
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), PEER], {
    cwd: DAEMON_DIR,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => {
      const connection = createMessageConnection(
        new StreamMessageReader(child.stdout!),
        new StreamMessageWriter(child.stdin!),
      );
      connection.listen();
      resolve({
        child,
        connection,
        close: async () => {
          await connection.sendNotification('bench/exit').catch(() => undefined);
          await Promise.race([exited, sleep(2000)]);
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          connection.dispose();
        },
      });
    });
  });
}

export interface ScriptedDaemon {
  arbor: ArborConnection;
  client: ArborClient;
  pid: number | undefined;
  /** A directory to use as a session's workspace root. */
  workspace: string;
  /** Creates a session (auto permission mode) and returns its id. */
  newSession(): Promise<string>;
  /** chat/send, then waits for that turn's session/state idle; resolves with its stopReason. */
  turn(sessionId: string, text: string): Promise<{ turnId: string; stopReason: string }>;
  close(): Promise<void>;
}

/**
 * Spawns `arbor daemon --stdio --provider scripted --script <file>` (the built
 * bundle, as an editor would) in a fresh data dir, and initializes a client.
 * `macrotask`: spawns macrotaskDaemon.ts instead — the same daemon whose
 * scripted deltas each arrive in their own event-loop turn.
 */
export async function startScriptedDaemon(
  script: ScriptInput,
  options: { macrotask?: boolean } = {},
): Promise<ScriptedDaemon> {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-'));
  const scriptFile = join(dir, 'script.json');
  writeFileSync(scriptFile, JSON.stringify(script));
  const dataDir = join(dir, 'data');
  const arbor = await connectArbor(
    {
      spawn: {
        command: process.execPath,
        cwd: DAEMON_DIR,
        args: options.macrotask
          ? ['--import', import.meta.resolve('tsx'), MACROTASK_DAEMON, dataDir, scriptFile]
          : [
              ARBOR,
              'daemon',
              '--stdio',
              '--provider',
              'scripted',
              '--script',
              scriptFile,
              '--data-dir',
              dataDir,
              '--log-level',
              'error',
            ],
        stderr: 'inherit',
      },
    },
    { clientInfo: { name: 'arbor-bench' } },
  );
  const client = arbor.client;
  client.on('error', (error) => console.error(`  client error: ${error.message}`));
  await client.initialize();

  const waiting = new Map<string, (result: { stopReason: string }) => void>();
  client.onNotification(Methods.SessionState, (params) => {
    if (params.state !== 'idle' || params.stopReason === undefined) return;
    const resolve = waiting.get(params.sessionId);
    waiting.delete(params.sessionId);
    resolve?.({ stopReason: params.stopReason });
  });

  return {
    arbor,
    client,
    pid: arbor.process?.child.pid,
    workspace: dir,
    newSession: async () => {
      const info = await client.request(Methods.SessionNew, {
        workspaceRoot: dir,
        permissionMode: 'auto',
      });
      return info.sessionId;
    },
    turn: async (sessionId, text) => {
      const idle = new Promise<{ stopReason: string }>((resolve) =>
        waiting.set(sessionId, resolve),
      );
      const { turnId } = await client.request(Methods.ChatSend, { sessionId, text });
      const { stopReason } = await idle;
      return { turnId, stopReason };
    },
    close: async () => {
      await arbor.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
