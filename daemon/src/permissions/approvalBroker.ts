/**
 * ApprovalBroker: asks a session's controllers about one tool call at a time
 * (several may be pending at once) and resolves each approval exactly once —
 * by the first valid answer, the timeout, the turn's cancellation, or a
 * permission-mode switch (approvals.md#approval-lifecycle). The asking is
 * ControllerAsks'; what an answer means, the mode switch and the
 * `tool/approvalResolved` broadcast are the broker's.
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
import { ControllerAsks, type AskEnd, type AskPeer } from '../session/asks/controllerAsks.js';
import { TurnWaits } from '../session/asks/turnWaits.js';

/** A controller connection the broker can ask. */
export interface ApprovalPeer extends AskPeer {
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
  /** Saves an `allowAlways` answer's rule for the session's workspace; false when it could not. */
  saveRule?(rule: string): boolean;
  /** The session's requires_action bookkeeping, shared with questions; absent: the broker's own. */
  waits?: TurnWaits;
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

/** Why a mode switch released an approval. */
type Release = 'auto' | 'plan';
type Releasable = Pick<AskOptions, 'releasedByAuto' | 'releasedByPlan'>;
type ApprovalEnd = AskEnd<ApprovalDecision, Release>;

export class ApprovalBroker {
  private readonly asks: ControllerAsks<
    ApprovalRequestParams,
    ApprovalDecision,
    Release,
    Releasable,
    ApprovalPeer
  >;

  constructor(private readonly host: ApprovalBrokerHost) {
    this.asks = new ControllerAsks({
      controllers: () => host.controllers(),
      isController: (clientId) => host.isController(clientId),
      send: (peer, params, cancel) => peer.requestApproval(params, cancel),
      // Anything but a valid decision is never approval.
      validAnswer: (result) => {
        const parsed = ApprovalRequestResult.safeParse(result);
        return parsed.success ? parsed.data.decision : undefined;
      },
      ended: (params, end) => this.announce(params, resolutionOf(params, end)),
      waits:
        host.waits ??
        new TurnWaits({
          stateChanged: (turnId, state) => host.emit(Methods.SessionState, { state, turnId }),
        }),
      timeoutMs: host.timeoutMs,
    });
  }

  /** Params of every pending approval, for attach snapshots. */
  pending(): ApprovalRequestParams[] {
    return this.asks.pending();
  }

  get hasPending(): boolean {
    return this.asks.hasPending;
  }

  async ask(params: ApprovalRequestParams, options: AskOptions): Promise<ApprovalResolution> {
    const { onResolved } = options;
    const end = await this.asks.ask(params, {
      signal: options.signal,
      tag: { releasedByAuto: options.releasedByAuto, releasedByPlan: options.releasedByPlan },
      ...(onResolved && {
        onEnded: (ended: ApprovalEnd) => onResolved(resolutionOf(params, ended)),
      }),
    });
    return resolutionOf(params, end);
  }

  /** A controller attached (after its attach response and replay): it gets every pending approval. */
  controllerAttached(peer: ApprovalPeer): void {
    this.asks.controllerAttached(peer);
  }

  /**
   * A client detached, became an observer, or disconnected. A detached client's
   * request is cancelled and the approval stays pending for other controllers;
   * a closed connection counts as an answer without a valid decision.
   */
  controllerLeft(peer: AskPeer): void {
    this.asks.controllerLeft(peer);
  }

  /** approvals.md#mode-switch: auto approves what auto would run, plan blocks non-read calls. */
  modeChanged(mode: PermissionMode): void {
    this.asks.release((_params, tag) => {
      if (mode === 'auto' && tag.releasedByAuto) return 'auto';
      if (mode === 'plan' && tag.releasedByPlan) return 'plan';
      return undefined;
    });
  }

  private announce(params: ApprovalRequestParams, resolution: ApprovalResolution): void {
    // Saved before the broadcast, so every client reads the rule that is really in force.
    const saved =
      resolution.decision === 'allowAlways' &&
      params.suggestedRule !== undefined &&
      this.host.saveRule?.(params.suggestedRule) === true
        ? params.suggestedRule
        : undefined;
    this.host.emit(Methods.ApprovalResolved, {
      turnId: params.turnId,
      toolCallId: params.toolCallId,
      outcome: resolution.outcome,
      ...(resolution.decision !== undefined && { decision: resolution.decision }),
      ...(resolution.decidedBy !== undefined && { decidedBy: resolution.decidedBy }),
      ...(saved !== undefined && { rule: saved }),
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
  }
}

/** approvals.md#outcomes: how each way an ask can end reads as an approval outcome. */
function resolutionOf(params: ApprovalRequestParams, end: ApprovalEnd): ApprovalResolution {
  switch (end.kind) {
    case 'answered':
      return {
        outcome: end.answer === 'deny' ? 'rejected' : 'approved',
        // approvals.md#rules-allow-always-unoffered: nothing to save, so it allows for the session.
        decision:
          end.answer === 'allowAlways' && params.suggestedRule === undefined
            ? 'allowForSession'
            : end.answer,
        decidedBy: end.clientId,
      };
    case 'noValidAnswer':
      return { outcome: 'rejected' };
    case 'nobody':
    case 'timedOut':
      return { outcome: 'timed_out' };
    case 'cancelled':
      return { outcome: 'cancelled' };
    case 'released':
      return end.reason === 'auto'
        ? { outcome: 'approved' }
        : { outcome: 'rejected', blockedByPlan: true };
  }
}
