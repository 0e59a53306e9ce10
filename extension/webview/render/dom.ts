/** A typed element builder: attributes, properties and children in one call. */
export type Child = Node | string | null | undefined | false;

export interface ElementOptions {
  className?: string;
  text?: string;
  attrs?: Record<string, string | undefined>;
  on?: Partial<Record<keyof HTMLElementEventMap, (event: Event) => void>>;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: ElementOptions = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (options.className) el.className = options.className;
  if (options.text !== undefined) el.textContent = options.text;
  if (options.attrs) {
    for (const [name, value] of Object.entries(options.attrs)) {
      if (value !== undefined) el.setAttribute(name, value);
    }
  }
  if (options.on) {
    for (const [name, listener] of Object.entries(options.on)) {
      if (listener) el.addEventListener(name, listener);
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

/** A codicon; decorative unless a label is given. */
export function icon(name: string, label?: string): HTMLSpanElement {
  const el = h('span', {
    className: `codicon codicon-${name}`,
    attrs: label ? { role: 'img', 'aria-label': label } : { 'aria-hidden': 'true' },
  });
  return el;
}

/** Sets text only when it changed (cheap no-op for repeated upserts). */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

export function setAttr(el: Element, name: string, value: string | undefined): void {
  if (value === undefined) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== value) {
    el.setAttribute(name, value);
  }
}
