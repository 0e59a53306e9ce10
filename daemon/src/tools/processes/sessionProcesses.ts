/**
 * SessionProcesses: the background processes of every session, the one
 * seam between them and the rest of the daemon. The process tools start,
 * read, list and stop them through it (processTools.ts); the toolsets
 * release a session's processes when the session is deleted and all of them
 * when the daemon closes its tools (toolset.ts). A session runs at most
 * MAX_RUNNING_PROCESSES at once and keeps the last MAX_KEPT_EXITED that
 * ended, so their output can still be read.
 */
import { daemonSecrets, type SecretRedactor } from '../../security/secretRedactor.js';
import { sandboxedSpawn } from '../sandbox/sandboxedSpawn.js';
import { sandboxSettings } from '../sandbox/sandboxSettings.js';
import { BackgroundProcess } from './backgroundProcess.js';

export const MAX_RUNNING_PROCESSES = 8;
export const MAX_KEPT_EXITED = 8;
/** Output kept per process: its last 1 Mi characters. */
export const MAX_PROCESS_OUTPUT_CHARS = 1024 * 1024;

export interface SessionProcessesOptions {
  /** Secrets replaced in what the model and the tree see (default the daemon's). */
  redactor?: SecretRedactor;
}

export interface StartRequest {
  command: string;
  /** As the model gave it. */
  cwd: string;
  /** Real paths: where it starts, and the workspace the sandbox lets it write. */
  directory: string;
  workspaceRoot: string;
}

export type StartOutcome =
  | {
      process: BackgroundProcess;
      /** Why it runs without a sandbox, when it does. */
      unsandboxedReason?: string;
      /** Sandboxed without network: its ports are reachable from inside its sandbox only. */
      isolatedNetwork: boolean;
    }
  | { error: string };

interface SessionEntry {
  processes: Map<string, BackgroundProcess>;
  nextId: number;
  /** Starts under way, counted against the limit before they exist. */
  starting: number;
}

export class SessionProcesses {
  private readonly sessions = new Map<string, SessionEntry>();
  readonly redactor: SecretRedactor;

  constructor(options: SessionProcessesOptions = {}) {
    this.redactor = options.redactor ?? daemonSecrets;
  }

  async start(sessionId: string, request: StartRequest): Promise<StartOutcome> {
    const entry = this.entry(sessionId);
    const running = this.list(sessionId).filter((p) => p.running);
    if (running.length + entry.starting >= MAX_RUNNING_PROCESSES) {
      return {
        error:
          `refused: this session already runs ${MAX_RUNNING_PROCESSES} background processes, the most it may ` +
          `(${running.map((p) => p.info.id).join(', ')}). Stop one with process_kill first.`,
      };
    }
    const id = `p${entry.nextId++}`;
    // The daemon's, as configured at startup; its environment, secrets removed.
    const settings = sandboxSettings();
    entry.starting++;
    let spawned;
    try {
      spawned = await sandboxedSpawn(request.command, {
        cwd: request.directory,
        workspaceRoot: request.workspaceRoot,
        dataDir: settings.dataDir,
        network: settings.network,
        env: process.env,
        allowEnv: settings.allowEnv,
        mode: settings.mode,
      });
    } catch (caught) {
      return { error: `failed to start: ${(caught as Error).message}` };
    } finally {
      entry.starting--;
    }
    const started = new BackgroundProcess(
      {
        id,
        command: request.command,
        cwd: request.cwd,
        pid: spawned.child.pid,
        startedAt: Date.now(),
      },
      spawned,
      MAX_PROCESS_OUTPUT_CHARS,
    );
    if (this.sessions.get(sessionId) !== entry) {
      // The session was deleted while the process started.
      void started.stop('session_end');
      return { error: 'failed to start: the session was closed' };
    }
    entry.processes.set(id, started);
    void started.exited.then(() => this.forgetOldExited(entry));
    return {
      process: started,
      ...(spawned.unsandboxedReason !== undefined && {
        unsandboxedReason: spawned.unsandboxedReason,
      }),
      isolatedNetwork: spawned.sandbox === 'bubblewrap' && !settings.network,
    };
  }

  get(sessionId: string, id: string): BackgroundProcess | undefined {
    return this.sessions.get(sessionId)?.processes.get(id);
  }

  /** In the order they were started. */
  list(sessionId: string): BackgroundProcess[] {
    return [...(this.sessions.get(sessionId)?.processes.values() ?? [])];
  }

  /** The session is gone: its processes are stopped and forgotten. */
  release(sessionId: string): Promise<void> {
    const entry = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    return stopAll(entry);
  }

  async closeAll(): Promise<void> {
    const entries = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(entries.map(stopAll));
  }

  private entry(sessionId: string): SessionEntry {
    let entry = this.sessions.get(sessionId);
    if (entry === undefined) {
      entry = { processes: new Map(), nextId: 1, starting: 0 };
      this.sessions.set(sessionId, entry);
    }
    return entry;
  }

  private forgetOldExited(entry: SessionEntry): void {
    const exited = [...entry.processes.values()].filter((p) => !p.running);
    for (const old of exited.slice(0, Math.max(0, exited.length - MAX_KEPT_EXITED)))
      entry.processes.delete(old.info.id);
  }
}

async function stopAll(entry: SessionEntry | undefined): Promise<void> {
  if (entry === undefined) return;
  await Promise.all([...entry.processes.values()].map((p) => p.stop('session_end')));
}
