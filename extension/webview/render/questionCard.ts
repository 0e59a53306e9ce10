/**
 * An inline question (the model's `ask_user`): the question as plain text,
 * one button per suggested answer (with what picking it means), and a text
 * box for the user's own words when the question allows them. Answering
 * disables the card until the daemon says how the question ended; then the
 * card closes to one line that says so.
 */
import { ANSWER_MAX_CHARS } from '@arbor/protocol/client/view';
import type { QuestionModel } from '../model/chatModel.js';
import { questionEndText, quoteAnswer } from '../model/format.js';
import { h, icon, setAttr, setText } from './dom.js';

export interface QuestionActions {
  answer(question: QuestionModel, answer: string): void;
}

/** Options 1–9 can be picked with their number key while the card has focus. */
const MAX_SHORTCUT = 9;

export function questionCard(question: QuestionModel, actions: QuestionActions): HTMLElement {
  const { request } = question;
  const id = cssSafe(question.key);
  const titleId = `question-title-${id}`;
  const textId = `question-text-${id}`;
  const options = request.options ?? [];
  // Without options every answer is the user's own words (questions.md: always true then).
  const freeText = request.freeText || options.length === 0;

  const optionButtons = options.map((option, i) => {
    const descId = option.description ? `question-option-${id}-${i}` : undefined;
    return h(
      'button',
      {
        className: 'question-option',
        attrs: {
          type: 'button',
          'data-label': option.label,
          'aria-describedby': descId,
          'aria-keyshortcuts': i < MAX_SHORTCUT ? String(i + 1) : undefined,
        },
        on: { click: () => actions.answer(question, option.label) },
      },
      h('span', {
        className: 'question-option-key',
        text: i < MAX_SHORTCUT ? String(i + 1) : '',
        attrs: { 'aria-hidden': 'true' },
      }),
      h(
        'span',
        { className: 'question-option-text' },
        h('span', { className: 'question-option-label', text: option.label }),
        option.description
          ? h('span', {
              className: 'question-option-description',
              text: option.description,
              attrs: { id: descId },
            })
          : null,
      ),
    );
  });

  let free: HTMLElement | null = null;
  if (freeText) {
    const input = h('textarea', {
      className: 'question-input',
      attrs: {
        rows: '1',
        maxlength: String(ANSWER_MAX_CHARS),
        placeholder:
          options.length > 0
            ? 'Or type your own answer… (Enter to send)'
            : 'Type your answer… (Enter to send, Shift+Enter for a new line)',
        'aria-label': 'Your answer',
      },
    });
    const submit = () => {
      const text = input.value.trim();
      if (text) actions.answer(question, text);
    };
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        submit();
      }
    });
    free = h(
      'form',
      { className: 'question-free', attrs: { 'aria-label': 'Your own answer' } },
      input,
      h('button', {
        className: 'button primary question-send',
        text: 'Answer',
        attrs: { type: 'submit', 'aria-label': 'Send your answer' },
      }),
    );
    free.addEventListener('submit', (event) => {
      event.preventDefault();
      submit();
    });
  }

  const card = h(
    'div',
    {
      className: 'question-card',
      attrs: {
        role: 'group',
        tabindex: '-1',
        'aria-labelledby': titleId,
        'aria-describedby': textId,
        'data-question-key': question.key,
        'data-tool-call-id': request.toolCallId,
      },
    },
    h(
      'div',
      { className: 'question-title', attrs: { id: titleId } },
      icon('question'),
      h('span', { text: 'Arbor asks' }),
    ),
    h('div', { className: 'question-text', text: request.question, attrs: { id: textId } }),
    optionButtons.length > 0
      ? h(
          'div',
          {
            className: 'question-options',
            attrs: { role: 'group', 'aria-label': 'Suggested answers' },
          },
          ...optionButtons,
        )
      : null,
    free,
    h('div', { className: 'question-status', attrs: { role: 'status' } }),
  );
  card.addEventListener('keydown', (event) => {
    // Number keys pick an option, except while typing an answer.
    if ((event.target as Element).closest('textarea') || event.altKey || event.ctrlKey) return;
    const n = Number(event.key);
    const button = Number.isInteger(n) && n >= 1 ? optionButtons[n - 1] : undefined;
    if (button && !button.disabled && n <= MAX_SHORTCUT) {
      event.preventDefault();
      button.click();
    }
  });
  updateQuestionCard(card, question);
  return card;
}

export function updateQuestionCard(card: HTMLElement, question: QuestionModel): void {
  const state = question.end ? 'ended' : question.answer !== undefined ? 'answered' : 'open';
  setAttr(card, 'data-state', state);
  setAttr(card, 'data-outcome', question.end?.outcome ?? question.end?.kind);
  card.classList.toggle('answered', state === 'answered');
  card.classList.toggle('ended', state === 'ended');
  const closed = state !== 'open';
  for (const control of Array.from(
    card.querySelectorAll<HTMLButtonElement | HTMLTextAreaElement>('button, textarea'),
  )) {
    control.disabled = closed;
  }
  for (const b of Array.from(card.querySelectorAll<HTMLElement>('.question-option'))) {
    const chosen = question.answer !== undefined && b.dataset['label'] === question.answer;
    b.classList.toggle('chosen', chosen);
    setAttr(b, 'aria-pressed', closed ? String(chosen) : undefined);
  }
  // An ended card keeps the question and says how it ended; the controls go.
  for (const el of Array.from(
    card.querySelectorAll<HTMLElement>('.question-options, .question-free'),
  )) {
    el.hidden = state === 'ended';
  }
  const status = card.querySelector('.question-status');
  if (status) {
    setText(
      status,
      question.end
        ? questionEndText(question.end)
        : question.answer !== undefined
          ? `You answered ${quoteAnswer(question.answer)} — waiting for the daemon…`
          : '',
    );
  }
}

/** Puts the keyboard on the card: its first option, or its text box. */
export function focusQuestionCard(card: HTMLElement): void {
  const target =
    card.querySelector<HTMLElement>('.question-option:not(:disabled)') ??
    card.querySelector<HTMLElement>('.question-input:not(:disabled)') ??
    card;
  target.focus();
}

function cssSafe(key: string): string {
  return key.replace(/[^a-zA-Z0-9_-]/g, '_');
}
