/**
 * A unified diff read into one change per file, by the `diff` package's
 * parser: which file each part creates, deletes, renames or modifies, named
 * relative to the workspace root (the `a/` and `b/` prefixes of git diffs
 * dropped, `/dev/null` meaning "no file").
 */
import { parsePatch, type StructuredPatch } from 'diff';

export type FileChange =
  | { kind: 'create'; path: string; patch: StructuredPatch }
  | { kind: 'delete'; path: string; patch: StructuredPatch }
  | { kind: 'modify'; path: string; patch: StructuredPatch }
  | { kind: 'rename'; from: string; path: string; patch: StructuredPatch };

/** The patch cannot be read; the message tells the model how to write it. */
export class PatchFormatError extends Error {
  override name = 'PatchFormatError';
}

const NO_FILE = '/dev/null';
const FORMAT_HINT =
  'give a unified diff: for each file `--- a/<path>` and `+++ b/<path>` (`/dev/null` for a created or deleted file), then its `@@ -<line>,<count> +<line>,<count> @@` hunks';

function withoutPrefix(name: string, prefix: 'a/' | 'b/', strip: boolean): string {
  return strip && name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** The file changes of a unified diff, in the order the patch gives them. */
export function readFileChanges(patch: string): FileChange[] {
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(patch);
  } catch (error) {
    throw new PatchFormatError(
      `the patch cannot be read: ${(error as Error).message}; ${FORMAT_HINT}`,
    );
  }
  const changes: FileChange[] = [];
  for (const part of parsed) {
    const oldName = part.oldFileName;
    const newName = part.newFileName;
    if (oldName === undefined && newName === undefined && part.hunks.length === 0) continue;
    if (oldName === undefined || newName === undefined)
      throw new PatchFormatError(`a hunk has no file header; ${FORMAT_HINT}`);
    if (part.isBinary)
      throw new PatchFormatError(
        `${newName}: binary changes cannot be applied; write the file instead`,
      );
    // git always prefixes; other tools do when both sides carry the prefixes.
    const strip =
      part.isGit === true ||
      ((oldName === NO_FILE || oldName.startsWith('a/')) &&
        (newName === NO_FILE || newName.startsWith('b/')));
    const from = withoutPrefix(oldName, 'a/', strip);
    const to = withoutPrefix(newName, 'b/', strip);
    if (from === NO_FILE && to === NO_FILE)
      throw new PatchFormatError(`a file part names /dev/null on both sides; ${FORMAT_HINT}`);
    if (from === NO_FILE || part.isCreate) changes.push({ kind: 'create', path: to, patch: part });
    else if (to === NO_FILE || part.isDelete)
      changes.push({ kind: 'delete', path: from, patch: part });
    else if (part.isRename) changes.push({ kind: 'rename', from, path: to, patch: part });
    else if (part.isCopy)
      throw new PatchFormatError(
        `${to}: copies are not supported; create the file with its whole content`,
      );
    else changes.push({ kind: 'modify', path: to, patch: part });
  }
  if (changes.length === 0) throw new PatchFormatError(`the patch changes no file; ${FORMAT_HINT}`);
  return changes;
}

/** Every path a change touches (a rename: both). */
export function pathsOf(change: FileChange): string[] {
  return change.kind === 'rename' ? [change.from, change.path] : [change.path];
}
