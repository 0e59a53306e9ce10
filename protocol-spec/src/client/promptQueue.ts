/**
 * PromptQueue: what a client is asking its user on the daemon's behalf — the
 * approvals or the questions of one session that have not ended yet, in
 * arrival order. Pure bookkeeping: answering the daemon is the caller's job
 * (SessionTracker waits on `settled()`).
 *
 * The user's answer here does not end a prompt: another controller, a timeout
 * or a cancelled turn may win the race, so a prompt ends only with the
 * daemon's resolved notification (approvals-client-race). Until then an
 * answered prompt stays listed, marked with its answer; `awaiting()` lists
 * the ones still waiting for the user. A cancelled request drops its prompt.
 * After a re-attach the daemon sends pending requests again: they are
 * recognised by turnId + toolCallId and never doubled.
 */
import { TypedEmitter, type Disposable, type Listener } from './events.js';

export type PromptKey = string;

/** Tool call ids are unique within a turn, so the pair names one prompt. */
export function promptKey(ref: { turnId: string; toolCallId: string }): PromptKey {
  return `${ref.turnId}\u0000${ref.toolCallId}`;
}

export interface PendingPrompt<Request, Answer> {
  readonly key: PromptKey;
  readonly request: Request;
  /** The user's answer in this client, once given; the prompt is still open until resolved. */
  readonly answer?: Answer;
}

/** How a prompt left the queue. */
export type PromptEnd<Resolution> =
  /** The daemon's resolved notification: answered here or elsewhere, timed out, or not needed any more. */
  | ({ kind: 'resolved' } & Resolution)
  /** The daemon cancelled the request (`$/cancelRequest`) before an answer. */
  | { kind: 'cancelled' }
  /** A fresh snapshot no longer lists it: it ended while this client was away. */
  | { kind: 'withdrawn' };

/** What a waiting request learns: the user's answer here, or that the prompt ended without one. */
export type PromptSettlement<Answer, Resolution> =
  { kind: 'answered'; answer: Answer } | PromptEnd<Resolution>;

export type AddOutcome = 'added' | 'duplicate' | 'alreadyAnswered';

export interface PromptQueueEvents<Request, Answer, Resolution> {
  added: PendingPrompt<Request, Answer>;
  answered: { entry: PendingPrompt<Request, Answer>; answer: Answer };
  removed: { entry: PendingPrompt<Request, Answer>; end: PromptEnd<Resolution> };
}

type Keyed = { turnId: string; toolCallId: string };

export class PromptQueue<Request extends Keyed, Answer, Resolution extends object> {
  readonly #entries = new Map<PromptKey, PendingPrompt<Request, Answer>>();
  readonly #waiters = new Map<PromptKey, ((s: PromptSettlement<Answer, Resolution>) => void)[]>();
  readonly #events = new TypedEmitter<PromptQueueEvents<Request, Answer, Resolution>>();

  on<K extends keyof PromptQueueEvents<Request, Answer, Resolution>>(
    event: K,
    listener: Listener<PromptQueueEvents<Request, Answer, Resolution>[K]>,
  ): Disposable {
    return this.#events.on(event, listener);
  }

  /**
   * Queues a request. A re-send of a queued one keeps its place ('duplicate');
   * a re-send of one answered here gets that answer again ('alreadyAnswered').
   */
  add(request: Request): AddOutcome {
    const key = promptKey(request);
    const existing = this.#entries.get(key);
    if (existing) return existing.answer === undefined ? 'duplicate' : 'alreadyAnswered';
    const entry: PendingPrompt<Request, Answer> = { key, request };
    this.#entries.set(key, entry);
    this.#events.emit('added', entry);
    return 'added';
  }

  /** Every prompt not ended yet, oldest first, answered or not. */
  pending(): PendingPrompt<Request, Answer>[] {
    return [...this.#entries.values()];
  }

  /** The prompts still waiting for the user's answer, oldest first. */
  awaiting(): PendingPrompt<Request, Answer>[] {
    return this.pending().filter((entry) => entry.answer === undefined);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: PromptKey): PendingPrompt<Request, Answer> | undefined {
    return this.#entries.get(key);
  }

  /** The user's answer, given in this client. False when the prompt is unknown or already answered. */
  decide(key: PromptKey, answer: Answer): boolean {
    const entry = this.#entries.get(key);
    if (!entry || entry.answer !== undefined) return false;
    const answered: PendingPrompt<Request, Answer> = { ...entry, answer };
    this.#entries.set(key, answered);
    this.#settle(key, { kind: 'answered', answer });
    this.#events.emit('answered', { entry: answered, answer });
    return true;
  }

  /** The daemon's resolved notification: the prompt ended, wherever it was answered. */
  protected end(ref: Keyed, resolution: Resolution): boolean {
    return this.#remove(promptKey(ref), { kind: 'resolved', ...resolution });
  }

  /** The daemon withdrew the request (cancellation). */
  cancel(key: PromptKey): boolean {
    return this.#remove(key, { kind: 'cancelled' });
  }

  /**
   * Makes the queue match a snapshot's pending list: missing ones are added
   * (in the snapshot's order), ones it no longer lists are withdrawn.
   */
  sync(requests: readonly Request[]): void {
    const keep = new Set(requests.map(promptKey));
    for (const key of [...this.#entries.keys()]) {
      if (!keep.has(key)) this.#remove(key, { kind: 'withdrawn' });
    }
    for (const request of requests) this.add(request);
  }

  /**
   * Resolves with the user's answer here, or with how the prompt ended
   * without one. Already answered: resolves at once with that answer.
   */
  settled(key: PromptKey): Promise<PromptSettlement<Answer, Resolution>> {
    const entry = this.#entries.get(key);
    if (entry?.answer !== undefined)
      return Promise.resolve({ kind: 'answered', answer: entry.answer });
    if (!entry) return Promise.resolve({ kind: 'withdrawn' });
    return new Promise((resolve) => {
      const list = this.#waiters.get(key) ?? [];
      list.push(resolve);
      this.#waiters.set(key, list);
    });
  }

  #settle(key: PromptKey, settlement: PromptSettlement<Answer, Resolution>): void {
    const waiters = this.#waiters.get(key) ?? [];
    this.#waiters.delete(key);
    for (const resolve of waiters) resolve(settlement);
  }

  #remove(key: PromptKey, end: PromptEnd<Resolution>): boolean {
    const entry = this.#entries.get(key);
    if (!entry) return false;
    this.#entries.delete(key);
    this.#settle(key, end);
    this.#events.emit('removed', { entry, end });
    return true;
  }
}
