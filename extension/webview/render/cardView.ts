/**
 * One execution-tree node as a tree item: a one-line header (status, a verb
 * and what the call acts on with a short outcome, or a subtask's title;
 * duration, cost) and a body built only when first expanded (pretty-printed
 * arguments and result, approvals, child items, text streamed inside a
 * subtask). Lazy bodies keep a 2,000-node tree cheap: collapsed subtrees have
 * no DOM at all. The item itself takes the keyboard (see treeKeys.ts).
 */
import type { ExecutionTreeNode } from '@arbor/protocol';
import { progressText, type ToolCatalogue } from '@arbor/protocol/client/view';
import {
  approvalText,
  injectedArgsText,
  STATUS_ICON,
  STATUS_LABEL,
  formatCost,
  formatDuration,
  isErrorNode,
  nodeLabel,
  prettyJson,
} from '../model/format.js';
import { deniedText, ruleText, toolHeader } from '../model/toolHeader.js';
import { h, icon, setAttr, setText } from './dom.js';
import { renderMarkdown } from './markdown.js';

export interface CardBody {
  readonly el: HTMLElement;
  readonly approvals: HTMLElement;
  readonly args: HTMLElement;
  /** The injected arguments the model gave with the call (an agent profile's `injectedToolArgs`). */
  readonly injected: HTMLElement;
  /** What the running tool writes, live (a command's output). */
  readonly output: HTMLElement;
  readonly result: HTMLElement;
  readonly children: HTMLElement;
  readonly text: HTMLElement;
}

let nextDomId = 0;

export class CardView {
  readonly el: HTMLElement;
  readonly header: HTMLElement;
  readonly #statusIcon: HTMLElement;
  readonly #label: HTMLElement;
  readonly #category: HTMLElement;
  readonly #about: HTMLElement;
  readonly #outcome: HTMLElement;
  readonly #meta: HTMLElement;
  readonly #count: HTMLElement;
  readonly #bodyId = `card-body-${nextDomId++}`;
  body: CardBody | undefined;
  expanded = false;
  #isError = false;
  #iconName = '';
  #renderedText = '';
  /** A subtask's result is the text it wrote: shown once, as its text. */
  #resultRepeatsText = false;

  constructor(readonly nodeId: string) {
    this.#statusIcon = h('span', { className: 'card-status' });
    this.#label = h('span', { className: 'card-label' });
    this.#category = h('span', { className: 'card-category' });
    this.#about = h('span', { className: 'card-about' });
    this.#outcome = h('span', { className: 'card-outcome' });
    this.#count = h('span', { className: 'card-count' });
    this.#meta = h('span', { className: 'card-meta' });
    this.header = h(
      'div',
      { className: 'card-header' },
      icon('chevron-right'),
      this.#statusIcon,
      this.#label,
      this.#about,
      this.#outcome,
      this.#category,
      this.#count,
      this.#meta,
    );
    this.el = h(
      'div',
      {
        className: 'card',
        attrs: {
          'data-node-id': nodeId,
          role: 'treeitem',
          tabindex: '-1',
          'aria-expanded': 'false',
        },
      },
      this.header,
    );
  }

  /** Header and, when built, body previews; `tools` says the call's category and subject. */
  update(node: ExecutionTreeNode, childCount: number, tools: ToolCatalogue): void {
    const name = STATUS_ICON[node.status];
    if (name !== this.#iconName) {
      this.#iconName = name;
      this.#statusIcon.replaceChildren(icon(name));
    }
    const tool = node.kind === 'tool' ? toolHeader(node, tools) : undefined;
    const label = tool?.verb ?? nodeLabel(node);
    const outcome = tool?.outcome ?? deniedText(node) ?? (isErrorNode(node) ? 'failed' : '');
    setText(this.#label, label);
    setText(this.#about, tool?.target ?? '');
    setText(this.#outcome, outcome);
    const category = node.kind === 'tool' ? tools.categoryOf(node.name) : undefined;
    setAttr(this.el, 'data-category', category);
    setAttr(this.el, 'data-tool-name', node.kind === 'tool' ? node.name : undefined);
    // Read tools always run; the category matters for the calls that change or reach out.
    setText(this.#category, category && category !== 'read' ? category : '');
    setAttr(this.el, 'aria-level', String(node.depth + 1));
    const said = [
      node.kind === 'subtask'
        ? `Subtask: ${label}`
        : [label, tool?.target].filter(Boolean).join(' '),
      outcome,
      STATUS_LABEL[node.status],
    ];
    setAttr(this.el, 'aria-label', [...new Set(said.filter(Boolean))].join(', '));
    setAttr(this.el, 'data-status', node.status);
    setAttr(this.el, 'data-kind', node.kind);
    this.#isError = isErrorNode(node);
    this.#syncClass();
    setText(this.#count, childCount > 0 ? `${childCount} step${childCount === 1 ? '' : 's'}` : '');
    const meta = [
      progressText(node) ?? '',
      ruleText(node) ?? '',
      approvalText(node) ?? '',
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
    this.el.setAttribute('aria-expanded', String(expanded));
    this.#syncClass();
    if (this.body) this.body.el.hidden = !expanded;
  }

  /** Builds the (empty) body once; the caller fills children, approvals and text. */
  ensureBody(node: ExecutionTreeNode): CardBody {
    if (this.body) return this.body;
    const approvals = h('div', { className: 'card-approvals' });
    const args = h('div', { className: 'preview preview-args' });
    const injected = h('div', { className: 'preview preview-injected' });
    const output = h('div', { className: 'preview preview-output' });
    const result = h('div', { className: 'preview preview-result' });
    const children = h('div', { className: 'card-children', attrs: { role: 'group' } });
    const text = h('div', { className: 'card-text markdown' });
    const el = h(
      'div',
      { className: 'card-body', attrs: { id: this.#bodyId } },
      approvals,
      args,
      injected,
      output,
      result,
      children,
      text,
    );
    el.hidden = !this.expanded;
    this.body = { el, approvals, args, injected, output, result, children, text };
    this.el.append(el);
    this.#updatePreviews(node);
    return this.body;
  }

  setText(text: string): void {
    if (!this.body || text === this.#renderedText) return;
    this.#renderedText = text;
    this.body.text.replaceChildren(text ? renderMarkdown(text) : '');
    this.#syncResult();
  }

  /** Written whole, in one order: a live card and a reloaded one end with the same attribute. */
  #syncClass(): void {
    const name = `card${this.expanded ? ' expanded' : ''}${this.#isError ? ' is-error' : ''}`;
    if (this.el.className !== name) this.el.className = name;
  }

  #updatePreviews(node: ExecutionTreeNode): void {
    const body = this.body!;
    preview(body.args, 'Arguments', node.argsPreview);
    // What the agent profile had the model say with the call (a reason): not the tool's arguments.
    preview(body.injected, 'Given with the call', injectedArgsText(node.injectedArgs));
    preview(body.output, node.status === 'running' ? 'Output (live)' : 'Output', node.output);
    // A denial's result is the message meant for the model; the header already says what happened.
    const denied = deniedText(node) !== undefined;
    // A result too large for the model: it read the start, and the rest on demand.
    const title = isErrorNode(node) ? 'Error' : 'Result';
    preview(
      body.result,
      node.artifactId
        ? `${title} (kept whole as ${node.artifactId}; the model pages through it)`
        : title,
      denied ? undefined : node.resultPreview,
    );
    this.#resultRepeatsText =
      node.kind === 'subtask' && node.resultPreview !== undefined && !isErrorNode(node);
    this.#syncResult();
  }

  #syncResult(): void {
    const result = this.body?.result;
    if (!result) return;
    const same =
      this.#resultRepeatsText &&
      squash(result.querySelector('pre')?.textContent ?? '') === squash(this.#renderedText);
    result.hidden = same;
  }
}

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

function preview(el: HTMLElement, title: string, value: string | undefined): void {
  if (value === undefined || value === '') {
    if (el.childNodes.length) el.replaceChildren();
    return;
  }
  const shown = prettyJson(value);
  const pre = el.querySelector('pre');
  const caption = el.querySelector('.preview-title');
  if (pre && caption) {
    setText(caption, title);
    setText(pre, shown);
    return;
  }
  el.replaceChildren(
    h('div', { className: 'preview-title', text: title }),
    // A scrolling block is a Tab stop in Chromium unless told otherwise; the tree item is the stop.
    h('pre', { text: shown, attrs: { tabindex: '-1' } }),
  );
}
