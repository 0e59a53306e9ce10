/**
 * Arbor approvals as ACP permission requests. Each approval the session's
 * queue receives becomes one `session/request_permission` (allow once =
 * allow, allow always = allowForSession, and when the daemon suggests a rule
 * a second allow always = allowAlways, which saves it; reject = deny); the chosen option is
 * the decision. An approval that ends without this editor's answer (the turn
 * was cancelled, another client decided, it timed out) withdraws the request
 * with `$/cancel_request`, so the editor closes its prompt.
 */
import { ApprovalDecision, type ApprovalRequestParams } from '@arbor/protocol';
import type { ApprovalQueue, ApprovalKey, Disposable } from '@arbor/protocol/client';
import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';

/** The option ids are Arbor's decisions, so an answer needs no lookup table. */
function optionsFor(request: ApprovalRequestParams): PermissionOption[] {
  return [
    { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
    { optionId: 'allowForSession', name: 'Allow for this session', kind: 'allow_always' },
    ...(request.suggestedRule === undefined
      ? []
      : [
          {
            optionId: 'allowAlways',
            name: `Always allow ${request.suggestedRule}`,
            kind: 'allow_always' as const,
          },
        ]),
    { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
  ];
}

export interface PermissionBridgeOptions {
  sessionId: string;
  approvals: ApprovalQueue;
  /** The tool call the request is about, as the editor shows it. */
  describe(request: ApprovalRequestParams): ToolCallUpdate;
  ask(request: RequestPermissionRequest, cancel: AbortSignal): Promise<RequestPermissionResponse>;
  /** The prompt is being cancelled: a "cancelled" answer then leaves the approval to the cancel. */
  cancelling(): boolean;
  log(message: string): void;
}

export class PermissionBridge implements Disposable {
  readonly #asking = new Map<ApprovalKey, AbortController>();
  readonly #subscriptions: Disposable[];

  constructor(private readonly options: PermissionBridgeOptions) {
    const { approvals } = options;
    this.#subscriptions = [
      approvals.on('added', ({ key, request }) => void this.#ask(key, request)),
      approvals.on('removed', ({ entry }) => this.#asking.get(entry.key)?.abort()),
    ];
  }

  /** Asks for the approvals that were already waiting when the session was opened (session/load mid-turn). */
  askAwaiting(): void {
    for (const { key, request } of this.options.approvals.awaiting()) {
      if (!this.#asking.has(key)) void this.#ask(key, request);
    }
  }

  dispose(): void {
    for (const subscription of this.#subscriptions.splice(0)) subscription.dispose();
    for (const asking of this.#asking.values()) asking.abort();
  }

  async #ask(key: ApprovalKey, request: ApprovalRequestParams): Promise<void> {
    const { options } = this;
    const withdraw = new AbortController();
    this.#asking.set(key, withdraw);
    let decision: ApprovalDecision | undefined;
    try {
      const answer = await options.ask(
        {
          sessionId: options.sessionId,
          toolCall: options.describe(request),
          options: optionsFor(request),
          _meta: { arbor: { category: request.category, reason: request.reason } },
        },
        withdraw.signal,
      );
      decision = this.#decisionOf(answer);
    } catch (error) {
      if (withdraw.signal.aborted) return;
      // An editor that cannot ask must not leave the turn waiting until the approval times out.
      options.log(`permission request failed, denying ${request.name}: ${String(error)}`);
      decision = 'deny';
    } finally {
      this.#asking.delete(key);
    }
    if (decision !== undefined) options.approvals.decide(key, decision);
  }

  #decisionOf(answer: RequestPermissionResponse): ApprovalDecision | undefined {
    if (answer.outcome.outcome === 'cancelled') {
      return this.options.cancelling() ? undefined : 'deny';
    }
    const parsed = ApprovalDecision.safeParse(answer.outcome.optionId);
    if (parsed.success) return parsed.data;
    this.options.log(`unknown permission option ${answer.outcome.optionId}: denying`);
    return 'deny';
  }
}
