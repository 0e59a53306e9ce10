/**
 * Keeps a container's children in a node's stream order: the text the model
 * wrote between tool calls as `.interim` blocks, and the cards. Live turns
 * only ever append, so the usual frame touches the last element alone; a
 * reloaded turn is drawn by the same call from its stored parts, which is
 * what makes the two DOMs the same.
 */
import type { FlowItem } from '@arbor/protocol/client/view';
import { h } from './dom.js';
import { renderMarkdown } from './markdown.js';

/** The text each interim block shows, so an unchanged block is not re-rendered. */
const rendered = new WeakMap<Element, string>();

export function syncFlow(
  container: HTMLElement,
  items: readonly FlowItem[],
  cardOf: (nodeId: string) => HTMLElement | undefined,
): void {
  let at = container.firstElementChild;
  for (const item of items) {
    let el: Element | undefined;
    if (item.type === 'node') {
      el = cardOf(item.nodeId);
      if (!el) continue;
    } else {
      el = at?.classList.contains('interim') ? at : h('div', { className: 'interim markdown' });
      if (rendered.get(el) !== item.text) {
        rendered.set(el, item.text);
        el.replaceChildren(renderMarkdown(item.text));
      }
    }
    if (el === at) at = at.nextElementSibling;
    else container.insertBefore(el, at);
  }
  while (at) {
    const next = at.nextElementSibling;
    at.remove();
    at = next;
  }
}
