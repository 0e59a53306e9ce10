/**
 * The named tasks of a workspace, as its own build files declare them:
 * `package.json` scripts (run with the package manager its lockfile names)
 * and Makefile targets. Read at call time, so an edit to either is seen at
 * once; nothing is cached.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface WorkspaceTask {
  name: string;
  /** Where it comes from, as the model and the user read it: `package.json`, `Makefile`. */
  source: string;
  /** The command line that runs it (shell-quoted arguments appended by the caller). */
  command: string;
  /** What it does: the script itself, or the Makefile target's recipe start. */
  detail: string;
}

/** Lockfile -> the package manager that wrote it; npm without one. */
const PACKAGE_MANAGERS: readonly [string, string][] = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  ['bun.lockb', 'bun'],
  ['bun.lock', 'bun'],
  ['package-lock.json', 'npm'],
];

const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];

/** A target name make accepts on the command line that is not a special or pattern target. */
const MAKE_TARGET = /^([A-Za-z0-9][A-Za-z0-9_.\-/]*)\s*:(?!=)/;

export function workspaceTasks(root: string): { tasks: WorkspaceTask[]; problems: string[] } {
  const tasks: WorkspaceTask[] = [];
  const problems: string[] = [];
  const scripts = packageScripts(root, problems);
  const manager = PACKAGE_MANAGERS.find(([file]) => existsSync(join(root, file)))?.[1] ?? 'npm';
  for (const [name, script] of scripts)
    tasks.push({
      name,
      source: 'package.json',
      command: `${manager} run ${shellQuote(name)}`,
      detail: script,
    });
  const makefile = MAKEFILES.find((file) => existsSync(join(root, file)));
  if (makefile !== undefined) {
    for (const [name, recipe] of makeTargets(readFileSync(join(root, makefile), 'utf8')))
      tasks.push({
        name: tasks.some((task) => task.name === name) ? `make:${name}` : name,
        source: makefile,
        command: `make ${shellQuote(name)}`,
        detail: recipe,
      });
  }
  return { tasks, problems };
}

function packageScripts(root: string, problems: string[]): [string, string][] {
  const file = join(root, 'package.json');
  if (!existsSync(file)) return [];
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as { scripts?: unknown };
    if (typeof json.scripts !== 'object' || json.scripts === null) return [];
    return Object.entries(json.scripts).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    );
  } catch (error) {
    problems.push(`package.json cannot be read: ${(error as Error).message}`);
    return [];
  }
}

/** Explicit targets, in file order, each with its recipe's first line. */
function makeTargets(text: string): [string, string][] {
  const targets: [string, string][] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    const match = MAKE_TARGET.exec(line);
    if (!match || match[1]!.includes('%')) continue;
    const name = match[1]!;
    if (targets.some(([known]) => known === name)) continue;
    const recipe = lines[i + 1]?.startsWith('\t') ? lines[i + 1]!.trim() : '';
    targets.push([name, recipe]);
  }
  return targets;
}

/** One word for /bin/sh: as it is when it holds nothing special, else single-quoted. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
