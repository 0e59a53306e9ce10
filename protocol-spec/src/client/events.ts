/**
 * A tiny typed event emitter. Common code cannot use Node's EventEmitter, and a
 * listener map keyed by event name keeps payloads typed without a dependency.
 */

export interface Disposable {
  dispose(): void;
}

export type Listener<T> = (payload: T) => void;

/** `Events` maps event names to payload types, e.g. `{ error: Error; close: undefined }`. */
export class TypedEmitter<Events extends object> {
  readonly #listeners = new Map<keyof Events, Set<Listener<never>>>();

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): Disposable {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener as Listener<never>);
    return { dispose: () => void set.delete(listener as Listener<never>) };
  }

  once<K extends keyof Events>(event: K, listener: Listener<Events[K]>): Disposable {
    const subscription = this.on(event, (payload) => {
      subscription.dispose();
      listener(payload);
    });
    return subscription;
  }

  listenerCount(event: keyof Events): number {
    return this.#listeners.get(event)?.size ?? 0;
  }

  /**
   * Calls every listener, even when one throws: a broken view must not starve
   * the others. The first error is rethrown once all have run.
   */
  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.#listeners.get(event);
    if (!set || set.size === 0) return;
    const errors: unknown[] = [];
    for (const listener of [...set]) {
      try {
        (listener as Listener<Events[K]>)(payload);
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1)
      throw new AggregateError(errors, `${errors.length} listeners of ${String(event)} failed`);
  }

  removeAllListeners(): void {
    this.#listeners.clear();
  }
}
