/**
 * While an approval waits, its answers stay beside the composer (as in
 * Cline), whatever the transcript is scrolled to: what is asked, Approve,
 * Reject, and a link to the card with the details.
 */
import type { ApprovalDecision } from '@arbor/protocol';
import type { ApprovalModel } from '../model/chatModel.js';
import { h, icon, setText } from './dom.js';

export interface ApprovalDockActions {
  decide(approval: ApprovalModel, decision: ApprovalDecision): void;
  reveal(approval: ApprovalModel): void;
}

export class ApprovalDock {
  readonly el: HTMLElement;
  readonly #text: HTMLElement;
  #approval: ApprovalModel | undefined;

  constructor(actions: ApprovalDockActions) {
    this.#text = h('span', { className: 'approval-dock-text' });
    const act = (decision: ApprovalDecision) => () => {
      if (this.#approval) actions.decide(this.#approval, decision);
    };
    this.el = h(
      'div',
      { className: 'approval-dock', attrs: { role: 'region', 'aria-label': 'Waiting approval' } },
      icon('shield'),
      h(
        'button',
        {
          className: 'button link approval-dock-show',
          attrs: { type: 'button', title: 'Show the request' },
          on: { click: () => this.#approval && actions.reveal(this.#approval) },
        },
        this.#text,
      ),
      h('button', {
        className: 'button primary dock-approve',
        text: 'Approve',
        attrs: { type: 'button', title: 'Allow once (1)' },
        on: { click: act('allow') },
      }),
      h('button', {
        className: 'button secondary dock-reject',
        text: 'Reject',
        attrs: { type: 'button', title: 'Deny (3 or Escape)' },
        on: { click: act('deny') },
      }),
    );
    this.el.hidden = true;
  }

  /** The oldest approval still waiting for an answer; the dock hides without one. */
  show(approval: ApprovalModel | undefined, waiting: number): void {
    this.#approval = approval;
    this.el.hidden = approval === undefined;
    if (!approval) return;
    const more = waiting > 1 ? ` (+${waiting - 1} more)` : '';
    setText(this.#text, `Allow ${approval.request.name}?${more}`);
  }
}
