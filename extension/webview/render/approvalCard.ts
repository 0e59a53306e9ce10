/**
 * An inline approval: what the call would do (a write or edit as a rendered
 * diff, a command as its command line), the remaining arguments once, and
 * the answers, also by key — their position: 1 allow once, 2 allow for this
 * session, 3 always allow (when the daemon offers a rule to save, shown on
 * the button), then deny; Escape denies too (as Claude Code).
 */
import type { ApprovalDecision, ApprovalRequestParams } from '@arbor/protocol';
import type { ApprovalModel } from '../model/chatModel.js';
import { editOf } from '../model/editDiff.js';
import { canShowDiff, decisionLabel, injectedArgsText, previewJson } from '../model/format.js';
import { diffView } from './diffView.js';
import { h, icon } from './dom.js';

export interface ApprovalActions {
  decide(approval: ApprovalModel, decision: ApprovalDecision): void;
  showDiff(approval: ApprovalModel): void;
}

interface Answer {
  decision: ApprovalDecision;
  label: string;
  /** The rule "always allow" saves, shown before the user chooses it. */
  rule?: string;
}

/** The answers to this request in key order: the key is the position. */
export function answersFor(request: ApprovalRequestParams): Answer[] {
  return [
    { decision: 'allow', label: 'Allow once' },
    { decision: 'allowForSession', label: 'Allow for this session' },
    ...(request.suggestedRule === undefined
      ? []
      : [{ decision: 'allowAlways' as const, label: 'Always allow', rule: request.suggestedRule }]),
    { decision: 'deny', label: 'Deny' },
  ];
}

/** Arguments an edit's diff (with its path in the title) already shows. */
const SHOWN_ELSEWHERE = [
  'path',
  'file',
  'content',
  'oldText',
  'newText',
  'old',
  'new',
  'old_string',
  'new_string',
  'patch',
];

/** The decision a key stands for while an approval has the keyboard. */
export function decisionForKey(
  event: KeyboardEvent,
  request: ApprovalRequestParams,
): ApprovalDecision | undefined {
  if (event.altKey || event.ctrlKey || event.metaKey) return undefined;
  if (event.key === 'Escape') return 'deny';
  const n = Number(event.key);
  return Number.isInteger(n) && n >= 1 ? answersFor(request)[n - 1]?.decision : undefined;
}

export function approvalCard(approval: ApprovalModel, actions: ApprovalActions): HTMLElement {
  const { request } = approval;
  const titleId = `approval-title-${cssSafe(approval.key)}`;
  const args =
    request.args !== null && typeof request.args === 'object' && !Array.isArray(request.args)
      ? (request.args as Record<string, unknown>)
      : undefined;
  const edit = args && canShowDiff(request.category, request.name) ? editOf(args) : undefined;
  const command = typeof args?.['command'] === 'string' ? args['command'] : undefined;
  const target = typeof args?.['path'] === 'string' ? args['path'] : undefined;
  const rest = args
    ? Object.fromEntries(
        Object.entries(args).filter(
          ([key]) =>
            !(edit && SHOWN_ELSEWHERE.includes(key)) &&
            !(key === 'command' && command !== undefined),
        ),
      )
    : request.args;
  const injected = injectedArgsText(request.injectedArgs);
  const hasRest =
    rest !== undefined && (typeof rest !== 'object' || Object.keys(rest ?? {}).length > 0);

  const card = h(
    'div',
    {
      className: 'approval-card',
      attrs: {
        role: 'group',
        tabindex: '-1',
        'aria-labelledby': titleId,
        'data-approval-key': approval.key,
        'data-tool-call-id': request.toolCallId,
      },
    },
    h(
      'div',
      { className: 'approval-title', attrs: { id: titleId } },
      icon('shield'),
      h('span', { text: `Allow ${request.name}${edit && target ? ` on ${target}` : ''}?` }),
      h('span', { className: 'badge', text: request.category }),
    ),
    request.reason ? h('div', { className: 'approval-reason', text: request.reason }) : null,
    // What the agent profile asked the model to say with the call (a reason), for the user to weigh.
    injected !== undefined
      ? h('pre', { className: 'approval-injected', text: injected, attrs: { tabindex: '-1' } })
      : null,
    edit ? diffView(edit) : null,
    command !== undefined
      ? h('pre', { className: 'approval-command', text: command, attrs: { tabindex: '-1' } })
      : null,
    hasRest
      ? h('pre', { className: 'approval-args', text: previewJson(rest), attrs: { tabindex: '-1' } })
      : null,
    h(
      'div',
      { className: 'approval-actions' },
      ...answersFor(request).map(({ decision, label, rule }, i) =>
        h(
          'button',
          {
            className: `button ${i === 0 ? 'primary' : 'secondary'}`,
            attrs: {
              type: 'button',
              'data-decision': decision,
              'aria-keyshortcuts': decision === 'deny' ? `${i + 1} Escape` : String(i + 1),
              ...(rule !== undefined && { title: `Saves the rule ${rule} for this workspace` }),
            },
            on: { click: () => actions.decide(approval, decision) },
          },
          h('span', {
            className: 'key-hint',
            text: String(i + 1),
            attrs: { 'aria-hidden': 'true' },
          }),
          h('span', { text: label }),
          rule !== undefined ? h('code', { className: 'approval-rule', text: rule }) : null,
        ),
      ),
      canShowDiff(request.category, request.name)
        ? h('button', {
            className: 'button link show-diff',
            text: 'Open full diff',
            attrs: { type: 'button' },
            on: { click: () => actions.showDiff(approval) },
          })
        : null,
    ),
    h('div', { className: 'approval-answer', attrs: { role: 'status' } }),
  );
  card.addEventListener('keydown', (event) => {
    const decision = decisionForKey(event, request);
    if (!decision || approval.answer !== undefined) return;
    // Escape here answers the approval; it must not also cancel the turn.
    event.preventDefault();
    event.stopPropagation();
    actions.decide(approval, decision);
  });
  updateApprovalCard(card, approval);
  return card;
}

export function updateApprovalCard(card: HTMLElement, approval: ApprovalModel): void {
  const answered = approval.answer !== undefined;
  card.classList.toggle('answered', answered);
  for (const b of Array.from(card.querySelectorAll<HTMLButtonElement>('button[data-decision]'))) {
    b.disabled = answered;
  }
  const answer = card.querySelector('.approval-answer');
  if (answer)
    answer.textContent = answered
      ? `${decisionLabel(approval.answer!)} — waiting for the daemon…`
      : '';
}

/** Puts the keyboard on the approval: its first answer. */
export function focusApprovalCard(card: HTMLElement): void {
  const target = card.querySelector<HTMLElement>('button[data-decision]:not(:disabled)') ?? card;
  target.focus({ preventScroll: true });
}

function cssSafe(key: string): string {
  return key.replace(/[^a-zA-Z0-9_-]/g, '_');
}
