/**
 * Workspace confinement (security.md#confinement). Every path a workspace
 * tool touches is resolved at call time to a real path — `~` expanded,
 * relative paths taken from the root, `..` applied, every symbolic link of
 * the existing part followed — and must then lie inside the real path of the
 * workspace root. The comparison is exact on real paths, so Unicode
 * normalization variants and case variants can only ever be refused, never
 * let through: on a case-insensitive or normalizing file system realpath
 * returns the on-disk spelling, on any other they name different files.
 * Tools then act on the resolved path, never on the string the model sent,
 * and only through safeFs.ts, which makes sure the file they open is the one
 * resolved here even when another process changes the tree meanwhile.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

export class WorkspaceEscapeError extends Error {
  constructor(
    readonly requested: string,
    detail: string,
    hint = 'workspace tools only reach files inside the workspace',
  ) {
    super(`refused: "${requested}" ${detail}; ${hint}`);
    this.name = 'WorkspaceEscapeError';
  }
}

export interface ResolvedPath {
  /** The real path to act on. */
  real: string;
  /** Relative to the workspace root's real path ('' for the root itself). */
  relative: string;
  exists: boolean;
}

const realRoots = new Map<string, string>();

/** The real path of a workspace root (cached; roots do not move while a daemon runs). */
export function realRoot(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) {
    real = realpathSync.native(root);
    realRoots.set(root, real);
  }
  return real;
}

/** Lexical absolute form: `~` expanded, relative paths from the root, `.`/`..` applied. */
export function absoluteFrom(root: string, requested: string): string {
  let path = requested;
  if (path === '~' || path.startsWith('~/') || path.startsWith('~\\')) {
    path = join(homedir(), path.slice(1));
  }
  return isAbsolute(path) ? resolve(path) : resolve(root, path);
}

/**
 * Real path of `absolute`, following every symbolic link of the part that
 * exists; the missing rest is appended as is. A missing component that is a
 * dangling symbolic link is refused: writing through it would land wherever it points.
 */
export function realPathOf(absolute: string): { real: string; exists: boolean } {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = realpathSync.native(current);
      return {
        real: missing.length === 0 ? real : join(real, ...missing.reverse()),
        exists: missing.length === 0,
      };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      let isLink = false;
      try {
        isLink = lstatSync(current).isSymbolicLink();
      } catch {
        // truly missing
      }
      if (isLink) throw new Error('dangling symbolic link');
      const parent = resolve(current, '..');
      if (parent === current) throw error;
      missing.push(current.slice(parent.length).replace(/^[\\/]+/, ''));
      current = parent;
    }
  }
}

export function isInside(realRootPath: string, real: string): boolean {
  if (real === realRootPath) return true;
  const prefix = realRootPath.endsWith(sep) ? realRootPath : realRootPath + sep;
  return real.startsWith(prefix);
}

/** Resolves `requested` inside the workspace, or throws WorkspaceEscapeError. */
export function resolveInWorkspace(root: string, requested: string): ResolvedPath {
  if (typeof requested !== 'string' || requested.length === 0)
    throw new WorkspaceEscapeError(String(requested), 'is not a path');
  if (requested.includes('\0')) throw new WorkspaceEscapeError(requested, 'contains a NUL byte');
  const rootReal = realRoot(root);
  let resolved: { real: string; exists: boolean };
  try {
    resolved = realPathOf(absoluteFrom(rootReal, requested));
  } catch (error) {
    throw new WorkspaceEscapeError(requested, `cannot be resolved (${(error as Error).message})`);
  }
  if (!isInside(rootReal, resolved.real)) {
    throw new WorkspaceEscapeError(requested, 'resolves outside the workspace');
  }
  return { ...resolved, relative: relative(rootReal, resolved.real) };
}

/**
 * Whether `path` lies in `base`'s `.git/`. `.GIT` is `.git` on a
 * case-insensitive file system: ask rather than guess.
 */
export function inGitDir(base: string, path: string): boolean {
  if (!isInside(base, path)) return false;
  return (relative(base, path).split(sep)[0] ?? '').toLowerCase() === '.git';
}

/**
 * Whether the string `requested` itself names the workspace's `.git/`,
 * without looking at the disk. Pure, so the gate and a tool that runs later
 * agree on it whatever the file system did in between (safeFs.ts).
 */
export function namesGitDir(root: string, requested: string): boolean {
  return [root, realRoot(root)].some((base) => inGitDir(base, absoluteFrom(base, requested)));
}

/**
 * Best effort, never throws: whether `requested` lies inside the workspace's
 * `.git/` — by name, or resolved like above — or inside `dataDir`. Used by
 * the gate to ask even in auto; a path that cannot be resolved is not
 * protected (the tool refuses it anyway).
 */
export function isProtectedPath(
  root: string,
  requested: string,
  dataDir: string | undefined,
): boolean {
  try {
    if (namesGitDir(root, requested)) return true;
    const rootReal = realRoot(root);
    const { real } = realPathOf(absoluteFrom(rootReal, requested));
    if (inGitDir(rootReal, real)) return true;
    if (dataDir !== undefined) {
      const dataReal = realPathOf(resolve(dataDir)).real;
      if (isInside(dataReal, real)) return true;
    }
  } catch {
    return false;
  }
  return false;
}
