/**
 * SessionTracker: connects SessionViews to an ArborClient. It routes every
 * session event to its view by sessionId, re-attaches a view that found a gap,
 * and answers `tool/approvalRequest` and `tool/question` by queueing the
 * request in the session's ApprovalQueue or QuestionQueue until the user
 * answers there (`view.approvals.decide`, `view.questions.decide`).
 *
 * Create it before `client.initialize()` so the client declares the
 * `approvals`, `questions` (and `conformance`) capabilities.
 */
import type { z } from 'zod';
import { ResponseError, type CancellationToken } from 'vscode-jsonrpc';
import { ArborErrorCodes, LspErrorCodes } from '../errors.js';
import { Methods } from '../methods.js';
import type { AttachRole, SessionInfo } from '../session.js';
import type { ArborClient } from './arborClient.js';
import { promptKey, type PromptQueue } from './promptQueue.js';
import type { Disposable } from './events.js';
import { SESSION_EVENT_METHODS, SessionView, type SessionEvent } from './sessionView.js';

export interface SessionTrackerOptions {
  /** Answer approval requests through the views' queues (default true). */
  approvals?: boolean;
  /** Answer the model's questions through the views' queues (default true). */
  questions?: boolean;
  /** Answer `_arbor/conformance/state` from the views (default false). */
  conformance?: boolean;
}

export interface AttachOptions {
  role?: AttachRole;
  /**
   * Replay the events after this seq. Default 0: catch up on everything the
   * daemon still holds, or get a snapshot of the running turn — without it a
   * client attaching mid-turn would never see the turn's tree. null: no
   * replay, only events after the attach.
   */
  sinceSeq?: number | null;
}

type SessionNewInput = z.input<typeof Methods.SessionNew.params>;

export class SessionTracker implements Disposable {
  readonly #client: ArborClient;
  readonly #views = new Map<string, SessionView>();
  readonly #subscriptions: Disposable[] = [];

  constructor(client: ArborClient, options: SessionTrackerOptions = {}) {
    this.#client = client;
    for (const descriptor of SESSION_EVENT_METHODS) {
      this.#subscriptions.push(
        client.onNotification(descriptor, (params) => {
          // The union of (method, params) pairs is rebuilt here from the descriptor it came through.
          this.#views
            .get(params.sessionId)
            ?.receive({ method: descriptor.method, params } as SessionEvent);
        }),
      );
    }
    this.#subscriptions.push(
      client.onNotification(Methods.SessionDetached, ({ sessionId }) =>
        this.#views.get(sessionId)?.detachedByDaemon(),
      ),
    );
    if (options.approvals !== false) {
      client.setApprovalHandler((params, token) =>
        this.#waitForUser(params, token, (view) => view.approvals, 'Approval'),
      );
    }
    if (options.questions !== false) {
      client.setQuestionHandler((params, token) =>
        this.#waitForUser(params, token, (view) => view.questions, 'Question'),
      );
    }
    if (options.conformance) {
      client.setConformanceStateHandler(({ sessionId }) => {
        const view = this.#views.get(sessionId);
        if (!view)
          // conformance.md#conformance-state-unknown-session
          throw new ResponseError(
            ArborErrorCodes.SessionNotFound,
            `Session ${sessionId} is not tracked`,
          );
        return view.conformanceState();
      });
    }
  }

  get(sessionId: string): SessionView | undefined {
    return this.#views.get(sessionId);
  }

  views(): SessionView[] {
    return [...this.#views.values()];
  }

  /** `session/new`; the caller is attached as controller, so its view starts at seq 0. */
  async create(params: SessionNewInput): Promise<{ session: SessionInfo; view: SessionView }> {
    const session = await this.#client.request(Methods.SessionNew, params);
    const view = this.track(session.sessionId, { lastSeq: 0, role: 'controller' });
    view.applyAttach({ session, role: 'controller', lastSeq: 0, replay: 'none' });
    return { session, view };
  }

  /** Starts routing a session the client is already attached to (e.g. after `session/new`). */
  track(sessionId: string, options: { lastSeq?: number; role?: AttachRole } = {}): SessionView {
    const existing = this.#views.get(sessionId);
    if (existing) return existing;
    const role = options.role ?? 'controller';
    const view = new SessionView(sessionId, {
      lastSeq: options.lastSeq ?? 0,
      reattach: (sinceSeq) =>
        this.#client.request(Methods.SessionAttach, { sessionId, role, sinceSeq }),
    });
    this.#views.set(sessionId, view);
    return view;
  }

  /**
   * `session/attach`: a live or stored session. Events that arrive before the
   * answer are held and applied after it. Attaching a tracked session again
   * re-attaches it from its last seq.
   */
  async attach(sessionId: string, options: AttachOptions = {}): Promise<SessionView> {
    const existing = this.#views.get(sessionId);
    if (existing) {
      await existing.resync();
      return existing;
    }
    const role = options.role ?? 'controller';
    const since = options.sinceSeq === undefined ? 0 : options.sinceSeq;
    const view = new SessionView(sessionId, {
      lastSeq: since ?? undefined,
      reattach: (sinceSeq) =>
        this.#client.request(Methods.SessionAttach, { sessionId, role, sinceSeq }),
    });
    this.#views.set(sessionId, view);
    try {
      const params: z.input<typeof Methods.SessionAttach.params> = { sessionId, role };
      if (since !== null) params.sinceSeq = since;
      view.applyAttach(await this.#client.request(Methods.SessionAttach, params));
      return view;
    } catch (error) {
      this.forget(sessionId);
      throw error;
    }
  }

  /** `session/detach`, then stops routing the session's events. */
  async detach(sessionId: string): Promise<void> {
    if (!this.#views.has(sessionId)) return;
    this.forget(sessionId);
    await this.#client.request(Methods.SessionDetach, { sessionId });
  }

  /** Stops routing a session's events without telling the daemon. */
  forget(sessionId: string): void {
    this.#views.delete(sessionId);
  }

  dispose(): void {
    for (const subscription of this.#subscriptions.splice(0)) subscription.dispose();
    this.#client.setApprovalHandler(undefined);
    this.#client.setQuestionHandler(undefined);
    this.#views.clear();
  }

  /**
   * Queues the request and waits for the user. Only an answer given here
   * (or earlier, for a re-sent request) answers it; a prompt that ended
   * without one (resolved elsewhere, cancelled, withdrawn) answers -32800.
   */
  async #waitForUser<
    R extends { sessionId: string; turnId: string; toolCallId: string },
    A,
    Res extends object,
  >(
    params: R,
    token: CancellationToken,
    queueOf: (view: SessionView) => PromptQueue<R, A, Res>,
    what: string,
  ): Promise<A> {
    const view = this.#views.get(params.sessionId);
    if (!view) {
      throw new ResponseError(
        LspErrorCodes.RequestFailed,
        `Session ${params.sessionId} is not tracked by this client`,
      );
    }
    const queue = queueOf(view);
    const key = promptKey(params);
    queue.add(params);
    const settled = queue.settled(key);
    const onCancel = token.onCancellationRequested(() => queue.cancel(key));
    try {
      const settlement = await settled;
      if (settlement.kind === 'answered') return settlement.answer;
      throw new ResponseError(LspErrorCodes.RequestCancelled, `${what} ${settlement.kind}`);
    } finally {
      onCancel.dispose();
    }
  }
}
