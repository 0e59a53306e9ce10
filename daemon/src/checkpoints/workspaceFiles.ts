/**
 * The only code that reads or writes workspace files on restore. A path must
 * be workspace-relative, without `..`, never inside a `.git`; then it is
 * reached one directory at a time, each opened and asked (through its
 * descriptor) where it really is, and refused when that is outside the
 * workspace root — so a directory swapped for a symbolic link to elsewhere
 * cannot redirect a read or a write. Symbolic links that stay inside the
 * workspace are followed. On Linux every name is then used below the held
 * descriptor (/proc/self/fd/N/name), so no later swap can move it either
 * (the same guarantee as tools/workspace/safeFs.ts). Writes go to a temp file
 * in the target's own directory and are renamed over the target.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync } from 'node:fs';
import {
  chmod,
  lstat,
  readFile,
  readlink,
  rename,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { join, sep } from 'node:path';
import { PROC_FD, descriptorPath } from '../tools/workspace/safeFs.js';
import { CheckpointError } from './checkpointError.js';

/** A file as git would record it: its mode and blob id (or a size stand-in), or no file. */
export type FileState =
  { kind: 'absent' } | { kind: 'directory' } | { kind: 'blob'; mode: GitFileMode; id: string };

export type GitFileMode = '100644' | '100755' | '120000';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;

function refuse(path: string, why: string): never {
  throw new CheckpointError('unsafe-path', `refusing path ${JSON.stringify(path)}: ${why}`);
}

/** A caller's path in the form git lists it (forward slashes, no `.` segments), or `unsafe-path`. */
export function normalizeRelativePath(path: string): string {
  if (typeof path !== 'string') refuse(String(path), 'it is not a string');
  if (path.includes('\0')) refuse(path, 'it contains a NUL byte');
  const slashed = process.platform === 'win32' ? path.replace(/\\/g, '/') : path;
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) refuse(path, 'it is absolute');
  const segments = slashed.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0) refuse(path, 'it names the workspace root');
  for (const segment of segments) {
    if (segment === '..') refuse(path, 'it contains ".."');
    // Any case: on case-insensitive file systems `.GIT` is the repository too.
    if (segment.toLowerCase() === '.git') refuse(path, 'it is inside a .git directory');
  }
  return segments.join('/');
}

function isInside(root: string, real: string): boolean {
  return real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** A directory held open, verified to be inside the workspace. */
interface HeldDir {
  /** How to name `name` inside this very directory. */
  at(name: string): string;
  close(): void;
}

function holdDir(root: string, path: string, rel: string): HeldDir {
  const fd = openSync(path, DIR_FLAGS);
  const real = descriptorPath(fd, path);
  if (real === undefined || !isInside(root, real)) {
    closeSync(fd);
    refuse(rel, `its directory resolves outside the workspace${real ? ` (${real})` : ''}`);
  }
  return {
    at: (name) => (PROC_FD ? `/proc/self/fd/${fd}/${name}` : join(real, name)),
    close: () => closeSync(fd),
  };
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * The verified parent directory of `rel` and the file's name in it;
 * undefined when a directory on the way does not exist (and `create` is off).
 */
function holdParent(
  root: string,
  rel: string,
  create: boolean,
): { dir: HeldDir; name: string } | undefined {
  const segments = rel.split('/');
  const name = segments.pop()!;
  let dir = holdDir(root, root, rel);
  try {
    for (const segment of segments) {
      const next = dir.at(segment);
      let child: HeldDir;
      try {
        child = holdDir(root, next, rel);
      } catch (error) {
        const code = codeOf(error);
        if (code === 'ENOTDIR' || (code === 'ENOENT' && !create)) {
          dir.close();
          return undefined;
        }
        if (code !== 'ENOENT') throw error;
        mkdirSync(next);
        child = holdDir(root, next, rel);
      }
      dir.close();
      dir = child;
    }
  } catch (error) {
    dir.close();
    throw error;
  }
  return { dir, name };
}

/** Throws `unsafe-path` when an existing directory on the way to `rel` resolves outside the workspace. */
export function checkConfined(root: string, rel: string): void {
  holdParent(root, rel, false)?.dir.close();
}

/** The id git would give this content as a blob (SHA-1 or SHA-256 repositories). */
export function blobId(content: Buffer, idLength: number): string {
  const hash = createHash(idLength === 64 ? 'sha256' : 'sha1');
  hash.update(`blob ${content.length}\0`);
  hash.update(content);
  return hash.digest('hex');
}

/**
 * The current state of a workspace file as git would record it.
 * `expectedSize` tells a file whose size differs apart without reading it.
 */
export async function currentState(
  root: string,
  rel: string,
  idLength: number,
  expectedSize: number | undefined,
): Promise<FileState> {
  const parent = holdParent(root, rel, false);
  if (!parent) return { kind: 'absent' };
  try {
    const path = parent.dir.at(parent.name);
    let stats;
    try {
      stats = await lstat(path);
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return { kind: 'absent' };
      throw error;
    }
    if (stats.isDirectory()) return { kind: 'directory' };
    if (stats.isSymbolicLink()) {
      const target = await readlink(path, { encoding: 'buffer' });
      return { kind: 'blob', mode: '120000', id: blobId(Buffer.from(target), idLength) };
    }
    // Git records only the owner's executable bit.
    const mode = (stats.mode & 0o100) !== 0 ? '100755' : '100644';
    if (!stats.isFile() || (expectedSize !== undefined && stats.size !== expectedSize)) {
      return { kind: 'blob', mode, id: `size:${stats.size}` };
    }
    return { kind: 'blob', mode, id: blobId(await readFile(path), idLength) };
  } finally {
    parent.dir.close();
  }
}

/**
 * Makes `rel` hold `content` with git mode `mode`: missing directories are
 * created inside verified ones, the bytes go to a temp file beside the
 * target and are renamed over it, so a reader never sees half a file.
 */
export async function writeWorkspaceFile(
  root: string,
  rel: string,
  content: Buffer,
  mode: GitFileMode,
): Promise<void> {
  const parent = holdParent(root, rel, true);
  if (!parent) throw new Error(`a directory on the way to ${rel} is a file now`);
  const { dir, name } = parent;
  try {
    const target = dir.at(name);
    const previous = await lstat(target).catch(() => undefined);
    if (previous?.isDirectory()) throw new Error(`${rel} is a directory now`);
    const temp = dir.at(`.${name}.arbor-restore-${randomBytes(6).toString('hex')}`);
    try {
      if (mode === '120000') {
        await symlink(content, temp);
      } else {
        const executable = mode === '100755';
        // The kernel applies the umask to a new file's mode, as git does on checkout.
        await writeFile(temp, content, { flag: 'wx', mode: executable ? 0o777 : 0o666 });
        if (previous?.isFile()) {
          // Keep the file's other permission bits; set x where r is set, or clear it.
          const rest = previous.mode & 0o666;
          await chmod(temp, executable ? rest | ((previous.mode & 0o444) >> 2) : rest);
        }
      }
      await rename(temp, target);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
  } finally {
    dir.close();
  }
}

/** Removes `rel` (a file or symbolic link; never a directory). Already absent is fine. */
export async function removeWorkspaceFile(root: string, rel: string): Promise<void> {
  const parent = holdParent(root, rel, false);
  if (!parent) return;
  try {
    const target = parent.dir.at(parent.name);
    const stats = lstatSync(target, { throwIfNoEntry: false });
    if (!stats) return;
    if (stats.isDirectory()) throw new Error(`${rel} is a directory now`);
    await unlink(target);
  } finally {
    parent.dir.close();
  }
}
