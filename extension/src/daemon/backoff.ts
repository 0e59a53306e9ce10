/** Restart delays after a daemon crash: exponential, capped, reset after a healthy run. */
export interface BackoffOptions {
  baseMs?: number;
  maxMs?: number;
  /** Give up after this many restarts without a healthy run. */
  maxAttempts?: number;
  /** A connection that lived this long counts as healthy and resets the count. */
  healthyAfterMs?: number;
}

export class RestartBackoff {
  #attempts = 0;
  readonly #base: number;
  readonly #max: number;
  readonly #maxAttempts: number;
  readonly #healthyAfter: number;

  constructor(options: BackoffOptions = {}) {
    this.#base = options.baseMs ?? 1000;
    this.#max = options.maxMs ?? 30_000;
    this.#maxAttempts = options.maxAttempts ?? 5;
    this.#healthyAfter = options.healthyAfterMs ?? 60_000;
  }

  /** The delay before the next restart, or undefined to give up. `uptimeMs`: how long the last connection lived. */
  next(uptimeMs: number): number | undefined {
    if (uptimeMs >= this.#healthyAfter) this.#attempts = 0;
    if (this.#attempts >= this.#maxAttempts) return undefined;
    const delay = Math.min(this.#max, this.#base * 2 ** this.#attempts);
    this.#attempts++;
    return delay;
  }

  reset(): void {
    this.#attempts = 0;
  }
}
