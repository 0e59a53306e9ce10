/**
 * ApprovalQueue: the approval requests a user still has to answer, in arrival
 * order. Pure bookkeeping — answering the daemon is the caller's job (see
 * SessionTracker, which waits on `settled()`).
 *
 * An approval leaves the queue when the user decides here, when the daemon
 * reports it resolved (by another client, a timeout, a cancelled turn), or
 * when its request is cancelled. After a re-attach the daemon sends pending
 * requests again; those are recognised by turnId + toolCallId and never doubled.
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
}

export type ApprovalSettlement =
  /** The user decided here. */
  | { kind: 'decided'; decision: ApprovalDecision }
  /** `tool/approvalResolved`: decided elsewhere, timed out, or not needed any more. */
  | { kind: 'resolved'; outcome: ApprovalOutcome; decision?: ApprovalDecision; decidedBy?: string }
  /** The daemon cancelled the request (`$/cancelRequest`). */
  | { kind: 'cancelled' }
  /** A fresh snapshot no longer lists it: it ended while this client was away. */
  | { kind: 'withdrawn' };

export type AddOutcome = 'added' | 'duplicate' | 'alreadyDecided';

export interface ApprovalQueueEvents {
  added: PendingApproval;
  removed: { approval: PendingApproval; settlement: ApprovalSettlement };
}

export class ApprovalQueue {
  readonly #pending = new Map<ApprovalKey, PendingApproval>();
  /** Decided here but not yet confirmed by `tool/approvalResolved`: a re-sent request gets the same answer. */
  readonly #decided = new Map<ApprovalKey, ApprovalDecision>();
  readonly #waiters = new Map<ApprovalKey, ((s: ApprovalSettlement) => void)[]>();
  readonly #events = new TypedEmitter<ApprovalQueueEvents>();

  on<K extends keyof ApprovalQueueEvents>(
    event: K,
    listener: Listener<ApprovalQueueEvents[K]>,
  ): Disposable {
    return this.#events.on(event, listener);
  }

  /** Queues a request; a request already queued (a re-send) keeps its place. */
  add(request: ApprovalRequestParams): AddOutcome {
    const key = approvalKey(request);
    if (this.#decided.has(key)) return 'alreadyDecided';
    if (this.#pending.has(key)) return 'duplicate';
    const approval: PendingApproval = { key, request };
    this.#pending.set(key, approval);
    this.#events.emit('added', approval);
    return 'added';
  }

  /** Pending approvals, oldest first. */
  pending(): PendingApproval[] {
    return [...this.#pending.values()];
  }

  get size(): number {
    return this.#pending.size;
  }

  get(key: ApprovalKey): PendingApproval | undefined {
    return this.#pending.get(key);
  }

  /** The user's answer, given in this client. Returns false when it was no longer pending. */
  decide(key: ApprovalKey, decision: ApprovalDecision): boolean {
    if (!this.#pending.has(key)) return false;
    this.#decided.set(key, decision);
    this.#remove(key, { kind: 'decided', decision });
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
    const key = approvalKey(params);
    this.#decided.delete(key);
    const settlement: ApprovalSettlement = { kind: 'resolved', outcome: params.outcome };
    if (params.decision !== undefined) settlement.decision = params.decision;
    if (params.decidedBy !== undefined) settlement.decidedBy = params.decidedBy;
    return this.#remove(key, settlement);
  }

  /** The daemon withdrew the request (cancellation). */
  cancel(key: ApprovalKey): boolean {
    return this.#remove(key, { kind: 'cancelled' });
  }

  /**
   * Makes the queue match a snapshot's `pendingApprovals`: missing ones are
   * added (in the snapshot's order), ones the snapshot no longer lists are withdrawn.
   */
  sync(requests: readonly ApprovalRequestParams[]): void {
    const keep = new Set(requests.map(approvalKey));
    for (const key of [...this.#pending.keys()]) {
      if (!keep.has(key)) this.#remove(key, { kind: 'withdrawn' });
    }
    for (const key of [...this.#decided.keys()]) {
      if (!keep.has(key)) this.#decided.delete(key);
    }
    for (const request of requests) this.add(request);
  }

  /**
   * Resolves when the approval leaves the queue. Already decided here (and not
   * yet resolved): resolves at once with that decision.
   */
  settled(key: ApprovalKey): Promise<ApprovalSettlement> {
    const decision = this.#decided.get(key);
    if (decision !== undefined && !this.#pending.has(key)) {
      return Promise.resolve({ kind: 'decided', decision });
    }
    return new Promise((resolve) => {
      const list = this.#waiters.get(key) ?? [];
      list.push(resolve);
      this.#waiters.set(key, list);
    });
  }

  #remove(key: ApprovalKey, settlement: ApprovalSettlement): boolean {
    const approval = this.#pending.get(key);
    if (!approval) return false;
    this.#pending.delete(key);
    const waiters = this.#waiters.get(key) ?? [];
    this.#waiters.delete(key);
    for (const resolve of waiters) resolve(settlement);
    this.#events.emit('removed', { approval, settlement });
    return true;
  }
}
