/** An inline approval: tool, category, reason, arguments, and the three answers. */
import type { ApprovalDecision } from '@arbor/protocol';
import type { ApprovalModel } from '../model/chatModel.js';
import { canShowDiff, decisionLabel, previewJson } from '../model/format.js';
import { h, icon } from './dom.js';

export interface ApprovalActions {
  decide(approval: ApprovalModel, decision: ApprovalDecision): void;
  showDiff(approval: ApprovalModel): void;
}

export function approvalCard(approval: ApprovalModel, actions: ApprovalActions): HTMLElement {
  const { request } = approval;
  const titleId = `approval-title-${cssSafe(approval.key)}`;
  const button = (label: string, decision: ApprovalDecision, cls: string) =>
    h('button', {
      className: `button ${cls}`,
      text: label,
      attrs: { type: 'button', 'data-decision': decision },
      on: { click: () => actions.decide(approval, decision) },
    });
  const card = h(
    'div',
    {
      className: 'approval-card',
      attrs: {
        role: 'group',
        'aria-labelledby': titleId,
        'data-approval-key': approval.key,
        'data-tool-call-id': request.toolCallId,
      },
    },
    h(
      'div',
      { className: 'approval-title', attrs: { id: titleId } },
      icon('shield'),
      h('span', { text: `Allow ${request.name}?` }),
      h('span', { className: 'badge', text: request.category }),
    ),
    request.reason ? h('div', { className: 'approval-reason', text: request.reason }) : null,
    h('pre', { className: 'approval-args', text: previewJson(request.args) }),
    h(
      'div',
      { className: 'approval-actions' },
      button('Allow', 'allow', 'primary'),
      button('Allow for this session', 'allowForSession', 'secondary'),
      button('Deny', 'deny', 'secondary'),
      canShowDiff(request.category, request.name)
        ? h('button', {
            className: 'button link show-diff',
            text: 'Show diff',
            attrs: { type: 'button' },
            on: { click: () => actions.showDiff(approval) },
          })
        : null,
    ),
    h('div', { className: 'approval-answer', attrs: { role: 'status' } }),
  );
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

function cssSafe(key: string): string {
  return key.replace(/[^a-zA-Z0-9_-]/g, '_');
}
