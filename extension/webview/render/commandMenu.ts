/**
 * The composer's `/` completion: while the message is `/` and part of a
 * name, the session's slash commands (commands/list) are offered under the
 * box — name, argument hint, description, where the command comes from.
 * Arrow keys move, Tab or Enter takes one (`/name ` in the box, ready for
 * its arguments), Escape closes the list without cancelling the turn. The
 * daemon expands the command when the text is sent as typed.
 */
import type { CommandInfo } from '@arbor/protocol';
import { commandCompletions } from '@arbor/protocol/client/view';
import { h } from './dom.js';

const MAX_SHOWN = 12;

export class CommandMenu {
  readonly el: HTMLElement;
  #shown: CommandInfo[] = [];
  #active = 0;
  /** Escape closed the list for this text; it opens again once the text changes. */
  #dismissedFor: string | undefined;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly commands: () => readonly CommandInfo[],
  ) {
    this.el = h('ul', {
      className: 'command-menu',
      attrs: { id: 'command-menu', role: 'listbox', 'aria-label': 'Commands' },
    });
    this.el.hidden = true;
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-controls', 'command-menu');
    input.addEventListener('input', () => this.refresh());
    // Registered before the composer's own keys: an open list takes Enter and Escape.
    input.addEventListener('keydown', (event) => this.#onKey(event));
  }

  /** Shows what completes the box's text now (the list may also have changed). */
  refresh(): void {
    const text = this.input.value;
    if (text !== this.#dismissedFor) this.#dismissedFor = undefined;
    const shown =
      this.#dismissedFor === undefined
        ? commandCompletions(this.commands(), text).slice(0, MAX_SHOWN)
        : [];
    this.#shown = shown;
    this.#active = Math.min(this.#active, Math.max(0, shown.length - 1));
    this.#render();
  }

  get open(): boolean {
    return this.#shown.length > 0;
  }

  #onKey(event: KeyboardEvent): void {
    if (!this.open || event.isComposing) return;
    const step = event.key === 'ArrowDown' ? 1 : event.key === 'ArrowUp' ? -1 : 0;
    if (step !== 0) {
      this.#active = (this.#active + step + this.#shown.length) % this.#shown.length;
      this.#render();
    } else if (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey)) {
      this.#take(this.#shown[this.#active]!);
    } else if (event.key === 'Escape') {
      this.#dismissedFor = this.input.value;
      this.refresh();
    } else return;
    event.preventDefault();
    event.stopImmediatePropagation();
  }

  #take(command: CommandInfo): void {
    this.input.value = `/${command.name} `;
    this.input.setSelectionRange(this.input.value.length, this.input.value.length);
    // Tells the draft keeper and this list that the text changed.
    this.input.dispatchEvent(new Event('input', { bubbles: true }));
    this.input.focus();
  }

  #render(): void {
    this.el.hidden = !this.open;
    this.input.setAttribute('aria-expanded', String(this.open));
    if (!this.open) {
      this.input.removeAttribute('aria-activedescendant');
      this.el.replaceChildren();
      return;
    }
    this.el.replaceChildren(
      ...this.#shown.map((command, i) =>
        h(
          'li',
          {
            className: `command-option${i === this.#active ? ' active' : ''}`,
            attrs: {
              id: `command-option-${i}`,
              role: 'option',
              'aria-selected': String(i === this.#active),
              'data-command': command.name,
            },
            // mousedown, not click: the box keeps the focus.
            on: {
              mousedown: (event: Event) => {
                event.preventDefault();
                this.#take(command);
              },
            },
          },
          h('span', { className: 'command-name', text: `/${command.name}` }),
          command.argumentHint
            ? h('span', { className: 'command-hint', text: command.argumentHint })
            : null,
          command.description
            ? h('span', { className: 'command-description', text: command.description })
            : null,
          h('span', {
            className: 'badge',
            text: command.source === 'workspace' ? 'workspace' : 'yours',
          }),
        ),
      ),
    );
    this.input.setAttribute('aria-activedescendant', `command-option-${this.#active}`);
  }
}
