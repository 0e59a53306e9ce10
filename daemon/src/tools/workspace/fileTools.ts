/**
 * File tools of the workspace: read_file, list_dir, glob, grep (category
 * read) and write_file, edit_file (category write). Every path is resolved
 * and confined at call time (confinement.ts); tools touch the disk only
 * through safeFs.ts, which opens exactly the resolved real path or refuses.
 * Writes go through the stale-write guard. read_file, write_file and
 * edit_file read and write a file's text through the session's I/O
 * (workspaceIo.ts: the disk, or an editor's buffers), always after confining
 * the path; the searches (glob, grep, list_dir) read the disk.
 */
import { statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool, type ToolOutput } from '../tool.js';
import { realRoot, resolveInWorkspace, WorkspaceEscapeError } from './confinement.js';
import { IgnoreStack, globToRegExp } from './pathPatterns.js';
import { listDirectory, withFile } from './safeFs.js';
import type { Workspace } from './workspace.js';
import { WorkspaceIoError, type ConfinedFile } from './workspaceIo.js';

/** Largest file read_file opens at all. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Most text read_file returns in one call; more needs offset/limit. */
export const MAX_READ_BYTES = 256 * 1024;
export const MAX_LISTED = 1000;
export const MAX_GREP_MATCHES_DEFAULT = 200;
/** Files larger than this are skipped by grep. */
const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
/** Stops a search in an enormous tree. */
const MAX_WALKED = 100_000;
/** Calls that change files run one at a time, in the order the model emitted them. */
export const FILE_WRITE_LOCK = 'workspace-files';

const error = (content: string): { content: string; isError: true } => ({
  content,
  isError: true,
});

/** Confinement and file-system failures as results the model can act on. */
export async function guarded(run: () => ToolOutput | Promise<ToolOutput>): Promise<ToolOutput> {
  try {
    return await run();
  } catch (caught) {
    if (caught instanceof WorkspaceEscapeError || caught instanceof WorkspaceIoError)
      return error(caught.message);
    const e = caught as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') return error(`not found: ${e.path ?? ''}`.trim());
    if (e.code === 'EISDIR') return error('that path is a directory');
    if (e.code === 'ENOTDIR' || e.code === 'EEXIST')
      return error('a component of that path is a file, not a directory');
    if (e.code === 'EACCES' || e.code === 'EPERM')
      return error('permission denied by the file system');
    // Anything else the disk says (a race can produce odd ones) is a result, never a thrown turn.
    if (typeof e.code === 'string') return error(`file system error: ${e.code}`);
    throw caught;
  }
}

export function looksBinary(content: Buffer): boolean {
  return content.subarray(0, 8192).includes(0);
}

/**
 * Files under `start` (relative to the root), skipping .git and, unless
 * asked, ignored paths. Each directory is listed through a verified
 * descriptor, so one swapped for a link mid-walk is skipped, never followed.
 */
export function* walkFiles(
  root: string,
  rootReal: string,
  start: string,
  options: {
    includeIgnored: boolean;
    /** Told each directory as it is listed (the search index watches them). */
    onDirectory?: (dir: string) => void;
  },
): Generator<string> {
  let walked = 0;
  const stack: { dir: string; ignore: IgnoreStack }[] = [];
  let base = new IgnoreStack();
  if (!options.includeIgnored) {
    // Rules of the directories above `start` apply too.
    const parts = start === '' ? [] : start.split('/');
    base = base.enter(rootReal, '');
    for (let i = 1; i <= parts.length; i++)
      base = base.enter(rootReal, parts.slice(0, i).join('/'));
  }
  stack.push({ dir: start, ignore: base });
  while (stack.length > 0) {
    const { dir, ignore } = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = listDirectory(root, join(rootReal, dir), dir);
    } catch {
      continue;
    }
    options.onDirectory?.(dir);
    entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    const files: string[] = [];
    for (const entry of entries) {
      if (++walked > MAX_WALKED) return;
      const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.name === '.git') continue;
      // Symbolic links are not followed: a search never leaves the workspace.
      if (entry.isDirectory()) {
        if (!options.includeIgnored && (entry.name === 'node_modules' || ignore.ignores(rel, true)))
          continue;
        stack.push({
          dir: rel,
          ignore: options.includeIgnored ? ignore : ignore.enter(rootReal, rel),
        });
      } else if (entry.isFile()) {
        if (!options.includeIgnored && ignore.ignores(rel, false)) continue;
        files.push(rel);
      }
    }
    for (const file of files.reverse()) yield file;
  }
}

function relativeStart(workspace: Workspace, path: string): string {
  const resolved = resolveInWorkspace(workspace.root, path);
  return resolved.relative.split(/[\\/]/).filter(Boolean).join('/');
}

export function readFileTool(workspace: Workspace): Tool {
  return defineTool({
    name: 'read_file',
    description:
      'Reads a text file of the workspace. Paths are relative to the workspace root. ' +
      `Large files: pass offset (first line, 1-based) and limit (number of lines); at most ${MAX_READ_BYTES} bytes are returned per call.`,
    input: z.object({
      path: z.string().min(1),
      offset: z.number().int().min(1).optional().describe('First line to return (1-based)'),
      limit: z.number().int().min(1).optional().describe('Number of lines to return'),
    }),
    category: 'read',
    execute: ({ path, offset, limit }, ctx) =>
      guarded(async () => {
        const resolved = resolveInWorkspace(workspace.root, path);
        const file: ConfinedFile = { root: workspace.root, real: resolved.real, requested: path };
        const {
          text: content,
          bytes: raw,
          stats,
        } = await workspace.io.files.readText(file, ctx.signal);
        // The bytes when there are: a file that is not valid UTF-8 hashes as on disk.
        workspace.io.files.saw(file, raw ?? content, stats);
        const lines = content.split('\n');
        const first = (offset ?? 1) - 1;
        if (offset !== undefined && first >= lines.length)
          return error(`${path} has ${lines.length} lines; offset ${offset} is past the end`);
        const wanted = lines.slice(first, limit === undefined ? undefined : first + limit);
        let bytes = 0;
        let kept = 0;
        for (const line of wanted) {
          const size = Buffer.byteLength(line, 'utf8') + 1;
          if (bytes + size > MAX_READ_BYTES) break;
          bytes += size;
          kept += 1;
        }
        const text = wanted.slice(0, kept).join('\n');
        const last = first + kept;
        if (first === 0 && last >= lines.length) return text;
        return `${text}\n[lines ${first + 1}-${last} of ${lines.length}; pass offset and limit for other lines]`;
      }),
  }) as Tool;
}

export function listDirTool(workspace: Workspace): Tool {
  return defineTool({
    name: 'list_dir',
    description:
      'Lists a directory of the workspace: directories end with "/", symbolic links with "@".',
    input: z.object({ path: z.string().min(1).default('.') }),
    category: 'read',
    execute: ({ path }) =>
      guarded(() => {
        const resolved = resolveInWorkspace(workspace.root, path);
        const entries = listDirectory(workspace.root, resolved.real, path)
          .map((e) => (e.isDirectory() ? `${e.name}/` : e.isSymbolicLink() ? `${e.name}@` : e.name))
          .sort();
        const shown = entries.slice(0, MAX_LISTED);
        const more = entries.length - shown.length;
        if (entries.length === 0) return '(empty directory)';
        return shown.join('\n') + (more > 0 ? `\n[… ${more} more entries]` : '');
      }),
  }) as Tool;
}

export function globTool(workspace: Workspace): Tool {
  return defineTool({
    name: 'glob',
    description:
      'Finds files by glob pattern relative to the workspace root (or `path`): `*` within a directory, `**` across directories, `?`, `[abc]`, `{a,b}`. ' +
      'Skips .git, node_modules and .gitignored files unless include_ignored is true.',
    input: z.object({
      pattern: z.string().min(1),
      path: z.string().min(1).default('.'),
      include_ignored: z.boolean().default(false),
    }),
    category: 'read',
    execute: ({ pattern, path, include_ignored }) =>
      guarded(() => {
        const start = relativeStart(workspace, path);
        const regex = globToRegExp(pattern);
        const found: string[] = [];
        for (const file of walkFiles(workspace.root, realRoot(workspace.root), start, {
          includeIgnored: include_ignored,
        })) {
          const rel = start === '' ? file : file.slice(start.length + 1);
          if (regex.test(rel)) found.push(file);
          if (found.length > MAX_LISTED) break;
        }
        if (found.length === 0) return 'No files match.';
        const shown = found.slice(0, MAX_LISTED);
        return (
          shown.join('\n') +
          (found.length > MAX_LISTED ? '\n[… more files match; narrow the pattern]' : '')
        );
      }),
  }) as Tool;
}

export function grepTool(workspace: Workspace): Tool {
  return defineTool({
    name: 'grep',
    description:
      'Searches file contents with a regular expression (JavaScript syntax). Output lines: `file:line:text`, context lines `file-line-text`. ' +
      'Skips .git, node_modules, .gitignored and binary files unless include_ignored is true.',
    input: z.object({
      pattern: z.string().min(1),
      path: z.string().min(1).default('.'),
      include: z
        .string()
        .min(1)
        .optional()
        .describe('Glob of files to search, e.g. "*.ts" or "src/**/*.ts"'),
      context: z
        .number()
        .int()
        .min(0)
        .max(20)
        .default(0)
        .describe('Lines of context before and after'),
      ignore_case: z.boolean().default(false),
      include_ignored: z.boolean().default(false),
      max_matches: z.number().int().min(1).max(2000).default(MAX_GREP_MATCHES_DEFAULT),
    }),
    category: 'read',
    execute: (args) =>
      guarded(() => {
        let regex: RegExp;
        try {
          regex = new RegExp(args.pattern, args.ignore_case ? 'i' : '');
        } catch (e) {
          return error(`invalid regular expression: ${(e as Error).message}`);
        }
        const include =
          args.include === undefined
            ? undefined
            : globToRegExp(args.include, { anchored: args.include.includes('/') });
        const rootReal = realRoot(workspace.root);
        const start = relativeStart(workspace, args.path);
        const out: string[] = [];
        let matches = 0;
        let truncated = false;
        search: for (const file of walkFiles(workspace.root, rootReal, start, {
          includeIgnored: args.include_ignored,
        })) {
          if (include && !include.test(file)) continue;
          let content: Buffer | undefined;
          try {
            content = withFile(workspace.root, join(rootReal, file), file, (f) =>
              f.stats.isFile() && f.stats.size <= MAX_GREP_FILE_BYTES ? f.read() : undefined,
            );
          } catch {
            continue;
          }
          if (content === undefined || looksBinary(content)) continue;
          const lines = content.toString('utf8').split('\n');
          if (lines[lines.length - 1] === '') lines.pop(); // the final newline ends a line, it opens none
          let lastPrinted = -1;
          for (let i = 0; i < lines.length; i++) {
            if (!regex.test(lines[i]!)) continue;
            if (matches >= args.max_matches) {
              truncated = true;
              break search;
            }
            matches += 1;
            const from = Math.max(0, i - args.context, lastPrinted + 1);
            if (lastPrinted >= 0 && from > lastPrinted + 1 && args.context > 0) out.push('--');
            for (let j = from; j <= Math.min(lines.length - 1, i + args.context); j++) {
              if (j <= lastPrinted) continue;
              out.push(
                `${file}${j === i || regex.test(lines[j]!) ? ':' : '-'}${j + 1}${j === i || regex.test(lines[j]!) ? ':' : '-'}${lines[j]}`,
              );
              lastPrinted = j;
            }
          }
        }
        if (matches === 0) return 'No matches.';
        return out.join('\n') + (truncated ? `\n[stopped after ${args.max_matches} matches]` : '');
      }),
  }) as Tool;
}

export function writeFileTool(workspace: Workspace): Tool {
  return defineTool({
    name: 'write_file',
    description:
      'Creates or overwrites a file of the workspace with the given content (parent directories are created). ' +
      'Refused when the file changed on disk since you last read it.',
    input: z.object({ path: z.string().min(1), content: z.string() }),
    category: 'write',
    parallelSafe: false,
    lock: FILE_WRITE_LOCK,
    targetPath: ({ path }) => path,
    execute: ({ path, content }, ctx) =>
      guarded(async () => {
        const resolved = resolveInWorkspace(workspace.root, path);
        if (resolved.exists && statSync(resolved.real).isDirectory())
          return error(`${path} is a directory`);
        const file: ConfinedFile = { root: workspace.root, real: resolved.real, requested: path };
        const { files } = workspace.io;
        const stale = await files.staleReason(file, ctx.signal);
        if (stale !== undefined) return error(`refused: ${stale}`);
        const { created } = await files.writeText(file, content, ctx.signal);
        files.saw(file, content);
        return `${created ? 'Created' : 'Wrote'} ${path} (${Buffer.byteLength(content, 'utf8')} bytes).`;
      }),
  }) as Tool;
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
    count++;
  return count;
}

export function editFileTool(workspace: Workspace): Tool {
  return defineTool({
    name: 'edit_file',
    description:
      'Replaces an exact string in a file of the workspace. `old` must occur exactly once (include enough surrounding text), ' +
      'or pass replace_all to replace every occurrence. Refused when the file changed on disk since you last read it.',
    input: z.object({
      path: z.string().min(1),
      old: z.string().min(1),
      new: z.string(),
      replace_all: z.boolean().default(false),
    }),
    category: 'write',
    parallelSafe: false,
    lock: FILE_WRITE_LOCK,
    targetPath: ({ path }) => path,
    execute: (args, ctx) =>
      guarded(async () => {
        const resolved = resolveInWorkspace(workspace.root, args.path);
        if (!resolved.exists)
          return error(`${args.path} does not exist; use write_file to create it`);
        const file: ConfinedFile = {
          root: workspace.root,
          real: resolved.real,
          requested: args.path,
        };
        const { files } = workspace.io;
        const stale = await files.staleReason(file, ctx.signal);
        if (stale !== undefined) return error(`refused: ${stale}`);
        const { text } = await files.readText(file, ctx.signal);
        const count = countOccurrences(text, args.old);
        if (count === 0)
          return error(
            `the text to replace was not found in ${args.path}; read the file and copy it exactly`,
          );
        if (count > 1 && !args.replace_all)
          return error(
            `the text to replace occurs ${count} times in ${args.path}; include more surrounding text so it is unique, or pass replace_all`,
          );
        const next = args.replace_all
          ? text.split(args.old).join(args.new)
          : text.replace(args.old, () => args.new);
        await files.writeText(file, next, ctx.signal);
        files.saw(file, next);
        return `Edited ${args.path}: ${args.replace_all ? count : 1} replacement(s).`;
      }),
  }) as Tool;
}
