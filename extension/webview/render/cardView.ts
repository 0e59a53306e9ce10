/**
 * One execution-tree node as a card: a header button (status icon, name or
 * subtask title, duration, cost) and a body built only when first expanded
 * (args and result previews, approvals, child cards, text streamed inside a
 * subtask). Lazy bodies keep a 2,000-node tree cheap: collapsed subtrees have
 * no DOM at all.
 */
import type { ExecutionTreeNode } from '@arbor/protocol';
import { progressText, type ToolCatalogue } from '@arbor/protocol/client';
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
  /** What the running tool writes, live (a command's output). */
  readonly output: HTMLElement;
  readonly result: HTMLElement;
  readonly children: HTMLElement;
  readonly text: HTMLElement;
}

let nextDomId = 0;

const KIND_LABEL: Partial<Record<ExecutionTreeNode['kind'], string>> = {
  subtask: 'Subtask',
  compaction: 'Compaction',
};

export class CardView {
  readonly el: HTMLElement;
  readonly header: HTMLButtonElement;
  readonly #statusIcon: HTMLElement;
  readonly #label: HTMLElement;
  readonly #category: HTMLElement;
  readonly #about: HTMLElement;
  readonly #meta: HTMLElement;
  readonly #srStatus: HTMLElement;
  readonly #count: HTMLElement;
  readonly #bodyId = `card-body-${nextDomId++}`;
  body: CardBody | undefined;
  expanded = false;
  #isError = false;
  #iconName = '';
  #renderedText = '';

  constructor(readonly nodeId: string) {
    this.#statusIcon = h('span', { className: 'card-status' });
    this.#label = h('span', { className: 'card-label' });
    this.#category = h('span', { className: 'card-category' });
    this.#about = h('span', { className: 'card-about' });
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
      this.#category,
      this.#about,
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

  /** Header and, when built, body previews; `tools` says the call's category and subject. */
  update(node: ExecutionTreeNode, childCount: number, tools: ToolCatalogue): void {
    const name = STATUS_ICON[node.status];
    // Static icons: a spinning icon per running card repaints every frame, and
    // with hundreds of them that costs more than the rest of the view together.
    if (name !== this.#iconName) {
      this.#iconName = name;
      this.#statusIcon.replaceChildren(icon(name));
    }
    const label = nodeLabel(node);
    setText(this.#label, label);
    const category = node.kind === 'tool' ? tools.categoryOf(node.name) : undefined;
    setAttr(this.el, 'data-category', category);
    // Read tools always run; the category matters for the calls that change or reach out.
    setText(this.#category, category && category !== 'read' ? category : '');
    setText(
      this.#about,
      node.kind === 'tool' ? (tools.summarize(node.name, node.argsPreview) ?? '') : '',
    );
    setText(this.#srStatus, `, ${STATUS_LABEL[node.status]}`);
    setAttr(this.el, 'aria-label', `${KIND_LABEL[node.kind] ?? 'Tool'} ${label}`);
    setAttr(this.el, 'data-status', node.status);
    setAttr(this.el, 'data-kind', node.kind);
    this.#isError = isErrorNode(node);
    this.#syncClass();
    setText(this.#count, childCount > 0 ? `${childCount} step${childCount === 1 ? '' : 's'}` : '');
    const meta = [
      progressText(node) ?? '',
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
    this.#syncClass();
    if (this.body) this.body.el.hidden = !expanded;
  }

  /** Builds the (empty) body once; the caller fills children, approvals and text. */
  ensureBody(node: ExecutionTreeNode): CardBody {
    if (this.body) return this.body;
    const approvals = h('div', { className: 'card-approvals' });
    const args = h('div', { className: 'preview preview-args' });
    const output = h('div', { className: 'preview preview-output' });
    const result = h('div', { className: 'preview preview-result' });
    const children = h('div', { className: 'card-children', attrs: { role: 'list' } });
    const text = h('div', { className: 'card-text markdown' });
    const el = h(
      'div',
      { className: 'card-body', attrs: { id: this.#bodyId } },
      approvals,
      args,
      output,
      result,
      children,
      text,
    );
    el.hidden = !this.expanded;
    this.body = { el, approvals, args, output, result, children, text };
    this.el.append(el);
    this.#updatePreviews(node);
    return this.body;
  }

  setText(text: string): void {
    if (!this.body || text === this.#renderedText) return;
    this.#renderedText = text;
    this.body.text.replaceChildren(text ? renderMarkdown(text) : '');
  }

  /** Written whole, in one order: a live card and a reloaded one end with the same attribute. */
  #syncClass(): void {
    const name = `card${this.expanded ? ' expanded' : ''}${this.#isError ? ' is-error' : ''}`;
    if (this.el.className !== name) this.el.className = name;
  }

  #updatePreviews(node: ExecutionTreeNode): void {
    const body = this.body!;
    preview(body.args, 'Arguments', node.argsPreview);
    preview(body.output, node.status === 'running' ? 'Output (live)' : 'Output', node.output);
    // A result too large for the model: it read the start, and the rest on demand.
    const title = isErrorNode(node) ? 'Error' : 'Result';
    preview(
      body.result,
      node.artifactId
        ? `${title} (kept whole as ${node.artifactId}; the model pages through it)`
        : title,
      node.resultPreview,
    );
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
