/**
 * Confined file access without a window between check and use
 * (security.md#security-confined-race). resolveInWorkspace checks a path
 * string, but by the time a tool opens it another process may have swapped
 * a component for a symbolic link out of the workspace. So every workspace
 * file tool touches the disk only through here: open first (never following
 * a link in the last component), then ask the kernel what the descriptor
 * really is, and go on only when that is exactly the resolved real path.
 * Reading, listing and creating then go through the verified descriptor,
 * which no later swap can move.
 *
 * Linux names a descriptor's path in /proc/self/fd, and a path through
 * /proc/self/fd/<dirfd>/ is looked up in that very directory (as openat
 * would), so there the guarantee is exact. Node offers neither elsewhere
 * (macOS): the check compares the descriptor's dev/ino with a fresh realpath
 * and lstat of the path, which narrows the window to a few system calls but
 * cannot close it.
 */
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  readlinkSync,
  realpathSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  type Dirent,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { inGitDir, isInside, namesGitDir, realRoot, WorkspaceEscapeError } from './confinement.js';

const { O_CREAT, O_DIRECTORY, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = constants;
// O_NONBLOCK: a FIFO must not block the turn on open.
const FILE_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
const CREATE_FLAGS = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

/** The kernel tells where a descriptor is, and paths below a descriptor resolve in it. */
export const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function swapped(requested: string): WorkspaceEscapeError {
  return new WorkspaceEscapeError(
    requested,
    'changed while it was being opened (a part of the path was replaced, e.g. by a symbolic link)',
  );
}

/**
 * Where the open descriptor `fd` really is; undefined when that cannot be
 * told. `opened` is the path it was opened as (used only without /proc).
 */
export function descriptorPath(fd: number, opened: string, useProc = PROC_FD): string | undefined {
  try {
    if (useProc) return readlinkSync(`/proc/self/fd/${fd}`);
    const now = realpathSync.native(opened);
    const held = fstatSync(fd);
    const named = lstatSync(now);
    return held.dev === named.dev && held.ino === named.ino ? now : undefined;
  } catch {
    return undefined;
  }
}

/** How to name `name` inside the verified directory `dirFd` (which is at `dir`). */
function below(dirFd: number, dir: string, name: string): string {
  return PROC_FD ? `/proc/self/fd/${dirFd}/${name}` : join(dir, name);
}

/**
 * Opens `via` (by default `real`) and returns the descriptor only when it is
 * the object at `real`, inside the workspace; refuses otherwise.
 */
function openVerified(
  rootReal: string,
  real: string,
  flags: number,
  requested: string,
  via = real,
): number {
  if (!isInside(rootReal, real))
    throw new WorkspaceEscapeError(requested, 'resolves outside the workspace');
  let fd: number;
  try {
    fd = openSync(via, flags);
  } catch (error) {
    // O_NOFOLLOW met a link where the resolved path had none: ELOOP, or
    // ENOTDIR with O_DIRECTORY (the name may hold a directory again by now).
    if (codeOf(error) === 'ELOOP') throw swapped(requested);
    if (codeOf(error) === 'ENOTDIR' && flags & O_DIRECTORY && isLinkOrDirectory(via))
      throw swapped(requested);
    throw error;
  }
  if (descriptorPath(fd, real) !== real) {
    closeSync(fd);
    throw swapped(requested);
  }
  return fd;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function isLinkOrDirectory(path: string): boolean {
  try {
    const stats = lstatSync(path);
    return stats.isSymbolicLink() || stats.isDirectory();
  } catch {
    return false;
  }
}

/** An opened, verified file (or directory: check `stats`). */
export interface OpenedFile {
  readonly stats: Stats;
  /** The whole content; only for regular files. */
  read(): Buffer;
  /** At most the first `maxBytes` of it: a file that may be huge is read only as far as it is used. */
  readStart(maxBytes: number): Buffer;
}

/**
 * Runs `use` on the verified file at `real` (a path resolveInWorkspace
 * returned, or one found by a verified listing).
 */
export function withFile<T>(
  root: string,
  real: string,
  requested: string,
  use: (file: OpenedFile) => T,
): T {
  const fd = openVerified(realRoot(root), real, FILE_FLAGS, requested);
  try {
    return use({
      stats: fstatSync(fd),
      read: () => readFileSync(fd),
      readStart: (maxBytes) => {
        const buffer = Buffer.alloc(maxBytes);
        let length = 0;
        for (let got = -1; got !== 0 && length < maxBytes; length += got) {
          got = readSync(fd, buffer, length, maxBytes - length, null);
        }
        return buffer.subarray(0, length);
      },
    });
  } finally {
    closeSync(fd);
  }
}

/** The entries of the verified directory at `real`. */
export function listDirectory(root: string, real: string, requested: string): Dirent[] {
  const fd = openVerified(realRoot(root), real, DIR_FLAGS, requested);
  try {
    return readdirSync(PROC_FD ? `/proc/self/fd/${fd}` : real, { withFileTypes: true });
  } finally {
    closeSync(fd);
  }
}

/** Opens the directory `dir` verified; a missing one is created inside its verified parent. */
function openDirectory(rootReal: string, dir: string, requested: string): number {
  try {
    return openVerified(rootReal, dir, DIR_FLAGS, requested);
  } catch (error) {
    if (codeOf(error) !== 'ENOENT' || dir === rootReal || !isInside(rootReal, dir)) throw error;
  }
  const parentFd = openDirectory(rootReal, dirname(dir), requested);
  try {
    const via = below(parentFd, dirname(dir), basename(dir));
    try {
      mkdirSync(via);
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
    }
    return openVerified(rootReal, dir, DIR_FLAGS, requested, via);
  } finally {
    closeSync(parentFd);
  }
}

/**
 * Writes `content` to the file at `real` (resolved from `requested`),
 * creating parent directories. The new content goes to a fresh temporary
 * file created inside the verified parent directory and is renamed over the
 * target there, so neither a swapped parent nor a link (or hard link) put at
 * the target can redirect it. The gate classes a write as protected before it
 * runs; a write that resolves into `.git/` now without naming it refuses,
 * since the gate may have seen a different tree.
 */
export function writeFileConfined(
  root: string,
  real: string,
  requested: string,
  content: string,
): { created: boolean } {
  const rootReal = realRoot(root);
  if (inGitDir(rootReal, real) && !namesGitDir(root, requested)) {
    throw new WorkspaceEscapeError(
      requested,
      'leads into .git/, a protected path, through a symbolic link or a concurrent change',
      'name the path under .git/ directly so that the write is asked for',
    );
  }
  const dir = dirname(real);
  const dirFd = openDirectory(rootReal, dir, requested);
  try {
    const target = below(dirFd, dir, basename(real));
    let existing: Stats | undefined;
    try {
      existing = lstatSync(target);
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw error;
    }
    // The resolved path had no link in its last component: one there now was swapped in.
    if (existing?.isSymbolicLink()) throw swapped(requested);
    // A file the user cannot write stays unwritable, as with an in-place write.
    if (existing?.isFile()) accessSync(target, constants.W_OK);
    const tempName = `.arbor-${randomBytes(8).toString('hex')}.tmp`;
    const temp = below(dirFd, dir, tempName);
    let fd: number;
    try {
      fd = PROC_FD
        ? openSync(temp, CREATE_FLAGS, 0o666)
        : openVerified(rootReal, join(dir, tempName), CREATE_FLAGS, requested, temp);
    } catch (error) {
      if (error instanceof WorkspaceEscapeError) removeQuietly(temp);
      throw error;
    }
    try {
      try {
        if (existing) fchmodSync(fd, existing.mode & 0o777);
        writeFileSync(fd, content, 'utf8');
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, target);
    } catch (error) {
      removeQuietly(temp);
      throw error;
    }
    return { created: existing === undefined };
  } finally {
    closeSync(dirFd);
  }
}

/**
 * Removes the file at `real` (resolved from `requested`) through its verified
 * parent directory, so a parent swapped for a link cannot redirect it; a link
 * found where the resolved path had a file was swapped in, and is refused.
 * Like a write, a removal that resolves into `.git/` without naming it refuses.
 */
export function removeFileConfined(root: string, real: string, requested: string): void {
  const rootReal = realRoot(root);
  if (inGitDir(rootReal, real) && !namesGitDir(root, requested)) {
    throw new WorkspaceEscapeError(
      requested,
      'leads into .git/, a protected path, through a symbolic link or a concurrent change',
      'name the path under .git/ directly so that the change is asked for',
    );
  }
  const dir = dirname(real);
  const dirFd = openVerified(rootReal, dir, DIR_FLAGS, requested);
  try {
    const target = below(dirFd, dir, basename(real));
    if (lstatSync(target).isSymbolicLink()) throw swapped(requested);
    unlinkSync(target);
  } finally {
    closeSync(dirFd);
  }
}
