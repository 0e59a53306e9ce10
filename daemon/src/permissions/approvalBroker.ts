/**
 * ApprovalBroker: asks a session's controllers about one tool call at a time
 * (several may be pending at once) and resolves each approval exactly once —
 * by the first valid answer, the timeout, the turn's cancellation, or a
 * permission-mode switch (approvals.md#approval-lifecycle). It owns the
 * session's `requires_action` state and the `tool/approvalResolved` broadcast.
 */
import {
  ApprovalRequestResult,
  Methods,
  type ApprovalDecision,
  type ApprovalOutcome,
  type ApprovalRequestParams,
  type NotificationDescriptor,
  type ParamsOf,
  type PermissionMode,
} from '@arbor/protocol';
import type { ApprovalRecord } from '../store/index.js';

/** A controller connection the broker can ask. */
export interface ApprovalPeer {
  readonly clientId: string;
  /** The connection is gone (a disconnect, as opposed to a detach). */
  readonly isClosed: boolean;
  /**
   * Sends `tool/approvalRequest`; resolves with the raw result, rejects on an
   * error response or a closed connection. Aborting `cancel` sends `$/cancelRequest`.
   */
  requestApproval(params: ApprovalRequestParams, cancel: AbortSignal): Promise<unknown>;
}

/** One ended approval, as the store's approvals log takes it (stamped with the time there). */
export type ApprovalLogEntry = Omit<ApprovalRecord, 'decidedAt'>;

export interface ApprovalBrokerHost {
  /** Controllers attached right now that negotiated `client.approvals`. */
  controllers(): ApprovalPeer[];
  /** Whether the client is a controller of the session now (answers from anyone else never count). */
  isController(clientId: string): boolean;
  /** A session event (sessionId and seq are stamped by the session). */
  emit<D extends NotificationDescriptor>(
    descriptor: D,
    params: Omit<ParamsOf<D>, 'sessionId' | 'seq'>,
  ): void;
  /** The approvals log (the store); failures are the host's to log. */
  record?(entry: ApprovalLogEntry): void;
  timeoutMs: number;
}

export interface AskOptions {
  /** The turn's signal: aborting it resolves the approval as `cancelled`. */
  signal: AbortSignal;
  /** A switch to auto releases it as approved (not always-ask, not a protected path). */
  releasedByAuto: boolean;
  /** A switch to plan releases it as rejected, node blocked (not a read call). */
  releasedByPlan: boolean;
  /** Called synchronously at resolution, before anyone awaiting the answer resumes. */
  onResolved?(resolution: ApprovalResolution): void;
}

export interface ApprovalResolution {
  outcome: ApprovalOutcome;
  /** The decision that applied, when a client's answer decided. */
  decision?: ApprovalDecision;
  decidedBy?: string;
  /** Released by a switch to plan: the call is blocked, not denied. */
  blockedByPlan?: boolean;
}

interface Ask {
  peer: ApprovalPeer;
  cancel: AbortController;
}

interface Pending {
  params: ApprovalRequestParams;
  options: AskOptions;
  /** Outstanding requests by clientId. */
  asks: Map<string, Ask>;
  /** Asks that ended without a valid decision (invalid answer, error, disconnect). */
  failed: number;
  timer: NodeJS.Timeout | undefined;
  onAbort: () => void;
  resolved: boolean;
  settle: (resolution: ApprovalResolution) => void;
}

export class ApprovalBroker {
  /** By tree node id: unique, unlike model-chosen tool call ids. */
  private readonly pendingByNode = new Map<string, Pending>();
  /** Turns for which `requires_action` was reported and not yet taken back. */
  private readonly waitingTurns = new Set<string>();

  constructor(private readonly host: ApprovalBrokerHost) {}

  /** Params of every pending approval, for attach snapshots. */
  pending(): ApprovalRequestParams[] {
    return [...this.pendingByNode.values()].map((p) => structuredClone(p.params));
  }

  get hasPending(): boolean {
    return this.pendingByNode.size > 0;
  }

  ask(params: ApprovalRequestParams, options: AskOptions): Promise<ApprovalResolution> {
    return new Promise<ApprovalResolution>((resolvePromise) => {
      const pending: Pending = {
        params,
        options,
        asks: new Map(),
        failed: 0,
        timer: undefined,
        onAbort: () => this.resolve(pending, { outcome: 'cancelled' }),
        resolved: false,
        settle: resolvePromise,
      };
      if (options.signal.aborted) {
        this.resolve(pending, { outcome: 'cancelled' });
        return;
      }
      const controllers = this.host.controllers();
      if (controllers.length === 0) {
        // Nobody can be asked: timed out at once, without requires_action.
        this.resolve(pending, { outcome: 'timed_out' });
        return;
      }
      this.pendingByNode.set(params.nodeId, pending);
      options.signal.addEventListener('abort', pending.onAbort, { once: true });
      pending.timer = setTimeout(
        () => this.resolve(pending, { outcome: 'timed_out' }),
        this.host.timeoutMs,
      );
      pending.timer.unref?.();
      if (!this.waitingTurns.has(params.turnId)) {
        this.waitingTurns.add(params.turnId);
        this.host.emit(Methods.SessionState, { state: 'requires_action', turnId: params.turnId });
      }
      for (const peer of controllers) this.send(pending, peer);
    });
  }

  /** A controller attached (after its attach response and replay): it gets every pending approval. */
  controllerAttached(peer: ApprovalPeer): void {
    for (const pending of [...this.pendingByNode.values()]) {
      this.withdraw(pending, peer.clientId);
      this.send(pending, peer);
    }
  }

  /**
   * A client detached, became an observer, or disconnected. A detached client's
   * request is cancelled and the approval stays pending for other controllers;
   * a closed connection counts as an answer without a valid decision.
   */
  controllerLeft(peer: Pick<ApprovalPeer, 'clientId' | 'isClosed'>): void {
    for (const pending of [...this.pendingByNode.values()]) {
      if (!pending.asks.has(peer.clientId)) continue;
      if (peer.isClosed) {
        pending.asks.delete(peer.clientId);
        pending.failed += 1;
        this.rejectIfNobodyLeft(pending);
      } else {
        this.withdraw(pending, peer.clientId);
      }
    }
  }

  /** approvals.md#mode-switch: auto approves what auto would run, plan blocks non-read calls. */
  modeChanged(mode: PermissionMode): void {
    for (const pending of [...this.pendingByNode.values()]) {
      if (mode === 'auto' && pending.options.releasedByAuto) {
        this.resolve(pending, { outcome: 'approved' });
      } else if (mode === 'plan' && pending.options.releasedByPlan) {
        this.resolve(pending, { outcome: 'rejected', blockedByPlan: true });
      }
    }
  }

  private send(pending: Pending, peer: ApprovalPeer): void {
    if (peer.isClosed) return;
    const ask: Ask = { peer, cancel: new AbortController() };
    pending.asks.set(peer.clientId, ask);
    let answer: Promise<unknown>;
    try {
      answer = peer.requestApproval(pending.params, ask.cancel.signal);
    } catch {
      answer = Promise.reject(new Error('not sent'));
    }
    answer.then(
      (result) => this.answered(pending, ask, result),
      () => this.answered(pending, ask, undefined),
    );
  }

  /** `result` undefined: an error response, or the connection closed. */
  private answered(pending: Pending, ask: Ask, result: unknown): void {
    const clientId = ask.peer.clientId;
    if (pending.resolved || pending.asks.get(clientId) !== ask) return; // withdrawn or too late
    pending.asks.delete(clientId);
    const parsed = ApprovalRequestResult.safeParse(result);
    if (result !== undefined && parsed.success && this.host.isController(clientId)) {
      const decision = parsed.data.decision;
      this.resolve(pending, {
        outcome: decision === 'deny' ? 'rejected' : 'approved',
        decision,
        decidedBy: clientId,
      });
      return;
    }
    // Anything else is never approval.
    pending.failed += 1;
    this.rejectIfNobodyLeft(pending);
  }

  /** Every asked controller answered without a valid decision, and nobody else is waiting to answer. */
  private rejectIfNobodyLeft(pending: Pending): void {
    if (pending.resolved || pending.asks.size > 0 || pending.failed === 0) return;
    this.resolve(pending, { outcome: 'rejected' });
  }

  private withdraw(pending: Pending, clientId: string): void {
    const ask = pending.asks.get(clientId);
    if (ask === undefined) return;
    pending.asks.delete(clientId);
    if (!ask.peer.isClosed) ask.cancel.abort();
  }

  private resolve(pending: Pending, resolution: ApprovalResolution): void {
    if (pending.resolved) return;
    pending.resolved = true;
    const { params, options } = pending;
    clearTimeout(pending.timer);
    options.signal.removeEventListener('abort', pending.onAbort);
    const wasPending = this.pendingByNode.get(params.nodeId) === pending;
    if (wasPending) this.pendingByNode.delete(params.nodeId);
    // Requests still unanswered are cancelled.
    for (const clientId of [...pending.asks.keys()]) this.withdraw(pending, clientId);

    this.host.emit(Methods.ApprovalResolved, {
      turnId: params.turnId,
      toolCallId: params.toolCallId,
      outcome: resolution.outcome,
      ...(resolution.decision !== undefined && { decision: resolution.decision }),
      ...(resolution.decidedBy !== undefined && { decidedBy: resolution.decidedBy }),
    });
    this.host.record?.({
      sessionId: params.sessionId,
      turnId: params.turnId,
      toolCallId: params.toolCallId,
      tool: params.name,
      args: params.args,
      outcome: resolution.outcome,
      ...(resolution.decision !== undefined && { decision: resolution.decision }),
      ...(resolution.decidedBy !== undefined && { decidedBy: resolution.decidedBy }),
    });
    const turnStillWaits = [...this.pendingByNode.values()].some(
      (p) => p.params.turnId === params.turnId,
    );
    if (!turnStillWaits && this.waitingTurns.delete(params.turnId)) {
      // A cancelled turn ends with its idle state instead.
      if (resolution.outcome !== 'cancelled' && !options.signal.aborted) {
        this.host.emit(Methods.SessionState, { state: 'running', turnId: params.turnId });
      }
    }
    options.onResolved?.(resolution);
    pending.settle(resolution);
  }
}
