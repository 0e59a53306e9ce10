/**
 * Small helpers that make every await of a turn abortable, so cancellation and
 * budget stops return promptly even when a tool or a provider ignores its signal.
 */

/** Resolves with the promise, or rejects with the signal's reason as soon as it aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

/** Iterates an async iterable, stopping (and closing it) as soon as the signal aborts. */
export async function* abortable<T>(
  iterable: AsyncIterable<T>,
  signal: AbortSignal,
): AsyncGenerator<T> {
  const iterator = iterable[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await raceAbort(iterator.next(), signal);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Do not wait for a provider that ignores its signal.
    void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

/** The reason a turn's signal carries when the user cancelled. */
export class TurnCancelled extends Error {
  constructor() {
    super('the turn was cancelled');
    this.name = 'TurnCancelled';
  }
}
