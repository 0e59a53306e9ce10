/** Starting implementations under test: a shell command on stdio, or a socket to connect to. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Transcript } from './transcript.js';

export function makeTempDir(prefix = 'arbor-conformance-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface Spawned {
  child: ChildProcess;
  exit: Promise<number | null>;
  kill(): void;
}

/**
 * Runs `command` through the shell in its own process group (so killing it
 * also kills what the shell started). `{tmp}` in the command becomes a fresh
 * temporary directory, so parallel daemons never share a data dir.
 */
export function spawnCommand(
  command: string,
  options: {
    env?: NodeJS.ProcessEnv;
    transcript?: Transcript;
    label?: string;
    cleanup?: string[];
  } = {},
): Spawned {
  const dirs: string[] = [...(options.cleanup ?? [])];
  const expanded = command.replace(/\{tmp\}/g, () => {
    const dir = makeTempDir('arbor-conformance-data-');
    dirs.push(dir);
    return dir;
  });
  const child = spawn(expanded, {
    shell: true,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: Object.fromEntries(
      Object.entries({ ...process.env, ...options.env }).filter(([, v]) => v !== undefined),
    ),
  });
  const label = options.label ?? 'process';
  child.stderr?.on('data', (chunk: Buffer) => {
    options.transcript?.add({
      connection: label,
      direction: 'impl→harness',
      kind: 'stderr',
      text: chunk.toString('utf8').trimEnd(),
    });
  });
  child.stdin?.on('error', () => undefined);
  const exit = new Promise<number | null>((resolve) => {
    child.on('exit', (code, signal) => {
      options.transcript?.note(
        label,
        `process exited with code ${code}${signal ? ` (${signal})` : ''}`,
      );
      resolve(code);
    });
    child.on('error', (error) => {
      options.transcript?.note(label, `could not start: ${error.message}`);
      resolve(null);
    });
  });
  void exit.then(() => {
    for (const dir of dirs) removeDir(dir);
  });
  const kill = (): void => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  return { child, exit, kill };
}

/** `host:port` (127.0.0.1 only in practice) or a Unix socket path. */
export function connectSocket(address: string): Promise<net.Socket> {
  const match = /^([^/:]+):(\d+)$/.exec(address);
  return new Promise((resolve, reject) => {
    const socket = match ? net.connect(Number(match[2]), match[1]) : net.connect(address);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Retries connecting until the daemon listens (it may still be starting). */
export async function waitForSocket(address: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const socket = await connectSocket(address);
      socket.destroy();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
