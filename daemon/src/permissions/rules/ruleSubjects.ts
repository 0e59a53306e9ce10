/**
 * What a rule's specifier is matched against, per built-in tool: the command
 * a call runs, the workspace paths it touches, or the host it reaches. Tools
 * not listed here (MCP and client tools, the agent's own) take no specifier:
 * a rule names them whole.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { readFileChanges, pathsOf } from '../../tools/patch/filePatches.js';
import { absoluteFrom, realPathOf, realRoot } from '../../tools/workspace/confinement.js';

export type SubjectKind = 'command' | 'path' | 'domain';

export type RuleSubject =
  | { kind: 'command'; command: string }
  /** Workspace-relative, `/`-separated; undefined: outside the workspace. */
  | { kind: 'path'; paths: ReadonlyArray<{ lexical?: string; real?: string }> }
  | { kind: 'domain'; host: string };

type Args = Record<string, unknown>;

const pathArg = (args: Args): string[] => [typeof args['path'] === 'string' ? args['path'] : '.'];

const SUBJECTS: Readonly<Record<string, { kind: SubjectKind; of(args: Args): unknown }>> = {
  run_command: { kind: 'command', of: (args) => args['command'] },
  run_task: { kind: 'command', of: (args) => args['name'] },
  read_file: { kind: 'path', of: pathArg },
  list_dir: { kind: 'path', of: pathArg },
  glob: { kind: 'path', of: pathArg },
  grep: { kind: 'path', of: pathArg },
  search_code: { kind: 'path', of: pathArg },
  write_file: { kind: 'path', of: pathArg },
  edit_file: { kind: 'path', of: pathArg },
  apply_patch: {
    kind: 'path',
    of: (args) => {
      try {
        return readFileChanges(String(args['patch'])).flatMap(pathsOf);
      } catch {
        return []; // the tool refuses an unreadable patch itself
      }
    },
  },
  web_fetch: {
    kind: 'domain',
    of: (args) => {
      try {
        return new URL(String(args['url'])).hostname.toLowerCase();
      } catch {
        return undefined;
      }
    },
  },
};

/** The kind of specifier rules for `tool` take; undefined: none. */
export function subjectKind(tool: string): SubjectKind | undefined {
  return Object.hasOwn(SUBJECTS, tool) ? SUBJECTS[tool]!.kind : undefined;
}

export function subjectKinds(): ReadonlyArray<[string, SubjectKind]> {
  return Object.entries(SUBJECTS).map(([tool, { kind }]) => [tool, kind]);
}

/** What rules with a specifier compare for this call; undefined when the tool has none. */
export function subjectOf(tool: string, args: unknown, root: string): RuleSubject | undefined {
  if (!Object.hasOwn(SUBJECTS, tool) || typeof args !== 'object' || args === null) return undefined;
  const { kind, of } = SUBJECTS[tool]!;
  const value = of(args as Args);
  switch (kind) {
    case 'command':
      return typeof value === 'string' ? { kind, command: value } : undefined;
    case 'domain':
      return typeof value === 'string' ? { kind, host: value } : undefined;
    case 'path':
      return { kind, paths: (value as string[]).map((path) => workspacePath(root, path)) };
  }
}

/**
 * Both forms of a path: as written (lexically resolved) and with symbolic
 * links followed, so a link cannot carry a call past a deny rule.
 */
function workspacePath(root: string, requested: string): { lexical?: string; real?: string } {
  const absolute = absoluteFrom(root, requested);
  let real: string | undefined;
  try {
    real = inside(realRoot(root), realPathOf(absolute).real);
  } catch {
    real = undefined; // a dangling link: the tool refuses it anyway
  }
  const lexical = inside(root, absolute);
  return { ...(lexical !== undefined && { lexical }), ...(real !== undefined && { real }) };
}

function inside(root: string, absolute: string): string | undefined {
  const rel = relative(root, absolute);
  if (rel === '') return '.';
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}
