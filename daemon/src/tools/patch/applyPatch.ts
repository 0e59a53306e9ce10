/**
 * apply_patch (category write): a unified diff applied to the workspace all
 * or nothing. Every file is resolved and confined like write_file's, checked
 * by the stale-write guard, and patched in memory with the `diff` package
 * first; only when every hunk of every file applies is anything written,
 * and a failure while writing puts back what was already written. Texts are
 * read and written through the session's I/O (workspaceIo.ts: the disk
 * through safeFs.ts, or an editor's buffers); a removal (delete, the old name
 * of a rename) always goes to the disk, ACP has no request for it. The
 * approval shows the patch itself (the call's argument).
 */
import { applyPatch as applyHunks, type StructuredPatch } from 'diff';
import { statSync } from 'node:fs';
import { z } from 'zod';
import { sandboxSettings } from '../sandbox/sandboxSettings.js';
import { defineTool, type Tool, type ToolOutput } from '../tool.js';
import {
  isProtectedPath,
  resolveInWorkspace,
  WorkspaceEscapeError,
} from '../workspace/confinement.js';
import { FILE_WRITE_LOCK, guarded } from '../workspace/fileTools.js';
import { removeFileConfined } from '../workspace/safeFs.js';
import type { Workspace } from '../workspace/workspace.js';
import { WorkspaceIoError, type ConfinedFile } from '../workspace/workspaceIo.js';
import { pathsOf, PatchFormatError, readFileChanges, type FileChange } from './filePatches.js';
import { describeFailedHunks } from './hunkReport.js';

export const APPLY_PATCH = 'apply_patch';

export const ApplyPatchArgs = z.object({
  patch: z
    .string()
    .min(1)
    .describe(
      'A unified diff: `--- a/<path>`, `+++ b/<path>`, then `@@ … @@` hunks, for each file',
    ),
});
export type ApplyPatchArgs = z.infer<typeof ApplyPatchArgs>;

/** A file as the patch leaves it; `undefined` content: the file does not exist. */
interface FileState {
  file: ConfinedFile;
  display: string;
  before: string | undefined;
  after: string | undefined;
}

class FileRefusal extends Error {}

/** What the model wrote the patch against: the workspace's files, read once, then patched in memory. */
class PatchedFiles {
  readonly byReal = new Map<string, FileState>();

  constructor(
    private readonly workspace: Workspace,
    private readonly signal: AbortSignal,
  ) {}

  /** The file's state, read the first time; FileRefusal (or WorkspaceIoError) when it may not be patched. */
  async load(path: string): Promise<FileState> {
    const resolved = resolveInWorkspace(this.workspace.root, path);
    const known = this.byReal.get(resolved.real);
    if (known) return known;
    const file: ConfinedFile = { root: this.workspace.root, real: resolved.real, requested: path };
    const { files } = this.workspace.io;
    let content: string | undefined;
    if (resolved.exists) {
      if (statSync(resolved.real).isDirectory()) throw new FileRefusal(`${path} is a directory`);
      const stale = await files.staleReason(file, this.signal);
      if (stale !== undefined) throw new FileRefusal(`refused: ${stale}`);
      content = (await files.readText(file, this.signal)).text;
    }
    // Loaded twice in one patch (a rename's both sides): the first load is kept.
    const again = this.byReal.get(resolved.real);
    if (again) return again;
    const state: FileState = { file, display: path, before: content, after: content };
    this.byReal.set(resolved.real, state);
    return state;
  }
}

function patched(path: string, source: string, patch: StructuredPatch): string {
  const result = patch.hunks.length === 0 ? source : applyHunks(source, patch);
  if (result === false) throw new FileRefusal(describeFailedHunks(path, source, patch));
  return result;
}

function lineCounts(patch: StructuredPatch): string {
  const lines = patch.hunks.flatMap((hunk) => hunk.lines);
  const added = lines.filter((line) => line.startsWith('+')).length;
  const removed = lines.filter((line) => line.startsWith('-')).length;
  return `+${added} -${removed}`;
}

/** Applies one file's change in memory; returns its summary line. */
async function applyChange(files: PatchedFiles, change: FileChange): Promise<string> {
  const target = await files.load(change.path);
  switch (change.kind) {
    case 'create':
      if (target.after !== undefined)
        throw new FileRefusal(
          `${change.path} already exists; a patch that creates a file (--- /dev/null) needs a new path`,
        );
      target.after = patched(change.path, '', change.patch);
      return `created ${change.path} (${lineCounts(change.patch)})`;
    case 'modify':
      if (target.after === undefined)
        throw new FileRefusal(
          `${change.path} does not exist; a patch creates a file with --- /dev/null`,
        );
      target.after = patched(change.path, target.after, change.patch);
      return `modified ${change.path} (${lineCounts(change.patch)})`;
    case 'delete':
      if (target.after === undefined) throw new FileRefusal(`${change.path} does not exist`);
      if (patched(change.path, target.after, change.patch) !== '')
        throw new FileRefusal(
          `${change.path}: the patch deletes the file, but its hunks do not remove all of its content`,
        );
      target.after = undefined;
      return `deleted ${change.path}`;
    case 'rename': {
      const source = await files.load(change.from);
      if (source.after === undefined) throw new FileRefusal(`${change.from} does not exist`);
      if (target.after !== undefined)
        throw new FileRefusal(`${change.path} already exists; a rename needs a new path`);
      target.after = patched(change.from, source.after, change.patch);
      source.after = undefined;
      return `renamed ${change.from} to ${change.path} (${lineCounts(change.patch)})`;
    }
  }
}

/** Writes every changed file; on a failure, puts back those already written, then rethrows. */
async function commit(
  workspace: Workspace,
  files: PatchedFiles,
  signal: AbortSignal,
): Promise<void> {
  const io = workspace.io.files;
  const undo: (() => Promise<void>)[] = [];
  const put = async (
    state: FileState,
    content: string | undefined,
    until: AbortSignal,
  ): Promise<void> => {
    if (content === undefined)
      removeFileConfined(workspace.root, state.file.real, state.file.requested);
    else await io.writeText(state.file, content, until);
  };
  // Putting back is not cut short by the turn's cancellation: what was written must be undone.
  const uncancelled = new AbortController().signal;
  try {
    for (const state of files.byReal.values()) {
      if (state.after === state.before) continue;
      await put(state, state.after, signal);
      undo.push(() => put(state, state.before, uncancelled));
      if (state.after === undefined) io.forget(state.file);
      else io.saw(state.file, state.after);
    }
  } catch (error) {
    for (const step of undo.reverse()) {
      try {
        await step();
      } catch {
        // Best effort: the error below is what the model gets.
      }
    }
    throw error;
  }
}

export function applyPatchTool(workspace: Workspace): Tool {
  return defineTool<ApplyPatchArgs>({
    name: APPLY_PATCH,
    description:
      'Applies a unified diff to files of the workspace, all or nothing: several files, several hunks each. ' +
      'Use it for related edits across files or many edits in one file; edit_file for one small replacement, write_file for a whole new content. ' +
      'Hunks must match the files exactly (context lines included): read the files first. `--- /dev/null` creates a file, `+++ /dev/null` deletes one, git rename headers rename. ' +
      'When any hunk does not apply nothing is written, and the result shows each failing hunk with the lines found there. Refused when a file changed on disk since you last read it.',
    input: ApplyPatchArgs,
    category: 'write',
    parallelSafe: false,
    lock: FILE_WRITE_LOCK,
    // The gate asks even in auto when a file is protected: name such a file if there is one.
    targetPath: ({ patch }) => {
      let paths: string[];
      try {
        paths = readFileChanges(patch).flatMap(pathsOf);
      } catch {
        return undefined; // the tool refuses the patch anyway
      }
      const { dataDir } = sandboxSettings();
      return paths.find((path) => isProtectedPath(workspace.root, path, dataDir)) ?? paths[0];
    },
    execute: ({ patch }, ctx) =>
      guarded(async (): Promise<ToolOutput> => {
        let changes: FileChange[];
        try {
          changes = readFileChanges(patch);
        } catch (error) {
          if (error instanceof PatchFormatError) return { content: error.message, isError: true };
          throw error;
        }
        const files = new PatchedFiles(workspace, ctx.signal);
        const done: string[] = [];
        const problems: string[] = [];
        for (const change of changes) {
          try {
            done.push(await applyChange(files, change));
          } catch (error) {
            if (!(
              error instanceof FileRefusal ||
              error instanceof WorkspaceEscapeError ||
              error instanceof WorkspaceIoError
            ))
              throw error;
            problems.push(error.message);
          }
        }
        if (problems.length > 0)
          return {
            content: `The patch was not applied; nothing was changed.\n${problems.join('\n')}`,
            isError: true,
          };
        await commit(workspace, files, ctx.signal);
        return `Applied the patch to ${changes.length} file(s):\n${done.map((line) => `- ${line}`).join('\n')}`;
      }),
  }) as Tool;
}
