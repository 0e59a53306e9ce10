/**
 * ApprovalQueue: the approvals of one session that have not ended yet, in
 * arrival order. Pure bookkeeping — answering the daemon is the caller's job
 * (see SessionTracker, which waits on `settled()`).
 *
 * The user's answer here does not end an approval: another controller, a
 * timeout or a cancelled turn may win the race, so an approval ends only with
 * `tool/approvalResolved` (spec approvals-client-race). Until then an answered
 * approval stays listed, marked with its answer; `awaiting()` lists the ones
 * still waiting for the user. A cancelled request drops its approval. After a
 * re-attach the daemon sends pending requests again: they are recognised by
 * turnId + toolCallId and never doubled.
 */
import type { ApprovalDecision, ApprovalOutcome, ApprovalRequestParams } from '../approval.js';
import { TypedEmitter, type Disposable, type Listener } from './events.js';

export type ApprovalKey = string;

/** Tool call ids are unique within a turn, so the pair names one approval. */
export function approvalKey(ref: { turnId: string; toolCallId: string }): ApprovalKey {
  return `${ref.turnId}\u0000${ref.toolCallId}`;
}

export interface PendingApproval {
  readonly key: ApprovalKey;
  readonly request: ApprovalRequestParams;
  /** The user's answer in this client, once given; the approval is still open until resolved. */
  readonly answer?: ApprovalDecision;
}

/** How an approval left the queue. */
export type ApprovalEnd =
  /** `tool/approvalResolved`: decided here or elsewhere, timed out, or not needed any more. */
  | { kind: 'resolved'; outcome: ApprovalOutcome; decision?: ApprovalDecision; decidedBy?: string }
  /** The daemon cancelled the request (`$/cancelRequest`) before an answer. */
  | { kind: 'cancelled' }
  /** A fresh snapshot no longer lists it: it ended while this client was away. */
  | { kind: 'withdrawn' };

/** What a waiting request learns: the user's answer here, or that the approval ended without one. */
export type ApprovalSettlement = { kind: 'decided'; decision: ApprovalDecision } | ApprovalEnd;

export type AddOutcome = 'added' | 'duplicate' | 'alreadyDecided';

export interface ApprovalQueueEvents {
  added: PendingApproval;
  answered: { approval: PendingApproval; decision: ApprovalDecision };
  removed: { approval: PendingApproval; end: ApprovalEnd };
}

export class ApprovalQueue {
  readonly #entries = new Map<ApprovalKey, PendingApproval>();
  readonly #waiters = new Map<ApprovalKey, ((s: ApprovalSettlement) => void)[]>();
  readonly #events = new TypedEmitter<ApprovalQueueEvents>();

  on<K extends keyof ApprovalQueueEvents>(
    event: K,
    listener: Listener<ApprovalQueueEvents[K]>,
  ): Disposable {
    return this.#events.on(event, listener);
  }

  /**
   * Queues a request. A re-send of a queued one keeps its place ('duplicate');
   * a re-send of one answered here gets that answer again ('alreadyDecided').
   */
  add(request: ApprovalRequestParams): AddOutcome {
    const key = approvalKey(request);
    const existing = this.#entries.get(key);
    if (existing) return existing.answer === undefined ? 'duplicate' : 'alreadyDecided';
    const approval: PendingApproval = { key, request };
    this.#entries.set(key, approval);
    this.#events.emit('added', approval);
    return 'added';
  }

  /** Every approval not ended yet, oldest first, answered or not. */
  pending(): PendingApproval[] {
    return [...this.#entries.values()];
  }

  /** The approvals still waiting for the user's answer, oldest first. */
  awaiting(): PendingApproval[] {
    return this.pending().filter((a) => a.answer === undefined);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: ApprovalKey): PendingApproval | undefined {
    return this.#entries.get(key);
  }

  /** The user's answer, given in this client. False when the approval is unknown or already answered. */
  decide(key: ApprovalKey, decision: ApprovalDecision): boolean {
    const approval = this.#entries.get(key);
    if (!approval || approval.answer !== undefined) return false;
    const answered: PendingApproval = { ...approval, answer: decision };
    this.#entries.set(key, answered);
    this.#settle(key, { kind: 'decided', decision });
    this.#events.emit('answered', { approval: answered, decision });
    return true;
  }

  /** `tool/approvalResolved`: the approval ended, wherever it was decided. */
  resolved(params: {
    turnId: string;
    toolCallId: string;
    outcome: ApprovalOutcome;
    decision?: ApprovalDecision | undefined;
    decidedBy?: string | undefined;
  }): boolean {
    const end: ApprovalEnd = { kind: 'resolved', outcome: params.outcome };
    if (params.decision !== undefined) end.decision = params.decision;
    if (params.decidedBy !== undefined) end.decidedBy = params.decidedBy;
    return this.#remove(approvalKey(params), end);
  }

  /** The daemon withdrew the request (cancellation). */
  cancel(key: ApprovalKey): boolean {
    return this.#remove(key, { kind: 'cancelled' });
  }

  /**
   * Makes the queue match a snapshot's `pendingApprovals`: missing ones are
   * added (in the snapshot's order), ones it no longer lists are withdrawn.
   */
  sync(requests: readonly ApprovalRequestParams[]): void {
    const keep = new Set(requests.map(approvalKey));
    for (const key of [...this.#entries.keys()]) {
      if (!keep.has(key)) this.#remove(key, { kind: 'withdrawn' });
    }
    for (const request of requests) this.add(request);
  }

  /**
   * Resolves with the user's answer here, or with how the approval ended
   * without one. Already answered: resolves at once with that answer.
   */
  settled(key: ApprovalKey): Promise<ApprovalSettlement> {
    const approval = this.#entries.get(key);
    if (approval?.answer !== undefined)
      return Promise.resolve({ kind: 'decided', decision: approval.answer });
    if (!approval) return Promise.resolve({ kind: 'withdrawn' });
    return new Promise((resolve) => {
      const list = this.#waiters.get(key) ?? [];
      list.push(resolve);
      this.#waiters.set(key, list);
    });
  }

  #settle(key: ApprovalKey, settlement: ApprovalSettlement): void {
    const waiters = this.#waiters.get(key) ?? [];
    this.#waiters.delete(key);
    for (const resolve of waiters) resolve(settlement);
  }

  #remove(key: ApprovalKey, end: ApprovalEnd): boolean {
    const approval = this.#entries.get(key);
    if (!approval) return false;
    this.#entries.delete(key);
    this.#settle(key, end);
    this.#events.emit('removed', { approval, end });
    return true;
  }
}
