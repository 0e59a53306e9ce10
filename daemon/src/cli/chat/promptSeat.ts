/**
 * One prompt at a time: approvals and questions both read the keyboard, so
 * a prompter asks only while it holds the seat, and the others wait for it
 * to be free (parallel tool calls can ask at the same moment).
 */
import type { Disposable } from '@arbor/protocol/client';

export class PromptSeat {
  #taken = false;
  readonly #waiting = new Set<() => void>();

  /** Takes the seat when it is free. */
  take(): boolean {
    if (this.#taken) return false;
    this.#taken = true;
    return true;
  }

  /** Frees the seat and lets the waiting prompters try, in the order they asked. */
  release(): void {
    this.#taken = false;
    for (const retry of [...this.#waiting]) {
      if (this.#taken) return;
      retry();
    }
  }

  /** Called whenever the seat is freed. */
  onFree(retry: () => void): Disposable {
    this.#waiting.add(retry);
    return { dispose: () => this.#waiting.delete(retry) };
  }
}
