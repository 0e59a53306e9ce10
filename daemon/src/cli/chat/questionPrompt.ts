/**
 * Inline questions: the model's `ask_user` questions (the session's
 * QuestionQueue, filled by the client core's question handler) are asked one
 * at a time, oldest first. The user types an option's number, or their own
 * words when the question allows them, then Enter. A question that ends
 * while it is asked (another client answered, a timeout, a cancelled turn)
 * withdraws the prompt and says how it ended. Nothing is ever answered
 * without the user: when input has ended, the question stays open for the
 * daemon to time out.
 */
import {
  ANSWER_MAX_CHARS,
  type QuestionRequestParams,
  type QuestionResolvedParams,
} from '@arbor/protocol';
import {
  promptKey,
  type Disposable,
  type PendingQuestion,
  type SessionView,
} from '@arbor/protocol/client';
import type { ApprovalDisplay } from './approvalPrompt.js';
import { PromptSeat } from './promptSeat.js';
import type { Style } from './terminalStyle.js';
import type { TerminalInput } from './terminalInput.js';
import { formatQuestionRequest } from './turnFormat.js';

export type ParsedAnswer = { answer: string } | { error: string } | undefined;

/**
 * What a typed line answers: a number picks that option, an option's label
 * (any case) is that option, other words are the user's own answer when the
 * question takes them. undefined: an empty line (ask again).
 */
export function parseQuestionAnswer(request: QuestionRequestParams, line: string): ParsedAnswer {
  const text = line.trim();
  if (text === '') return undefined;
  const options = request.options ?? [];
  const ownWords = request.freeText || options.length === 0;
  if (options.length > 0 && /^\d+$/.test(text)) {
    const option = options[Number(text) - 1];
    return option
      ? { answer: option.label }
      : { error: `there is no option ${text}; pick 1–${options.length}` };
  }
  const named = options.find((o) => o.label.toLowerCase() === text.toLowerCase());
  if (named) return { answer: named.label };
  if (!ownWords) return { error: `answer with a number, 1–${options.length}` };
  if (text.length > ANSWER_MAX_CHARS)
    return { error: `that answer is too long (at most ${ANSWER_MAX_CHARS} characters)` };
  return { answer: text };
}

/** How a question ended (`tool/questionResolved`), as a note. */
export function questionEndText(end: Pick<QuestionResolvedParams, 'outcome' | 'answer'>): string {
  switch (end.outcome) {
    case 'answered':
      return `answered in another client${end.answer !== undefined ? `: ${end.answer}` : ''}`;
    case 'timed_out':
      return 'timed out; the model goes on without an answer';
    case 'cancelled':
      return 'cancelled with the turn';
    case 'unanswered':
      return 'not answered; the model goes on without an answer';
  }
}

export class QuestionPrompter implements Disposable {
  readonly #view: SessionView;
  readonly #input: TerminalInput;
  readonly #display: ApprovalDisplay;
  readonly #style: Style;
  readonly #seat: PromptSeat;
  readonly #width: () => number;
  readonly #subscriptions: Disposable[] = [];
  /** Questions shown here, with the answer given here if any, until the daemon says how they ended. */
  readonly #shown = new Map<string, string | undefined>();
  #asking: { key: string; abort: AbortController } | undefined;
  #inputEnded = false;
  #disposed = false;

  constructor(
    view: SessionView,
    input: TerminalInput,
    display: ApprovalDisplay,
    style: Style,
    options: { seat?: PromptSeat; width?: () => number } = {},
  ) {
    this.#view = view;
    this.#input = input;
    this.#display = display;
    this.#style = style;
    this.#seat = options.seat ?? new PromptSeat();
    this.#width = options.width ?? (() => 80);
    this.#subscriptions.push(
      this.#seat.onFree(() => this.#next()),
      view.questions.on('added', () => this.#next()),
      // Any end withdraws the prompt; the daemon's $/cancelRequest comes before its outcome.
      view.questions.on('removed', ({ entry }) => {
        if (this.#asking?.key === entry.key) this.#asking.abort.abort();
      }),
      view.on('questionResolved', (resolved) => this.#ended(resolved)),
    );
    // Questions queued before this prompter existed (e.g. re-sent on attach).
    queueMicrotask(() => this.#next());
  }

  dispose(): void {
    this.#disposed = true;
    this.#asking?.abort.abort();
    for (const subscription of this.#subscriptions.splice(0)) subscription.dispose();
  }

  /** How a question the user saw ended, unless it ended with the answer given here. */
  #ended(resolved: QuestionResolvedParams): void {
    const key = promptKey(resolved);
    if (!this.#shown.has(key)) return;
    const ours = this.#shown.get(key);
    this.#shown.delete(key);
    if (this.#asking?.key === key) this.#asking.abort.abort();
    if (ours === undefined) {
      this.#display.note([this.#style.dim(`  question ended: ${questionEndText(resolved)}`)]);
    } else if (resolved.outcome !== 'answered' || resolved.answer !== ours) {
      this.#display.note([
        this.#style.yellow(`  your answer did not apply — ${questionEndText(resolved)}`),
      ]);
    }
  }

  #next(): void {
    if (this.#asking || this.#disposed || this.#inputEnded) return;
    const question = this.#view.questions.awaiting()[0];
    if (!question || !this.#seat.take()) return;
    void this.#ask(question).finally(() => {
      this.#seat.release();
      this.#next();
    });
  }

  async #ask(question: PendingQuestion): Promise<void> {
    const abort = new AbortController();
    this.#asking = { key: question.key, abort };
    this.#shown.set(question.key, undefined);
    this.#display.prompt(formatQuestionRequest(question.request, this.#style, this.#width()));
    try {
      for (;;) {
        this.#display.typing?.('');
        const line = await this.#input.readText(abort.signal, (typed) =>
          this.#display.typing?.(typed),
        );
        this.#display.typing?.(undefined);
        if (line === undefined) {
          if (!abort.signal.aborted) {
            this.#inputEnded = true;
            this.#display.prompt(undefined);
            this.#display.note([
              this.#style.yellow(
                '  no input left to answer the question; it stays open until the daemon times it out (Ctrl-C cancels)',
              ),
            ]);
          }
          return;
        }
        const parsed = parseQuestionAnswer(question.request, line);
        if (parsed === undefined) continue;
        if ('error' in parsed) {
          this.#display.note([this.#style.red(`  ${parsed.error}`)]);
          continue;
        }
        this.#asking = undefined;
        if (this.#view.questions.decide(question.key, parsed.answer)) {
          this.#shown.set(question.key, parsed.answer);
          this.#display.note([this.#style.green(`  answered: ${parsed.answer}`)]);
        }
        return;
      }
    } finally {
      this.#asking = undefined;
      this.#display.prompt(undefined);
    }
  }
}
