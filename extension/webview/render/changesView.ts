/**
 * A finished turn's "Changed files" (its turn node's `changes`, checkpoints.md):
 * each file with its status and +added −removed, opening its diff on click;
 * "View all changes"; and "Restore to before this turn" where this window may
 * restore. Paths are the daemon's text: they are only ever set as text.
 */
import type { FileChangeStatus, TurnChanges } from '@arbor/protocol';
import { h, icon } from './dom.js';

export interface ChangesActions {
  showDiff(path?: string): void;
  restore(): void;
}

export interface ChangesState {
  changes: TurnChanges | undefined;
  /** checkpoint/diff is available. */
  canDiff: boolean;
  /** checkpoint/restore is available here (capability and controller). */
  canRestore: boolean;
  /** A turn runs: restoring waits (the daemon would answer -33005). */
  running: boolean;
  restored: boolean;
}

const STATUS_LETTER: Record<FileChangeStatus, string> = {
  added: 'A',
  modified: 'M',
  deleted: 'D',
};

export class ChangesView {
  readonly el: HTMLElement;
  #drawn = '';

  constructor(private readonly actions: ChangesActions) {
    this.el = h('section', { className: 'turn-changes', attrs: { 'aria-label': 'Changed files' } });
    this.el.hidden = true;
  }

  update(state: ChangesState): void {
    // Upserts of a finished turn repeat the same changes: redraw only on a difference.
    const key = JSON.stringify(state);
    if (key === this.#drawn) return;
    this.#drawn = key;
    const { changes } = state;
    this.el.hidden = !changes;
    this.el.classList.toggle('restored', state.restored);
    if (!changes) {
      this.el.replaceChildren();
      return;
    }
    const count = changes.files.length + (changes.omitted ?? 0);
    const restorable = changes.restorable && state.canRestore && !state.restored;
    const parts: (HTMLElement | null)[] = [
      h(
        'div',
        { className: 'changes-header' },
        icon('diff'),
        h('span', {
          className: 'changes-title',
          text: `Changed ${count} file${count === 1 ? '' : 's'}`,
        }),
        state.restored
          ? h('span', {
              className: 'badge changes-restored',
              text: 'restored',
              attrs: { title: 'These changes were put back (Restore to before this turn)' },
            })
          : null,
        h('span', { className: 'spacer' }),
        state.canDiff
          ? h('button', {
              className: 'button link changes-view-all',
              text: 'View all changes',
              attrs: { type: 'button' },
              on: { click: () => this.actions.showDiff() },
            })
          : null,
      ),
      h(
        'ul',
        { className: 'changes-list' },
        ...changes.files.map((file) =>
          h(
            'li',
            {
              className: 'change',
              attrs: { 'data-status': file.status, 'data-path': file.path },
            },
            h(
              'button',
              {
                className: 'change-open',
                attrs: {
                  type: 'button',
                  title: state.canDiff ? `Show the diff of ${file.path}` : file.path,
                  'aria-label': `${file.status} ${file.path}`,
                  disabled: state.canDiff ? undefined : '',
                },
                on: { click: () => this.actions.showDiff(file.path) },
              },
              h('span', {
                className: 'change-status',
                text: STATUS_LETTER[file.status],
                attrs: { 'aria-hidden': 'true' },
              }),
              h('span', { className: 'change-path', text: file.path }),
            ),
            file.binary
              ? h('span', { className: 'change-counts', text: 'binary' })
              : h(
                  'span',
                  { className: 'change-counts' },
                  h('span', { className: 'change-added', text: `+${file.added}` }),
                  ' ',
                  h('span', { className: 'change-removed', text: `−${file.removed}` }),
                ),
          ),
        ),
      ),
      changes.omitted
        ? h('div', {
            className: 'changes-omitted',
            text: `and ${changes.omitted} more file${changes.omitted === 1 ? '' : 's'}`,
          })
        : null,
      restorable
        ? h(
            'div',
            { className: 'changes-actions' },
            h(
              'button',
              {
                className: 'button secondary changes-restore',
                attrs: {
                  type: 'button',
                  title: state.running
                    ? 'Wait for the running turn to end'
                    : 'Put the files this and later turns changed back as they were before this turn',
                  disabled: state.running ? '' : undefined,
                },
                on: { click: () => this.actions.restore() },
              },
              icon('discard'),
              h('span', { text: 'Restore to before this turn' }),
            ),
          )
        : null,
    ];
    this.el.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  }
}
