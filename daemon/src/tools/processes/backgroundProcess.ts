/**
 * One background process: a shell command spawned like run_command's
 * (sandboxedSpawn: bubblewrap when it works, secrets out of its environment,
 * its own process group), that nobody waits for. What it writes goes to a
 * ring buffer and to whoever listens; stopping it signals its whole group,
 * SIGTERM and, after a grace, SIGKILL. When its shell ends, whatever it
 * left running in its group is killed too, so `exited` means gone. It
 * never outlives the daemon: a sandboxed one dies with bwrap, which dies
 * with the daemon; one without a sandbox has a watchdog (orphanWatchdog.ts).
 */
import { StringDecoder } from 'node:string_decoder';
import { killGroup, type SandboxedProcess } from '../sandbox/sandboxedSpawn.js';
import { watchForOrphaning } from './orphanWatchdog.js';
import { OutputRing } from './outputRing.js';

/** Grace between SIGTERM and SIGKILL: long enough for a dev server to close its sockets. */
export const STOP_GRACE_MS = 2000;
/** How long `exited` waits, after the process exited, for its output pipes to close. */
const CLOSE_WAIT_MS = 1000;

export type ProcessState =
  | { state: 'running' }
  | {
      state: 'exited';
      exitCode: number | null;
      signal: NodeJS.Signals | null;
      /** Who stopped it, when it did not end by itself. */
      stoppedBy?: 'process_kill' | 'session_end';
      /** The process could not be started (spawn failed). */
      failure?: string;
    };

export interface BackgroundProcessInfo {
  /** Session-unique id the model names it by: `p1`, `p2`, … */
  id: string;
  command: string;
  /** As the model gave it, relative to the workspace root. */
  cwd: string;
  /** Host pid of what the daemon spawned (bwrap when sandboxed): the leader of its process group. */
  pid: number | undefined;
  startedAt: number;
}

export class BackgroundProcess {
  readonly output: OutputRing;
  /** How far the model has read: process_output without `since` continues here. */
  delivered = 0;
  private current: ProcessState = { state: 'running' };
  private stopping: 'process_kill' | 'session_end' | undefined;
  private readonly listeners = new Set<(text: string) => void>();
  private readonly child: SandboxedProcess['child'];
  private readonly stopWatchdog: (() => void) | undefined;
  /** The SIGKILL that follows a stop's SIGTERM unless the process exits first. */
  private escalation: NodeJS.Timeout | undefined;
  /** Settles once the process has exited and what ran in its sandbox is gone (or it never started). */
  readonly exited: Promise<void>;

  constructor(
    readonly info: BackgroundProcessInfo,
    spawned: SandboxedProcess,
    outputCapacity: number,
  ) {
    const { child } = spawned;
    this.child = child;
    this.output = new OutputRing(outputCapacity);
    for (const stream of [child.stdout, child.stderr]) {
      // A decoder per stream keeps characters whole across chunks.
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => this.write(decoder.write(chunk)));
    }
    this.stopWatchdog =
      spawned.sandbox === 'none' && child.pid !== undefined
        ? watchForOrphaning(child.pid)
        : undefined;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    this.exited = new Promise((resolve) => {
      child.once('error', (error) => {
        this.end({ state: 'exited', exitCode: null, signal: null, failure: error.message });
        resolve();
      });
      child.once('exit', (exitCode, signal) => {
        this.end({
          state: 'exited',
          exitCode,
          signal,
          ...(this.stopping && { stoppedBy: this.stopping }),
        });
        // bwrap exits before the processes in its sandbox are torn down (they die with it):
        // they are gone, their ports closed, once its pipes close. Not waited for forever:
        // something that left the group may hold them.
        const late = setTimeout(resolve, CLOSE_WAIT_MS);
        late.unref();
        void closed.then(() => {
          clearTimeout(late);
          resolve();
        });
      });
    });
  }

  get status(): ProcessState {
    return this.current;
  }

  get running(): boolean {
    return this.current.state === 'running';
  }

  /** Calls `listener` with what the process writes from now on; the returned function stops it. */
  listen(listener: (text: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** SIGTERM to its group, SIGKILL after the grace; resolves once it has exited. */
  async stop(by: 'process_kill' | 'session_end'): Promise<void> {
    if (this.running && this.stopping === undefined) {
      this.stopping = by;
      killGroup(this.child.pid, 'SIGTERM');
      this.escalation = setTimeout(() => killGroup(this.child.pid, 'SIGKILL'), STOP_GRACE_MS);
      this.escalation.unref();
    }
    await this.exited;
  }

  private write(text: string): void {
    this.output.append(text);
    for (const listener of this.listeners) listener(text);
  }

  private end(state: ProcessState): void {
    if (!this.running) return;
    this.current = state;
    clearTimeout(this.escalation);
    this.stopWatchdog?.();
    // What it started and left behind in its group goes with it.
    killGroup(this.child.pid, 'SIGKILL');
  }
}
