/**
 * The slice of SQLite the store and the search index use, as an interface
 * both backends satisfy (better-sqlite3's own API, which node:sqlite is
 * adapted to). Values come back untyped, as from better-sqlite3: callers
 * cast rows to the shape their SQL selects.
 */
export type SqlValue = null | number | bigint | string | Uint8Array;

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface Statement {
  /** Parameters: positional values, or one object of named ones (`@name` without the `@`). */
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /** Lazy: rows are read as the caller iterates. */
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** Rows become the value of their first column. */
  pluck(): Statement;
}

/** `fn` in a transaction; a call inside another transaction becomes a savepoint. */
export interface Transaction<A extends unknown[], R> {
  (...args: A): R;
  deferred(...args: A): R;
  /** Takes the write lock at BEGIN, so a writer waits (busy_timeout) instead of failing on upgrade. */
  immediate(...args: A): R;
}

export interface Database {
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare(sql: string): Statement;
  exec(sql: string): void;
  /** `PRAGMA <source>`: all rows, or with `simple` the first row's first column. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): Transaction<A, R>;
  function(
    name: string,
    options: { deterministic?: boolean },
    fn: (...args: SqlValue[]) => SqlValue,
  ): void;
  close(): void;
}

export type SqliteBackend = 'better-sqlite3' | 'node:sqlite';

export interface OpenOptions {
  /** Fail with SQLITE_CANTOPEN instead of creating the file. */
  fileMustExist?: boolean;
  readonly?: boolean;
}
