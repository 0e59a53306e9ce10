/**
 * One execution-tree node as a card: a header button (status icon, name or
 * subtask title, duration, cost) and a body built only when first expanded
 * (args and result previews, approvals, child cards, text streamed inside a
 * subtask). Lazy bodies keep a 2,000-node tree cheap: collapsed subtrees have
 * no DOM at all.
 */
import type { ExecutionTreeNode } from '@arbor/protocol';
import {
  STATUS_ICON,
  STATUS_LABEL,
  formatCost,
  formatDuration,
  isErrorNode,
  nodeLabel,
} from '../model/format.js';
import { h, icon, setAttr, setText } from './dom.js';
import { renderMarkdown } from './markdown.js';

export interface CardBody {
  readonly el: HTMLElement;
  readonly approvals: HTMLElement;
  readonly args: HTMLElement;
  readonly result: HTMLElement;
  readonly children: HTMLElement;
  readonly text: HTMLElement;
}

let nextDomId = 0;

export class CardView {
  readonly el: HTMLElement;
  readonly header: HTMLButtonElement;
  readonly #statusIcon: HTMLElement;
  readonly #label: HTMLElement;
  readonly #meta: HTMLElement;
  readonly #srStatus: HTMLElement;
  readonly #count: HTMLElement;
  readonly #bodyId = `card-body-${nextDomId++}`;
  body: CardBody | undefined;
  expanded = false;
  #iconName = '';
  #renderedText = '';

  constructor(readonly nodeId: string) {
    this.#statusIcon = h('span', { className: 'card-status' });
    this.#label = h('span', { className: 'card-label' });
    this.#count = h('span', { className: 'card-count' });
    this.#meta = h('span', { className: 'card-meta' });
    this.#srStatus = h('span', { className: 'visually-hidden' });
    this.header = h(
      'button',
      {
        className: 'card-header',
        attrs: { type: 'button', 'aria-expanded': 'false', 'aria-controls': this.#bodyId },
      },
      icon('chevron-right'),
      this.#statusIcon,
      this.#label,
      this.#count,
      this.#meta,
      this.#srStatus,
    );
    this.el = h(
      'div',
      { className: 'card', attrs: { 'data-node-id': nodeId, role: 'group' } },
      this.header,
    );
  }

  /** Header and, when built, body previews. */
  update(node: ExecutionTreeNode, childCount: number): void {
    const name = STATUS_ICON[node.status];
    // Static icons: a spinning icon per running card repaints every frame, and
    // with hundreds of them that costs more than the rest of the view together.
    if (name !== this.#iconName) {
      this.#iconName = name;
      this.#statusIcon.replaceChildren(icon(name));
    }
    const label = nodeLabel(node);
    setText(this.#label, label);
    setText(this.#srStatus, `, ${STATUS_LABEL[node.status]}`);
    setAttr(this.el, 'aria-label', `${node.kind === 'subtask' ? 'Subtask' : 'Tool'} ${label}`);
    setAttr(this.el, 'data-status', node.status);
    setAttr(this.el, 'data-kind', node.kind);
    this.el.classList.toggle('is-error', isErrorNode(node));
    setText(this.#count, childCount > 0 ? `${childCount} step${childCount === 1 ? '' : 's'}` : '');
    const meta = [
      formatDuration(node.durationMs),
      node.cost !== undefined ? formatCost(node.cost) : '',
    ]
      .filter(Boolean)
      .join(' · ');
    setText(this.#meta, meta);
    if (this.body) this.#updatePreviews(node);
  }

  setExpanded(expanded: boolean): void {
    this.expanded = expanded;
    this.header.setAttribute('aria-expanded', String(expanded));
    this.el.classList.toggle('expanded', expanded);
    if (this.body) this.body.el.hidden = !expanded;
  }

  /** Builds the (empty) body once; the caller fills children, approvals and text. */
  ensureBody(node: ExecutionTreeNode): CardBody {
    if (this.body) return this.body;
    const approvals = h('div', { className: 'card-approvals' });
    const args = h('div', { className: 'preview preview-args' });
    const result = h('div', { className: 'preview preview-result' });
    const children = h('div', { className: 'card-children', attrs: { role: 'list' } });
    const text = h('div', { className: 'card-text markdown' });
    const el = h(
      'div',
      { className: 'card-body', attrs: { id: this.#bodyId } },
      approvals,
      args,
      result,
      children,
      text,
    );
    el.hidden = !this.expanded;
    this.body = { el, approvals, args, result, children, text };
    this.el.append(el);
    this.#updatePreviews(node);
    return this.body;
  }

  setText(text: string): void {
    if (!this.body || text === this.#renderedText) return;
    this.#renderedText = text;
    this.body.text.replaceChildren(text ? renderMarkdown(text) : '');
  }

  #updatePreviews(node: ExecutionTreeNode): void {
    const body = this.body!;
    preview(body.args, 'Arguments', node.argsPreview);
    preview(body.result, isErrorNode(node) ? 'Error' : 'Result', node.resultPreview);
  }
}

function preview(el: HTMLElement, title: string, value: string | undefined): void {
  if (value === undefined || value === '') {
    if (el.childNodes.length) el.replaceChildren();
    return;
  }
  const pre = el.querySelector('pre');
  const caption = el.querySelector('.preview-title');
  if (pre && caption) {
    setText(caption, title);
    setText(pre, value);
    return;
  }
  el.replaceChildren(
    h('div', { className: 'preview-title', text: title }),
    h('pre', { text: value }),
  );
}
