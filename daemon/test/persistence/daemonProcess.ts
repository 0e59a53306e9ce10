/**
 * Spawned daemons on a data dir, for persistence tests: the real CLI with the
 * scripted provider, started, stopped, killed and started again on the same dir.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScriptInput } from '@arbor/protocol';
import { DATABASE_FILE_NAME } from '../../src/store/index.js';
import { openDatabase } from '../../src/store/sqlite/index.js';
import {
  spawnStdioDaemon,
  type DaemonProcess,
  type Json,
  type SpawnOptions,
} from '../helpers/wire.js';

/** Replies keyed by a word of the user's message (the scripted provider's containment rule). */
export const SCRIPT: ScriptInput = {
  version: 1,
  conversations: {
    // A tool call, then the answer: the stored tree has a tool node under the turn.
    plan: [
      { toolCalls: [{ name: 'memory_write', arguments: { key: 'trip', value: 'Lisbon' } }] },
      { text: 'Trip planned: Lisbon.', usage: { inputTokens: 40, outputTokens: 7 } },
    ],
    // A tool call that finishes, then an answer that never comes before the kill.
    slow: [
      { toolCalls: [{ name: 'memory_write', arguments: { key: 'k', value: 'v' } }] },
      { text: 'never seen', delayMs: 60_000 },
    ],
    // Streams the start of an answer, then a tool call that finishes and a subtask
    // that never does: a kill leaves text and a half-done tree in the event log.
    partial: [
      {
        text: 'Looking into your trip first.',
        toolCalls: [
          { name: 'memory_write', arguments: { key: 'trip', value: 'Porto' } },
          {
            name: 'run_subtask',
            arguments: { title: 'Find flights', instructions: 'stall while finding flights' },
          },
        ],
      },
      { text: 'never seen', delayMs: 60_000 },
    ],
    // The subtask of `partial`: streams its own text and runs a tool, then hangs.
    stall: [
      {
        text: 'Searching flights.',
        toolCalls: [{ name: 'memory_write', arguments: { key: 'flights', value: 'none yet' } }],
      },
      { text: 'never seen', delayMs: 60_000 },
    ],
    // Ends within a few ms: a kill lands before, during or after its commit.
    fast: [{ text: 'quick answer', delayMs: 3 }],
    '*': [{ text: 'ok', usage: { inputTokens: 2, outputTokens: 1 } }],
  },
};

const scratch: string[] = [];

/** A fresh directory, removed by removeScratch(); `shared`: others may enter it (mode 0755). */
export function scratchDir(prefix = 'arbor-persist-', shared = false): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (shared) chmodSync(dir, 0o755);
  scratch.push(dir);
  return dir;
}

export function removeScratch(): void {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

let scriptFile: string | undefined;
function scriptPath(): string {
  if (!scriptFile) {
    scriptFile = join(mkdtempSync(join(tmpdir(), 'arbor-script-')), 'script.json');
    writeFileSync(scriptFile, JSON.stringify(SCRIPT));
  }
  return scriptFile;
}

export interface RunningDaemon extends DaemonProcess {
  result(method: string, params?: unknown): Promise<Json>;
  /** Notifications received so far, optionally of one method. */
  events(method?: string): Json[];
  /** Resolves with the params of the first notification received (so far or later) that matches. */
  waitForEvent(method: string, match: (params: Json) => boolean, timeoutMs?: number): Promise<Json>;
  /** SIGKILL, and wait until the process is gone. */
  kill(): Promise<void>;
  /** shutdown + exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

const live = new Set<RunningDaemon>();

/** `arbor daemon --stdio --provider scripted` on `dataDir`, initialized. */
export async function startDaemon(dataDir: string, options?: SpawnOptions): Promise<RunningDaemon> {
  const process = spawnStdioDaemon(
    [
      '--data-dir',
      dataDir,
      '--provider',
      'scripted',
      '--script',
      scriptPath(),
      '--log-level',
      'warn',
    ],
    options,
  );
  const { client } = process;
  const daemon: RunningDaemon = {
    ...process,
    result: (method, params) => client.result(method, params),
    events: (method) => client.notifications(method),
    waitForEvent: async (method, match, timeoutMs = 10_000) => {
      const event = await client.received.waitFor(
        (m) => m['method'] === method && !('id' in m) && match(m['params'] as Json),
        timeoutMs,
      );
      return event['params'] as Json;
    },
    kill: async () => {
      live.delete(daemon);
      process.child.kill('SIGKILL');
      await process.exited;
    },
    stop: async () => {
      live.delete(daemon);
      await client.result('shutdown');
      client.notify('exit');
      return process.exited;
    },
  };
  live.add(daemon);
  try {
    await client.result('initialize', { clientInfo: { name: 'persistence-test' } });
  } catch (error) {
    await daemon.kill();
    throw new Error(`${(error as Error).message}\nstderr: ${process.stderr()}`);
  }
  client.notify('initialized', {});
  return daemon;
}

/** For afterEach: no daemon outlives its test. */
export async function killAll(): Promise<void> {
  await Promise.all([...live].map((d) => d.kill()));
}

export function databaseFile(dataDir: string): string {
  return join(dataDir, DATABASE_FILE_NAME);
}

/** `PRAGMA integrity_check` of the data dir's database, read-only (the next daemon does the recovery). */
export function integrityCheck(dataDir: string): unknown {
  const db = openDatabase(databaseFile(dataDir), { readonly: true, fileMustExist: true });
  try {
    return db.pragma('integrity_check', { simple: true });
  } finally {
    db.close();
  }
}

/** The session/state `idle` that ends `turnId`. */
export const turnEnded =
  (turnId: unknown) =>
  (params: Json): boolean =>
    params['turnId'] === turnId && params['state'] === 'idle';
