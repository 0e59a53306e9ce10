/**
 * When to start the daemon again after it failed, and when to stop trying.
 * No `vscode` import: the supervisor feeds it what happened and acts on
 * what it decides, and the unit tests drive it with a fake clock.
 *
 * - A crash, or a start that never reached `initialize`, is retried after an
 *   exponential, capped delay (backoff.ts); only a connection that stayed up
 *   for a while forgives earlier failures. Failures before the daemon was
 *   ever ready count as zero uptime, whatever an earlier run achieved.
 * - After the last attempt it gives up once, with the reason.
 * - A configuration problem (no usable Node, a bad setting or config file:
 *   the daemon exits with code 2 at startup) is reported at once: retrying
 *   cannot fix it.
 */
import { RestartBackoff, type BackoffOptions } from './backoff.js';

export type DaemonFailure = { kind: 'configuration' | 'crash'; reason: string };

export interface Clock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface RestartLoopEvents {
  /** Time to start the daemon again. */
  restart(): void;
  /** A restart is due in `waitMs`. */
  retrying(reason: string, waitMs: number): void;
  /** The last attempt failed too: nothing more happens until the user acts. */
  gaveUp(reason: string): void;
  /** Not retried: the user must change something first. */
  configurationError(reason: string): void;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class RestartLoop {
  readonly #backoff: RestartBackoff;
  #readyAt: number | undefined;
  #timer: unknown;

  constructor(
    private readonly events: RestartLoopEvents,
    private readonly clock: Clock = SYSTEM_CLOCK,
    backoff: BackoffOptions = {},
  ) {
    this.#backoff = new RestartBackoff(backoff);
  }

  /** The daemon answered `initialize`: its uptime counts from now. */
  ready(): void {
    this.#readyAt = this.clock.now();
  }

  /** The daemon could not start, or its connection ended without being asked to. */
  failed(failure: DaemonFailure): void {
    // One failure can surface twice (the connection closes and initialize rejects).
    if (this.#timer !== undefined) return;
    const uptime = this.#readyAt === undefined ? 0 : this.clock.now() - this.#readyAt;
    this.#readyAt = undefined;
    if (failure.kind === 'configuration') {
      this.events.configurationError(failure.reason);
      return;
    }
    const wait = this.#backoff.next(uptime);
    if (wait === undefined) {
      this.events.gaveUp(failure.reason);
      return;
    }
    this.events.retrying(failure.reason, wait);
    this.#timer = this.clock.setTimeout(() => {
      this.#timer = undefined;
      this.events.restart();
    }, wait);
  }

  /** A start the user asked for (Restart Daemon, Retry): a fresh count. */
  reset(): void {
    this.cancel();
    this.#backoff.reset();
  }

  /** Stop: no restart is pending any more. */
  cancel(): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#readyAt = undefined;
  }
}
