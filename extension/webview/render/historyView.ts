/**
 * The chat history: a search box filtering by title, and one line per chat
 * with when it was last used. Typing keeps the box (only the list is redrawn).
 */
import type { SessionSummary } from '../../src/shared/messages.js';
import { formatWhen } from '../model/format.js';
import { h, icon } from './dom.js';

export interface HistoryActions {
  open(sessionId: string): void;
  remove(sessionId: string, title: string): void;
}

export class HistoryView {
  readonly el: HTMLElement;
  readonly #search: HTMLInputElement;
  readonly #list: HTMLElement;
  #sessions: readonly SessionSummary[] = [];
  #current: string | undefined;

  constructor(private readonly actions: HistoryActions) {
    this.#search = h('input', {
      className: 'history-search',
      attrs: { type: 'search', placeholder: 'Search chats', 'aria-label': 'Search chats' },
    });
    this.#search.addEventListener('input', () => this.#draw());
    this.#list = h('div', { className: 'history-results' });
    this.el = h(
      'nav',
      { className: 'history', attrs: { id: 'history', 'aria-label': 'Chat history' } },
      this.#search,
      this.#list,
    );
    this.el.hidden = true;
  }

  update(sessions: readonly SessionSummary[], current: string | undefined): void {
    this.#sessions = sessions;
    this.#current = current;
    this.#draw();
  }

  focusSearch(): void {
    this.#search.focus();
  }

  #draw(): void {
    const query = this.#search.value.trim().toLowerCase();
    const shown = query
      ? this.#sessions.filter((s) => (s.title || 'Untitled chat').toLowerCase().includes(query))
      : this.#sessions;
    if (shown.length === 0) {
      this.#list.replaceChildren(
        h('div', { className: 'empty', text: query ? 'No chat matches.' : 'No chats yet.' }),
      );
      return;
    }
    this.#list.replaceChildren(
      h(
        'ul',
        { className: 'history-list' },
        ...shown.map((s) => {
          const current = s.sessionId === this.#current;
          const when = formatWhen(s.updatedAt);
          return h(
            'li',
            {
              className: `history-item${current ? ' current' : ''}`,
              attrs: { 'data-session-id': s.sessionId },
            },
            h(
              'button',
              {
                className: 'history-open',
                attrs: {
                  type: 'button',
                  'aria-current': current ? 'true' : undefined,
                  title: s.title || 'Untitled chat',
                },
                on: { click: () => this.actions.open(s.sessionId) },
              },
              h('span', { className: 'history-title', text: s.title || 'Untitled chat' }),
              h('time', {
                className: 'history-date',
                text: when,
                attrs: { datetime: s.updatedAt },
              }),
            ),
            h(
              'button',
              {
                className: 'icon-button history-delete',
                attrs: {
                  type: 'button',
                  title: 'Delete chat',
                  'aria-label': `Delete chat ${s.title}`,
                },
                on: { click: () => this.actions.remove(s.sessionId, s.title) },
              },
              icon('trash'),
            ),
          );
        }),
      ),
    );
  }
}
