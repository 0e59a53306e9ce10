/**
 * The permission mode as a segmented control (a radio group): one Tab stop,
 * arrow keys move and pick, as a native radio group does. A pick asks the
 * daemon; the control shows the daemon's mode until it confirms.
 */
import type { PermissionMode } from '@arbor/protocol';
import { h, setAttr } from './dom.js';

const MODES: { value: PermissionMode; label: string; title: string }[] = [
  { value: 'plan', label: 'Plan', title: 'Plan: only read tools run' },
  { value: 'default', label: 'Ask', title: 'Default: other tools ask first' },
  { value: 'auto', label: 'Auto', title: 'Auto: all tools run (except always-ask tools)' },
];

export class ModePicker {
  readonly el: HTMLElement;
  readonly #buttons: HTMLButtonElement[];
  #value: PermissionMode = 'default';
  #disabled = false;

  constructor(pick: (mode: PermissionMode) => void) {
    this.#buttons = MODES.map((mode) =>
      h('button', {
        className: 'mode-option',
        text: mode.label,
        attrs: { type: 'button', role: 'radio', 'data-mode': mode.value, title: mode.title },
        on: { click: () => this.#pick(mode.value, pick) },
      }),
    );
    this.el = h(
      'div',
      { className: 'mode-select', attrs: { role: 'radiogroup', 'aria-label': 'Permission mode' } },
      ...this.#buttons,
    );
    this.el.addEventListener('keydown', (event) => {
      const by =
        event.key === 'ArrowRight' || event.key === 'ArrowDown'
          ? 1
          : event.key === 'ArrowLeft' || event.key === 'ArrowUp'
            ? -1
            : 0;
      if (by === 0 || this.#disabled) return;
      event.preventDefault();
      const at = MODES.findIndex((m) => m.value === this.#value);
      const next = MODES[(at + by + MODES.length) % MODES.length]!;
      this.#buttons[MODES.indexOf(next)]!.focus();
      this.#pick(next.value, pick);
    });
    this.#sync();
  }

  /** The daemon's mode. */
  set value(mode: PermissionMode) {
    if (mode === this.#value) return;
    this.#value = mode;
    this.#sync();
  }

  set disabled(disabled: boolean) {
    if (disabled === this.#disabled) return;
    this.#disabled = disabled;
    this.#sync();
  }

  #pick(mode: PermissionMode, pick: (mode: PermissionMode) => void): void {
    if (mode !== this.#value && !this.#disabled) pick(mode);
  }

  #sync(): void {
    MODES.forEach((mode, i) => {
      const button = this.#buttons[i]!;
      const checked = mode.value === this.#value;
      setAttr(button, 'aria-checked', String(checked));
      button.tabIndex = checked ? 0 : -1;
      button.disabled = this.#disabled;
    });
  }
}
