/** An edit's lines as a small rendered diff: removed and added lines marked, long ones cut. */
import type { ProposedEdit } from '../model/editDiff.js';
import { h } from './dom.js';

const MAX_LINES = 200;
const MARK = { context: ' ', added: '+', removed: '−', hunk: '' } as const;

export function diffView(edit: ProposedEdit): HTMLElement {
  const shown = edit.lines.slice(0, MAX_LINES);
  const rest = edit.lines.length - shown.length;
  return h(
    'div',
    {
      className: 'diff',
      attrs: {
        // Scrolls, yet is no Tab stop: the approval's buttons are.
        tabindex: '-1',
        role: 'group',
        'aria-label': `Proposed change: ${edit.added} lines added, ${edit.removed} removed`,
      },
    },
    ...shown.map((line) =>
      h(
        'div',
        { className: `diff-line ${line.kind}` },
        h('span', { className: 'diff-mark', text: MARK[line.kind] }),
        h('span', { className: 'diff-text', text: line.text }),
      ),
    ),
    rest > 0 ? h('div', { className: 'diff-more', text: `… ${rest} more lines` }) : null,
  );
}
