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
import { MAX_INDEXED_FILE_BYTES, workspaceIndex } from './workspaceIndex.js';

export const SEARCH_CODE = 'search_code';
export const DEFAULT_SEARCH_RESULTS = 20;
export const MAX_SEARCH_RESULTS = 200;
/** Matching lines shown per file, so one file cannot fill the results. */
export const LINES_PER_FILE = 5;
const MIN_TERM_CHARS = 3;
const SNIPPET_CHARS = 200;

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
}

function snippet(line: string): string {
  const text = line.trim();
  return text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text;
}

export function searchCodeTool(workspace: Workspace, options: SearchCodeOptions = {}): Tool {
  const dataDir = options.dataDir ?? (() => sandboxSettings().dataDir);
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
        const terms = args.query.trim().split(/\s+/);
        const short = terms.filter((term) => term.length < MIN_TERM_CHARS);
        if (short.length > 0)
          return {
            content: `search terms need at least ${MIN_TERM_CHARS} characters each (${short.map((t) => JSON.stringify(t)).join(', ')} is shorter); use grep for shorter patterns`,
            isError: true,
          };
        const start = resolveInWorkspace(workspace.root, args.path)
          .relative.split(/[\\/]/)
          .filter(Boolean)
          .join('/');
        const include =
          args.glob === undefined
            ? undefined
            : globToRegExp(args.glob, { anchored: args.glob.includes('/') });
        const lowered = terms.map((term) => term.toLowerCase());
        const hits = await workspaceIndex(workspace.root, dataDir()).search(terms);
        const out: string[] = [];
        let more = false;
        for (const hit of hits) {
          if (start !== '' && hit.path !== start && !hit.path.startsWith(`${start}/`)) continue;
          if (include && !include.test(hit.path)) continue;
          if (out.length >= args.limit) {
            more = true;
            break;
          }
          let shown = 0;
          const lines = hit.content.split('\n');
          for (
            let i = 0;
            i < lines.length && shown < LINES_PER_FILE && out.length < args.limit;
            i++
          ) {
            const line = lines[i]!.toLowerCase();
            if (!lowered.some((term) => line.includes(term))) continue;
            out.push(`${hit.path}:${i + 1}: ${snippet(lines[i]!)}`);
            shown += 1;
          }
          // Every term is in the file but spread over lines: name the file still.
          if (shown === 0) out.push(`${hit.path}: (the terms are on different lines)`);
        }
        if (out.length === 0) return 'No matches.';
        return (
          out.join('\n') + (more ? `\n[… more files match; narrow the query or raise limit]` : '')
        );
      }),
  }) as Tool;
}
