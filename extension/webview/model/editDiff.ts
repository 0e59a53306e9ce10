/**
 * What a write or edit call would change, read from its arguments alone (the
 * webview cannot read files): the lines it removes and adds, for the inline
 * diff of an approval and the `+5 −0` of a card header. The argument shapes
 * are those of apply_edit (`oldText`/`newText`), edit_file (`old`/`new`),
 * write_file (`content`) and apply_patch (`patch`, a unified diff).
 */

export interface DiffLine {
  kind: 'context' | 'added' | 'removed' | 'hunk';
  text: string;
}

export interface ProposedEdit {
  path: string | undefined;
  lines: DiffLine[];
  added: number;
  removed: number;
}

/** Unchanged lines kept around a replacement. */
const CONTEXT = 2;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Lines of a text, without the empty one after a final newline. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

export function lineCount(text: string): number {
  return splitLines(text).length;
}

export function editOf(args: Record<string, unknown>): ProposedEdit | undefined {
  const path = str(args['path']) ?? str(args['file']);
  const patch = str(args['patch']);
  if (patch !== undefined) return fromPatch(path, patch);
  const newText = str(args['newText']) ?? str(args['new']) ?? str(args['new_string']);
  const oldText = str(args['oldText']) ?? str(args['old']) ?? str(args['old_string']);
  if (newText !== undefined) return fromReplacement(path, oldText ?? '', newText);
  const content = str(args['content']);
  if (content !== undefined) return fromReplacement(path, '', content);
  return undefined;
}

/** The replaced text: what both sides share at the start and end stays as context. */
function fromReplacement(path: string | undefined, before: string, after: string): ProposedEdit {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const removed = a.slice(head, a.length - tail);
  const added = b.slice(head, b.length - tail);
  const lines: DiffLine[] = [
    ...a.slice(Math.max(0, head - CONTEXT), head).map((text) => context(text)),
    ...removed.map((text): DiffLine => ({ kind: 'removed', text })),
    ...added.map((text): DiffLine => ({ kind: 'added', text })),
    ...a.slice(a.length - tail, a.length - tail + CONTEXT).map((text) => context(text)),
  ];
  return { path, lines, added: added.length, removed: removed.length };
}

function fromPatch(path: string | undefined, patch: string): ProposedEdit {
  let added = 0;
  let removed = 0;
  const lines = splitLines(patch).map((line): DiffLine => {
    if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('@@'))
      return { kind: 'hunk', text: line };
    if (line.startsWith('+')) {
      added++;
      return { kind: 'added', text: line.slice(1) };
    }
    if (line.startsWith('-')) {
      removed++;
      return { kind: 'removed', text: line.slice(1) };
    }
    return context(line.startsWith(' ') ? line.slice(1) : line);
  });
  return { path, lines, added, removed };
}

function context(text: string): DiffLine {
  return { kind: 'context', text };
}
