/**
 * How the calls of one model turn share time: parallel-safe calls run
 * concurrently, at most `maxParallel` at once (the surplus waits for a slot);
 * calls holding the same lock run one after another in emitted order; calls
 * that are neither parallel-safe nor locked run alone, after the others.
 */
import { raceAbort } from './abort.js';

export interface ScheduledCall {
  parallelSafe: boolean;
  lock: string | undefined;
}

class Slots {
  private free: number;
  private readonly waiters: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free += 1;
  }
}

/**
 * Runs every call with `run`, which must not throw except when the turn is
 * aborted. Resolves when all calls are done; rejects as soon as `signal` aborts.
 */
export async function scheduleCalls<C extends ScheduledCall>(
  calls: readonly C[],
  options: { maxParallel: number; signal: AbortSignal },
  run: (call: C) => Promise<void>,
): Promise<void> {
  const slots = new Slots(options.maxParallel);
  const inSlot = async (call: C): Promise<void> => {
    await raceAbort(slots.acquire(), options.signal);
    try {
      await run(call);
    } finally {
      slots.release();
    }
  };

  const concurrent: Promise<void>[] = [];
  const chains = new Map<string, Promise<void>>();
  const alone: C[] = [];
  for (const call of calls) {
    if (call.lock !== undefined) {
      const chain = (chains.get(call.lock) ?? Promise.resolve()).then(() => inSlot(call));
      chains.set(call.lock, chain);
      concurrent.push(chain);
    } else if (call.parallelSafe) {
      concurrent.push(inSlot(call));
    } else {
      alone.push(call);
    }
  }
  await raceAbort(Promise.all(concurrent), options.signal);
  for (const call of alone) await raceAbort(run(call), options.signal);
}
