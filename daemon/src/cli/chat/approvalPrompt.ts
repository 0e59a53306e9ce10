/**
 * Inline approvals: the session's ApprovalQueue (filled by the client core's
 * approval handler) is asked one approval at a time, oldest first, with a
 * single key: a = allow, s = allow for this session, w = always allow (the
 * rule the daemon suggests, saved for the workspace; offered only when it
 * suggests one), d = deny. An approval
 * that ends elsewhere (another client, a timeout, a cancelled turn) closes its
 * prompt. Nothing is ever answered without the user: when input has ended,
 * the approval stays open for the daemon to time out.
 */
import type { ApprovalDecision } from '@arbor/protocol';
import type { Disposable, PendingApproval, SessionView } from '@arbor/protocol/client';
import { PromptSeat } from './promptSeat.js';
import { formatApprovalRequest } from './turnFormat.js';
import type { Style } from './terminalStyle.js';
import type { TerminalInput } from './terminalInput.js';

export const APPROVAL_KEYS: Readonly<Record<string, ApprovalDecision>> = {
  a: 'allow',
  s: 'allowForSession',
  w: 'allowAlways',
  d: 'deny',
};

const DECISION_WORDS: Record<ApprovalDecision, string> = {
  allow: 'allowed',
  allowForSession: 'allowed for this session',
  allowAlways: 'always allowed',
  deny: 'denied',
};

/** The keys that answer this request: "always allow" only where the daemon suggests a rule. */
function keysFor(approval: PendingApproval): string[] {
  return Object.keys(APPROVAL_KEYS).filter(
    (key) => key !== 'w' || approval.request.suggestedRule !== undefined,
  );
}

/** Where the prompt shows: the live block, or printed lines. */
export interface ApprovalDisplay {
  /** Shows the prompt (undefined: the prompt is gone). */
  prompt(lines: readonly string[] | undefined): void;
  /** A permanent line (what was decided). */
  note(lines: readonly string[]): void;
  /**
   * Shows the answer being typed at a question (a raw-mode terminal does not
   * echo); undefined: typing ended. Absent: typed text is not shown.
   */
  typing?(text: string | undefined): void;
}

export class ApprovalPrompter implements Disposable {
  readonly #view: SessionView;
  readonly #input: TerminalInput;
  readonly #display: ApprovalDisplay;
  readonly #style: Style;
  readonly #seat: PromptSeat;
  readonly #subscriptions: Disposable[] = [];
  #asking: { key: string; abort: AbortController } | undefined;
  #inputEnded = false;
  #disposed = false;

  constructor(
    view: SessionView,
    input: TerminalInput,
    display: ApprovalDisplay,
    style: Style,
    /** Shared with the question prompter: one prompt reads the keyboard at a time. */
    seat = new PromptSeat(),
  ) {
    this.#view = view;
    this.#input = input;
    this.#display = display;
    this.#style = style;
    this.#seat = seat;
    this.#subscriptions.push(
      seat.onFree(() => this.#next()),
      view.approvals.on('added', () => this.#next()),
      view.approvals.on('removed', ({ entry: approval, end }) => {
        if (this.#asking?.key !== approval.key) return;
        this.#asking.abort.abort();
        const how = end.kind === 'resolved' ? end.outcome.replace('_', ' ') : end.kind;
        this.#display.note([
          this.#style.dim(`  approval of ${approval.request.name} ended: ${how}`),
        ]);
      }),
    );
    // Approvals queued before this prompter existed (e.g. from an attach snapshot).
    queueMicrotask(() => this.#next());
  }

  dispose(): void {
    this.#disposed = true;
    this.#asking?.abort.abort();
    for (const subscription of this.#subscriptions.splice(0)) subscription.dispose();
  }

  #next(): void {
    if (this.#asking || this.#disposed || this.#inputEnded) return;
    const approval = this.#view.approvals.awaiting()[0];
    if (!approval || !this.#seat.take()) return;
    void this.#ask(approval).finally(() => {
      this.#seat.release();
      this.#next();
    });
  }

  async #ask(approval: PendingApproval): Promise<void> {
    const abort = new AbortController();
    this.#asking = { key: approval.key, abort };
    this.#display.prompt(formatApprovalRequest(approval.request, this.#style));
    const key = await this.#input.readKey(keysFor(approval), abort.signal);
    this.#asking = undefined;
    this.#display.prompt(undefined);
    if (key !== undefined) {
      const decision = APPROVAL_KEYS[key]!;
      if (this.#view.approvals.decide(approval.key, decision)) {
        const colour = decision === 'deny' ? this.#style.red : this.#style.green;
        const rule =
          decision === 'allowAlways' ? ` (rule ${approval.request.suggestedRule} saved)` : '';
        this.#display.note([
          colour(`  ${approval.request.name}: ${DECISION_WORDS[decision]}${rule}`),
        ]);
      }
    } else if (!abort.signal.aborted) {
      this.#inputEnded = true;
      this.#display.note([
        this.#style.yellow(
          `  no input left to answer the approval of ${approval.request.name}; it stays open until the daemon times it out (Ctrl-C cancels)`,
        ),
      ]);
    }
  }
}
