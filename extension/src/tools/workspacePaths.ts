/**
 * Editor tools may touch only files inside the open workspace folders. Pure
 * path logic (plus realpath for symlinks), so it is unit-tested without VS Code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export class OutsideWorkspaceError extends Error {
  override readonly name = 'OutsideWorkspaceError';
}

function inside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The longest existing ancestor, resolved through symlinks, with the rest appended. */
function realpathLoose(p: string): string {
  let current = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return p;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Resolves `requested` (relative to the first folder, or absolute) and checks
 * that it stays inside a workspace folder, also after following symlinks.
 */
export function resolveInWorkspace(requested: string, folders: readonly string[]): string {
  if (folders.length === 0) throw new OutsideWorkspaceError('No workspace folder is open.');
  if (typeof requested !== 'string' || requested.trim() === '' || requested.includes('\0')) {
    throw new OutsideWorkspaceError('A file path is required.');
  }
  const absolute = path.resolve(folders[0]!, requested);
  const root = folders.find((f) => inside(path.resolve(f), absolute));
  if (!root) throw new OutsideWorkspaceError(`${requested} is outside the workspace folders.`);
  const real = realpathLoose(absolute);
  if (!folders.some((f) => inside(realpathLoose(path.resolve(f)), real))) {
    throw new OutsideWorkspaceError(`${requested} leads outside the workspace folders.`);
  }
  return absolute;
}

/** Text edit arguments as the model sends them (apply_edit, write_file, edit_file shapes). */
export interface ProposedEdit {
  path: string;
  /** The new full content, computed from the current one. */
  apply(current: string): string;
}

/**
 * Reads an edit out of tool arguments: `{path, newText, oldText?}` (apply_edit),
 * `{path, content}` (whole-file writes), `{path, old_string, new_string}` (edits).
 * Undefined when the arguments describe no text edit.
 */
export function proposedEdit(args: unknown): ProposedEdit | undefined {
  if (!args || typeof args !== 'object') return undefined;
  const a = args as Record<string, unknown>;
  const file =
    typeof a['path'] === 'string'
      ? a['path']
      : typeof a['file'] === 'string'
        ? a['file']
        : undefined;
  if (!file) return undefined;
  // apply_edit's, Claude-style and the daemon's edit_file argument names.
  const oldText = str(a['oldText']) ?? str(a['old_string']) ?? str(a['old']);
  const newText = str(a['newText']) ?? str(a['new_string']) ?? str(a['new']) ?? str(a['content']);
  if (newText === undefined) return undefined;
  const replaceAll = a['replace_all'] === true;
  return {
    path: file,
    apply(current: string): string {
      if (oldText === undefined) return newText;
      const at = current.indexOf(oldText);
      if (at < 0) throw new Error(`The text to replace was not found in ${file}.`);
      if (replaceAll) return current.split(oldText).join(newText);
      if (current.indexOf(oldText, at + 1) >= 0) {
        throw new Error(`The text to replace occurs more than once in ${file}; give more context.`);
      }
      return current.slice(0, at) + newText + current.slice(at + oldText.length);
    },
  };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
