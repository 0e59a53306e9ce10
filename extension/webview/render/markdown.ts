/**
 * Assistant markdown: `marked` turns it into HTML, DOMPurify removes anything
 * active (raw HTML from the model never runs), then code blocks get a copy
 * button. The result is a fragment the caller swaps in.
 */
import DOMPurify, { type Config } from 'dompurify';
import { Marked } from 'marked';
import { h, icon } from './dom.js';

const marked = new Marked({ gfm: true, breaks: false, async: false });

const PURIFY_CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  // No inline styles (the CSP forbids them anyway), no forms, no media that could load remotely.
  FORBID_TAGS: [
    'style',
    'form',
    'input',
    'button',
    'textarea',
    'select',
    'img',
    'video',
    'audio',
    'iframe',
  ],
  FORBID_ATTR: ['style', 'srcset'],
  RETURN_DOM_FRAGMENT: true,
};

export function renderMarkdown(text: string): DocumentFragment {
  const html = marked.parse(text) as string;
  const fragment = DOMPurify.sanitize(html, PURIFY_CONFIG);
  for (const pre of Array.from(fragment.querySelectorAll('pre'))) {
    const code = pre.querySelector('code');
    const language = /language-([\w+-]+)/.exec(code?.className ?? '')?.[1];
    const wrapper = h(
      'div',
      { className: 'code-block' },
      h(
        'div',
        { className: 'code-toolbar' },
        h('span', { className: 'code-lang', text: language ?? '' }),
        h(
          'button',
          {
            className: 'icon-button copy-code',
            attrs: { type: 'button', title: 'Copy code', 'aria-label': 'Copy code' },
          },
          icon('copy'),
        ),
      ),
    );
    pre.replaceWith(wrapper);
    // A scrolling block is a Tab stop in Chromium unless told otherwise; the copy button is the stop.
    pre.setAttribute('tabindex', '-1');
    wrapper.append(pre);
  }
  for (const a of Array.from(fragment.querySelectorAll('a'))) {
    a.setAttribute('rel', 'noreferrer noopener');
  }
  return fragment;
}
