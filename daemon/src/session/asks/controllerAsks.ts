/**
 * ControllerAsks: what approvals and questions share — ask every controller
 * of a session at once, let the first valid answer win, and end each ask
 * exactly once: by that answer, by every controller failing to give one, by
 * the timeout, by the turn's cancellation, or released by its owner (a mode
 * switch). Unanswered requests are cancelled when an ask ends; a controller
 * that attaches later is asked again (approvals.md#approval-lifecycle,
 * questions.md#question-lifecycle). What an answer means and what is
 * broadcast when an ask ends belong to the owner (ApprovalBroker, QuestionBroker).
 */
import type { TurnWaits } from './turnWaits.js';

/** A controller connection that can be asked. */
export interface AskPeer {
  readonly clientId: string;
  /** The connection is gone (a disconnect, as opposed to a detach). */
  readonly isClosed: boolean;
}

/** How an ask ended. */
export type AskEnd<A, R> =
  | { kind: 'answered'; answer: A; clientId: string }
  /** Every controller asked answered without a valid answer, or disconnected. */
  | { kind: 'noValidAnswer' }
  /** No controller could be asked at all. */
  | { kind: 'nobody' }
  | { kind: 'timedOut' }
  | { kind: 'cancelled' }
  /** Ended by the owner (`release`), for its own reason. */
  | { kind: 'released'; reason: R };

export interface ControllerAsksHost<P, A, R, Peer extends AskPeer> {
  /** Controllers attached right now that can be asked this kind of thing. */
  controllers(): Peer[];
  /** Whether the client is a controller of the session now (answers from anyone else never count). */
  isController(clientId: string): boolean;
  /** Sends the request; resolves with the raw result, rejects on an error response or a closed connection. */
  send(peer: Peer, params: P, cancel: AbortSignal): Promise<unknown>;
  /** The answer in a raw result, or undefined when it is not a valid one. */
  validAnswer(result: unknown, params: P): A | undefined;
  /** Called once per ask when it ends, before the turn's state changes: broadcast, log. */
  ended(params: P, end: AskEnd<A, R>): void;
  /** The session's requires_action bookkeeping, shared by every kind of ask. */
  waits: TurnWaits;
  timeoutMs: number;
}

/** What identifies an ask: its turn, and its tree node (unique, unlike model-chosen call ids). */
export interface AskKey {
  turnId: string;
  nodeId: string;
}

export interface AskOptions<A, R, T> {
  /** The turn's signal: aborting it ends the ask as cancelled. */
  signal: AbortSignal;
  /** The owner's data about this ask, for `release`. */
  tag: T;
  /** Called synchronously when the ask ends, before anyone awaiting it resumes. */
  onEnded?(end: AskEnd<A, R>): void;
}

interface Request<Peer> {
  peer: Peer;
  cancel: AbortController;
}

interface Pending<P, A, R, T, Peer> {
  params: P;
  options: AskOptions<A, R, T>;
  /** Outstanding requests by clientId. */
  requests: Map<string, Request<Peer>>;
  /** Requests that ended without a valid answer (invalid answer, error, disconnect). */
  failed: number;
  timer: NodeJS.Timeout | undefined;
  onAbort: () => void;
  ended: boolean;
  counted: boolean;
  settle: (end: AskEnd<A, R>) => void;
}

export class ControllerAsks<P extends AskKey, A, R, T, Peer extends AskPeer> {
  private readonly pendingByNode = new Map<string, Pending<P, A, R, T, Peer>>();

  constructor(private readonly host: ControllerAsksHost<P, A, R, Peer>) {}

  /** Params of every pending ask, for attach snapshots. */
  pending(): P[] {
    return [...this.pendingByNode.values()].map((p) => structuredClone(p.params));
  }

  get hasPending(): boolean {
    return this.pendingByNode.size > 0;
  }

  ask(params: P, options: AskOptions<A, R, T>): Promise<AskEnd<A, R>> {
    return new Promise((settle) => {
      const pending: Pending<P, A, R, T, Peer> = {
        params,
        options,
        requests: new Map(),
        failed: 0,
        timer: undefined,
        onAbort: () => this.end(pending, { kind: 'cancelled' }),
        ended: false,
        counted: false,
        settle,
      };
      if (options.signal.aborted) {
        this.end(pending, { kind: 'cancelled' });
        return;
      }
      const controllers = this.host.controllers();
      if (controllers.length === 0) {
        // Nobody can be asked: it ends at once, without requires_action.
        this.end(pending, { kind: 'nobody' });
        return;
      }
      this.pendingByNode.set(params.nodeId, pending);
      options.signal.addEventListener('abort', pending.onAbort, { once: true });
      pending.timer = setTimeout(
        () => this.end(pending, { kind: 'timedOut' }),
        this.host.timeoutMs,
      );
      pending.timer.unref?.();
      pending.counted = true;
      this.host.waits.began(params.turnId);
      for (const peer of controllers) this.send(pending, peer);
    });
  }

  /** Ends every pending ask for which `decide` gives a reason (a permission-mode switch). */
  release(decide: (params: P, tag: T) => R | undefined): void {
    for (const pending of [...this.pendingByNode.values()]) {
      const reason = decide(pending.params, pending.options.tag);
      if (reason !== undefined) this.end(pending, { kind: 'released', reason });
    }
  }

  /** A controller attached (after its attach response and replay): it is asked everything pending. */
  controllerAttached(peer: Peer): void {
    for (const pending of [...this.pendingByNode.values()]) {
      this.withdraw(pending, peer.clientId);
      this.send(pending, peer);
    }
  }

  /**
   * A client detached, became an observer, or disconnected. A detached
   * client's request is cancelled and the ask stays pending for other
   * controllers; a closed connection counts as an answer without a valid one.
   */
  controllerLeft(peer: AskPeer): void {
    for (const pending of [...this.pendingByNode.values()]) {
      if (!pending.requests.has(peer.clientId)) continue;
      if (peer.isClosed) {
        pending.requests.delete(peer.clientId);
        pending.failed += 1;
        this.failIfNobodyLeft(pending);
      } else {
        this.withdraw(pending, peer.clientId);
      }
    }
  }

  private send(pending: Pending<P, A, R, T, Peer>, peer: Peer): void {
    if (peer.isClosed) return;
    const request: Request<Peer> = { peer, cancel: new AbortController() };
    pending.requests.set(peer.clientId, request);
    let answer: Promise<unknown>;
    try {
      answer = this.host.send(peer, pending.params, request.cancel.signal);
    } catch {
      answer = Promise.reject(new Error('not sent'));
    }
    answer.then(
      (result) => this.answered(pending, request, result),
      () => this.answered(pending, request, undefined),
    );
  }

  /** `result` undefined: an error response, or the connection closed. */
  private answered(
    pending: Pending<P, A, R, T, Peer>,
    request: Request<Peer>,
    result: unknown,
  ): void {
    const clientId = request.peer.clientId;
    if (pending.ended || pending.requests.get(clientId) !== request) return; // withdrawn or too late
    pending.requests.delete(clientId);
    const answer =
      result === undefined || !this.host.isController(clientId)
        ? undefined
        : this.host.validAnswer(result, pending.params);
    if (answer !== undefined) {
      this.end(pending, { kind: 'answered', answer, clientId });
      return;
    }
    pending.failed += 1;
    this.failIfNobodyLeft(pending);
  }

  /** Every asked controller answered without a valid answer, and nobody else is waiting to answer. */
  private failIfNobodyLeft(pending: Pending<P, A, R, T, Peer>): void {
    if (pending.ended || pending.requests.size > 0 || pending.failed === 0) return;
    this.end(pending, { kind: 'noValidAnswer' });
  }

  private withdraw(pending: Pending<P, A, R, T, Peer>, clientId: string): void {
    const request = pending.requests.get(clientId);
    if (request === undefined) return;
    pending.requests.delete(clientId);
    if (!request.peer.isClosed) request.cancel.abort();
  }

  private end(pending: Pending<P, A, R, T, Peer>, end: AskEnd<A, R>): void {
    if (pending.ended) return;
    pending.ended = true;
    const { params, options } = pending;
    clearTimeout(pending.timer);
    options.signal.removeEventListener('abort', pending.onAbort);
    if (this.pendingByNode.get(params.nodeId) === pending) this.pendingByNode.delete(params.nodeId);
    // The resolution goes out first: a client whose request is then cancelled already
    // knows how the ask ended (answered elsewhere, timed out), not just that it was withdrawn.
    this.host.ended(params, end);
    // Requests still unanswered are cancelled.
    for (const clientId of [...pending.requests.keys()]) this.withdraw(pending, clientId);
    if (pending.counted) {
      this.host.waits.ended(params.turnId, end.kind !== 'cancelled' && !options.signal.aborted);
    }
    options.onEnded?.(end);
    pending.settle(end);
  }
}
