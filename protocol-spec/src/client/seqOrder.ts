/**
 * SeqOrder: puts one session's events back in `seq` order. Pure.
 *
 * seq is strictly increasing per session, starting at 1. An event right after
 * the last applied one is released at once; a later one is held (a gap: some
 * event was lost or is still to be replayed); an event at or below the last
 * applied seq, or already held, is a duplicate (a replay overlapping the live stream).
 */

export interface Offered<T> {
  /** Events now applicable, in seq order. */
  ready: T[];
  /** The event was held because an earlier seq is missing. */
  gap: boolean;
  /** The event was seen before and dropped. */
  duplicate: boolean;
}

export class SeqOrder<T> {
  #last: number | undefined;
  readonly #held = new Map<number, T>();

  /** `lastSeq` undefined: no baseline yet (attach pending) — everything is held until `rebase`. */
  constructor(lastSeq: number | undefined = 0) {
    this.#last = lastSeq;
  }

  /** Highest seq applied, or undefined before a baseline. */
  get lastSeq(): number | undefined {
    return this.#last;
  }

  /** Events waiting for an earlier seq. */
  get heldCount(): number {
    return this.#held.size;
  }

  /** The lowest seq held, if any. */
  get firstHeld(): number | undefined {
    let min: number | undefined;
    for (const seq of this.#held.keys()) if (min === undefined || seq < min) min = seq;
    return min;
  }

  offer(seq: number, item: T): Offered<T> {
    if ((this.#last !== undefined && seq <= this.#last) || this.#held.has(seq)) {
      return { ready: [], gap: false, duplicate: true };
    }
    if (this.#last === undefined || seq !== this.#last + 1) {
      this.#held.set(seq, item);
      return { ready: [], gap: this.#last !== undefined, duplicate: false };
    }
    this.#last = seq;
    return { ready: [item, ...this.#drain()], gap: false, duplicate: false };
  }

  /**
   * Moves the baseline (a snapshot covers everything up to `lastSeq`): held
   * events it covers are dropped, the ones right after it are released.
   */
  rebase(lastSeq: number): T[] {
    this.#last = lastSeq;
    for (const seq of [...this.#held.keys()]) if (seq <= lastSeq) this.#held.delete(seq);
    return this.#drain();
  }

  #drain(): T[] {
    const out: T[] = [];
    for (;;) {
      const next = (this.#last ?? 0) + 1;
      if (!this.#held.has(next)) return out;
      const item = this.#held.get(next) as T;
      this.#held.delete(next);
      this.#last = next;
      out.push(item);
    }
  }
}
