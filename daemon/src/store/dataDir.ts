/**
 * The data directory and the database file: created private (dir 0700, files
 * 0600) and checked for writability up front, so a bad `--data-dir` fails at
 * startup with a sentence instead of an SQLITE_CANTOPEN in the middle of a turn.
 */
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  statSync,
  type Stats,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { StoreError } from './storeError.js';

export const DATABASE_FILE_NAME = 'arbor.db';
export const DATA_DIR_MODE = 0o700;
export const DATABASE_FILE_MODE = 0o600;

/** Makes sure `dataDir` exists and is writable; returns the absolute database path. */
export function prepareDataDir(dataDir: string): string {
  const dir = resolve(dataDir);
  let stat;
  try {
    stat = statSync(dir, { throwIfNoEntry: false });
  } catch (cause) {
    throw unavailable(dir, cause);
  }
  if (stat === undefined) {
    try {
      mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE });
      chmodSync(dir, DATA_DIR_MODE); // the umask may have taken bits away from mkdir's mode
    } catch (cause) {
      throw unavailable(dir, cause);
    }
  } else if (!stat.isDirectory()) {
    throw new StoreError(
      'data_dir_unavailable',
      `The data directory ${dir} exists but is not a directory. Remove it, or pass --data-dir <directory>.`,
      dir,
    );
  } else {
    checkPrivate(dir, stat);
  }
  try {
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (cause) {
    throw readOnly(dir, `The data directory ${dir} is not writable`, cause);
  }

  const file = join(dir, DATABASE_FILE_NAME);
  try {
    if (existsSync(file)) {
      accessSync(file, constants.R_OK | constants.W_OK);
    } else {
      // Create the file ourselves so it never exists with a wider mode; SQLite
      // gives its -wal and -shm files the mode of the database file.
      closeSync(openSync(file, 'a', DATABASE_FILE_MODE));
    }
  } catch (cause) {
    throw readOnly(file, `The database file ${file} cannot be opened for writing`, cause);
  }
  return file;
}

/**
 * An existing data dir that other users can write to could have its token
 * file or its database swapped: refused, never used as is
 * (security.md#security-data-dir-mode).
 */
function checkPrivate(dir: string, stat: Stats): void {
  if ((stat.mode & 0o022) !== 0) {
    throw new StoreError(
      'data_dir_unsafe',
      `The data directory ${dir} is writable by other users (mode ${(stat.mode & 0o777).toString(8)}). ` +
        `It holds the socket token and your sessions: run chmod 700 ${dir}, or pass --data-dir <private directory>.`,
      dir,
    );
  }
}

/** Narrows the database and its WAL companions to 0600 (they may predate us). */
export function restrictDatabaseFiles(file: string): void {
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(path, DATABASE_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

function unavailable(dir: string, cause: unknown): StoreError {
  return new StoreError(
    'data_dir_unavailable',
    `The data directory ${dir} does not exist and cannot be created (${errorCode(cause)}). ` +
      'Create it, or pass --data-dir <writable directory>.',
    dir,
    { cause },
  );
}

function readOnly(path: string, what: string, cause: unknown): StoreError {
  return new StoreError(
    'data_dir_read_only',
    `${what} (${errorCode(cause)}). Arbor keeps its sessions there: make it writable ` +
      '(e.g. chmod u+w), or pass --data-dir <writable directory>.',
    path,
    { cause },
  );
}

function errorCode(cause: unknown): string {
  const error = cause as NodeJS.ErrnoException;
  return error.code ?? error.message ?? String(cause);
}
