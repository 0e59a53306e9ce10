/**
 * One turn: the user's message, its activity (a tree of tool calls and the
 * text written between them, in stream order), approvals without a card, the
 * answer (the text after the last card), budget, an interruption with Retry,
 * and cost.
 */
import type { InstructionsFile, OmittedData } from '@arbor/protocol';
import type { TurnModel } from '../model/chatModel.js';
import {
  TURN_STATUS_LABEL,
  budgetText,
  formatCost,
  formatTokens,
  instructionsText,
  omittedText,
} from '../model/format.js';
import { CardView } from './cardView.js';
import { ChangesView, type ChangesActions } from './changesView.js';
import { h, icon, setText } from './dom.js';
import { renderMarkdown } from './markdown.js';

export class TurnView {
  readonly el: HTMLElement;
  readonly cards = new Map<string, CardView>();
  readonly activity: HTMLElement;
  readonly approvals: HTMLElement;
  /** The files the turn changed, once it ended. */
  readonly changes: ChangesView;
  readonly #user: HTMLElement;
  readonly #answer: HTMLElement;
  readonly #budget: HTMLElement;
  readonly #footer: HTMLElement;
  readonly #instructions: HTMLElement;
  readonly #omitted: HTMLElement;
  readonly #interrupted: HTMLElement;
  readonly #interruptedReason: HTMLElement;
  #renderedAnswer = '';

  constructor(
    readonly turnId: string,
    changes: ChangesActions,
    retry: () => void,
  ) {
    this.#user = h('div', { className: 'user-message' });
    this.activity = h('div', {
      className: 'activity',
      attrs: { role: 'tree', 'aria-label': 'Tool calls' },
    });
    this.#interruptedReason = h('span', { className: 'turn-interrupted-reason' });
    this.#interrupted = h(
      'div',
      { className: 'turn-interrupted', attrs: { role: 'alert' } },
      icon('debug-disconnect'),
      this.#interruptedReason,
      h(
        'button',
        {
          className: 'button secondary retry',
          attrs: { type: 'button', title: 'Send the same message again' },
          on: { click: retry },
        },
        icon('refresh'),
        h('span', { text: 'Retry' }),
      ),
    );
    this.#interrupted.hidden = true;
    this.approvals = h('div', { className: 'turn-approvals' });
    this.#answer = h('div', { className: 'answer markdown' });
    this.#budget = h('div', { className: 'budget-notices' });
    this.#footer = h('div', { className: 'turn-footer' });
    this.#instructions = h('div', { className: 'turn-instructions' });
    this.#omitted = h('div', { className: 'turn-omitted' });
    this.#instructions.hidden = true;
    this.#omitted.hidden = true;
    this.changes = new ChangesView(changes);
    this.el = h(
      'article',
      { className: 'turn', attrs: { 'data-turn-id': turnId } },
      this.#user,
      this.#instructions,
      this.activity,
      this.approvals,
      this.#answer,
      this.changes.el,
      this.#budget,
      this.#interrupted,
      this.#omitted,
      this.#footer,
    );
  }

  /** The instructions files the model had (the turn node's `instructions`), and what the store did not keep. */
  setNotes(instructions: readonly InstructionsFile[], omitted: readonly OmittedData[]): void {
    const said = instructionsText(instructions);
    setText(this.#instructions, said ?? '');
    this.#instructions.hidden = said === undefined;
    if (said !== undefined)
      this.#instructions.title = instructions
        .map((file) => `${file.path}: ${file.chars} characters${file.truncated ? ' (cut)' : ''}`)
        .join('\n');
    const lost = omittedText(omitted);
    setText(this.#omitted, lost ?? '');
    this.#omitted.hidden = lost === undefined;
  }

  /** `retryable`: the latest turn, interrupted, with nothing running. */
  updateMeta(turn: TurnModel, retryable: boolean): void {
    setText(this.#user, turn.userText);
    this.#user.hidden = turn.userText === '';
    this.el.setAttribute('data-status', turn.status);
    this.el.setAttribute('aria-busy', String(turn.status === 'running'));
    // Budget notices are few and final: redraw them whole.
    if (this.#budget.childElementCount !== turn.budget.length) {
      this.#budget.replaceChildren(
        ...turn.budget.map((notice) =>
          h(
            'div',
            { className: 'budget-notice', attrs: { role: 'alert' } },
            icon('warning'),
            h('span', { text: budgetText(notice) }),
          ),
        ),
      );
    }
    const interrupted = turn.status === 'interrupted';
    this.#interrupted.hidden = !interrupted;
    setText(
      this.#interruptedReason,
      `Interrupted${turn.error ? `: ${turn.error.replace(/\.$/, '')}` : ''}. What was shown is kept.`,
    );
    const retry = this.#interrupted.querySelector('.retry');
    if (retry instanceof HTMLElement) retry.hidden = !retryable;
    const parts: string[] = [];
    if (turn.status !== 'running') parts.push(TURN_STATUS_LABEL[turn.status]);
    if (turn.restored) parts.push('Restored');
    if (turn.error && !interrupted) parts.push(turn.error);
    const tokens = formatTokens(turn.usage);
    if (tokens) parts.push(tokens);
    if (turn.cost !== undefined) parts.push(formatCost(turn.cost));
    setText(this.#footer, parts.join(' · '));
  }

  setAnswer(text: string): void {
    if (text === this.#renderedAnswer) return;
    this.#renderedAnswer = text;
    this.#answer.replaceChildren(text ? renderMarkdown(text) : '');
  }
}
