/**
 * search_code (category read): ranked search of the workspace's code through
 * its index (workspaceIndex.ts). Where grep reads every file at each call,
 * this answers from the index, so it stays fast on large repositories; grep
 * remains the tool for regular expressions and for every exact occurrence.
 */
import { z } from 'zod';
import { sandboxSettings } from '../sandbox/sandboxSettings.js';
import { defineTool, type Tool } from '../tool.js';
import { resolveInWorkspace } from '../workspace/confinement.js';
import { guarded } from '../workspace/fileTools.js';
import { globToRegExp } from '../workspace/pathPatterns.js';
import type { Workspace } from '../workspace/workspace.js';
import { QueryTerms, type RankedFile } from './relevance.js';
import type { IndexHit, IndexQuery } from './searchIndex.js';
import {
  MAX_INDEXED_FILE_BYTES,
  workspaceIndex,
  type BuildProgress,
  type WorkspaceIndex,
} from './workspaceIndex.js';

export const SEARCH_CODE = 'search_code';
export const DEFAULT_SEARCH_RESULTS = 20;
export const MAX_SEARCH_RESULTS = 200;
/** Matching lines shown per file, so one file cannot fill the results. */
export const LINES_PER_FILE = 5;
const MIN_TERM_CHARS = 3;
/**
 * Files ranked per search: all the matches when there are fewer, else the
 * first found plus those named after a term. A term in most files of a large
 * tree matches tens of thousands; reading and ranking them all is what made
 * such a search slow, and no order among them would help the model more than
 * "narrow the query".
 */
export const RANKED_FILES = 500;
/** Text read for ranking per search, at most (a few large files can fill it). */
const RANKED_BYTES = 4 * 1024 * 1024;
/** Files named after a term, added to the ranking when the matches were cut. */
const NAMED_FILES = 50;
/**
 * How long the first search of a workspace waits for its index: a small
 * tree is indexed by then and answered in full; a large one (half a minute
 * for 50,000 files) is answered from what is indexed so far, saying so.
 */
export const BUILD_WAIT_MS = 3000;

export const SearchCodeArgs = z.object({
  query: z
    .string()
    .min(MIN_TERM_CHARS)
    .describe('Terms separated by spaces; a file matches when it contains every term'),
  path: z.string().min(1).default('.').describe('Only files under this directory'),
  glob: z
    .string()
    .min(1)
    .optional()
    .describe('Only files matching this glob, e.g. "*.ts" or "src/**/*.ts"'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_SEARCH_RESULTS)
    .default(DEFAULT_SEARCH_RESULTS)
    .describe('Most result lines'),
});
export type SearchCodeArgs = z.infer<typeof SearchCodeArgs>;

export interface SearchCodeOptions {
  /** Where the index lives (default: the daemon's data dir). */
  dataDir?: () => string;
  /** How long a search waits for an index being built (default BUILD_WAIT_MS). */
  buildWaitMs?: number;
}

/**
 * The longest run of plain characters outside braces and between slashes
 * (a slash after `**` may match nothing): every path the glob matches
 * contains it.
 */
function globLiteral(glob: string): string {
  let best = '';
  let run = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '{') braces += 1;
    if (braces === 0 && !'*?[]{}\\/'.includes(c)) run += c;
    else {
      if (run.length > best.length) best = run;
      run = '';
    }
    if (c === '}' && braces > 0) braces -= 1;
    // A character class: skip it whole.
    if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end !== -1) i = end;
    }
  }
  return run.length > best.length ? run : best;
}

/** The files to show, best first: ranked from a bounded read of the matches. */
function rankedMatches(
  index: WorkspaceIndex,
  hits: Iterator<IndexHit>,
  query: IndexQuery,
  terms: QueryTerms,
): { files: RankedFile[]; cut: boolean } {
  const read: IndexHit[] = [];
  let bytes = 0;
  let cut = false;
  try {
    for (let next = hits.next(); next.done !== true; next = hits.next()) {
      if (read.length >= RANKED_FILES || bytes >= RANKED_BYTES) {
        cut = true;
        break;
      }
      read.push(next.value);
      bytes += next.value.content.length;
    }
  } finally {
    hits.return?.(undefined);
  }
  if (cut) {
    const known = new Set(read.map((hit) => hit.path));
    for (const hit of index.namedMatches(query, NAMED_FILES))
      if (!known.has(hit.path)) read.push(hit);
  }
  return { files: terms.rank(read), cut };
}

function buildingNote(progress: BuildProgress, found: boolean): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const where =
    progress.phase === 'listing'
      ? `listing the workspace's files${progress.total > 0 ? ` (${count(progress.total)} indexed before)` : ''}`
      : `${count(progress.checked)} of ${count(progress.total)} files checked`;
  const state = progress.refreshing
    ? 'results may be incomplete or out of date'
    : found
      ? 'more files may match'
      : 'a file not indexed yet may match';
  return `[the search index is still being built (${where}): ${state}; search again in a moment, or use grep to search every file now]`;
}

export function searchCodeTool(workspace: Workspace, options: SearchCodeOptions = {}): Tool {
  const dataDir = options.dataDir ?? (() => sandboxSettings().dataDir);
  const buildWaitMs = options.buildWaitMs ?? BUILD_WAIT_MS;
  return defineTool<SearchCodeArgs>({
    name: SEARCH_CODE,
    description:
      'Searches the code of the workspace through an index, fast even in large repositories: finds the files that contain every term of `query` ' +
      `(case-insensitive substrings of at least ${MIN_TERM_CHARS} characters: a symbol, part of a name, a phrase), best matches first, with their matching lines as \`file:line: text\`. ` +
      'Use it to find where something is defined or used; use grep for a regular expression, case-sensitive matches or every occurrence. ' +
      `Respects .gitignore; skips node_modules, binary files and files over ${MAX_INDEXED_FILE_BYTES} bytes.`,
    input: SearchCodeArgs,
    category: 'read',
    execute: (args) =>
      guarded(async () => {
        const split = args.query.trim().split(/\s+/);
        const short = split.filter((term) => term.length < MIN_TERM_CHARS);
        if (short.length > 0)
          return {
            content: `search terms need at least ${MIN_TERM_CHARS} characters each (${short.map((t) => JSON.stringify(t)).join(', ')} is shorter); use grep for shorter patterns`,
            isError: true,
          };
        const under = resolveInWorkspace(workspace.root, args.path)
          .relative.split(/[\\/]/)
          .filter(Boolean)
          .join('/');
        const query: IndexQuery = {
          terms: [...new Set(split.map((term) => term.toLowerCase()))],
          under,
          ...(args.glob !== undefined && {
            include: globToRegExp(args.glob, { anchored: args.glob.includes('/') }),
            includeHint: globLiteral(args.glob),
          }),
        };
        const terms = new QueryTerms(query.terms);
        const index = workspaceIndex(workspace.root, dataDir(), workspace);
        const { hits, building } = await index.search(query, buildWaitMs);
        const { files, cut } = rankedMatches(index, hits, query, terms);

        const out: string[] = [];
        let shownFiles = 0;
        for (const file of files) {
          if (out.length >= args.limit) break;
          shownFiles += 1;
          const lines = terms.lines(
            file.content,
            Math.min(LINES_PER_FILE, args.limit - out.length),
          );
          for (const { line, text } of lines) out.push(`${file.path}:${line}: ${text}`);
          // Every term is in the file but no line shows one (the index folds case differently).
          if (lines.length === 0) out.push(`${file.path}: (the terms are on different lines)`);
        }
        const more = cut || shownFiles < files.length;
        const notes: string[] = [];
        if (more) notes.push('[… more files match; narrow the query or raise limit]');
        if (building) notes.push(buildingNote(building, out.length > 0));
        if (out.length === 0) return ['No matches.', ...notes].join('\n');
        return [...out, ...notes].join('\n');
      }),
  }) as Tool;
}
