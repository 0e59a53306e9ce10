/**
 * The node:sqlite backend: Node's built-in DatabaseSync behind the
 * better-sqlite3-shaped Database interface. Used where the bundled
 * better-sqlite3 binding does not load (any Node but the one it was built
 * for, e.g. Node 22/24, or VS Code's own runtime).
 *
 * Needs Node >= 22.13 (or 23.4): from there node:sqlite is unflagged and has
 * StatementSync.iterate and DatabaseSync.function, which the store and the
 * search index use; earlier 22.x needs --experimental-sqlite and lacks both,
 * so it is refused with a clear message rather than half-supported.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type {
  Database,
  OpenOptions,
  RunResult,
  SqlValue,
  Statement,
  Transaction,
} from './database.js';

/** What this adapter uses of node:sqlite (@types/node 20 does not describe it). */
interface StatementSync {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Record<string, unknown>[];
  iterate(...params: unknown[]): IterableIterator<Record<string, unknown>>;
  setAllowUnknownNamedParameters?(enabled: boolean): void;
}
interface DatabaseSync {
  readonly isTransaction?: boolean;
  prepare(sql: string): StatementSync;
  exec(sql: string): void;
  function(
    name: string,
    options: { deterministic?: boolean },
    fn: (...args: SqlValue[]) => SqlValue,
  ): void;
  close(): void;
}
interface NodeSqliteModule {
  DatabaseSync: new (path: string, options?: { readOnly?: boolean }) => DatabaseSync;
  StatementSync: { prototype: object };
}

let loaded: NodeSqliteModule | undefined;

/** Loads node:sqlite once, without its ExperimentalWarning; throws why it cannot be used. */
export function loadNodeSqlite(): NodeSqliteModule {
  if (loaded) return loaded;
  // Node prints "ExperimentalWarning: SQLite is an experimental feature" on
  // stderr when the module first loads; the extension shows the daemon's
  // stderr in its log, where it reads like a failure. It is expected here.
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite is an experimental feature/i.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  let mod: NodeSqliteModule;
  try {
    mod = createRequire(import.meta.url)('node:sqlite') as NodeSqliteModule;
  } catch (cause) {
    throw new Error(`node:sqlite is not available in Node ${process.version}`, { cause });
  } finally {
    process.emitWarning = emitWarning;
  }
  const statement = mod.StatementSync.prototype as Partial<StatementSync>;
  const database = mod.DatabaseSync.prototype as Partial<DatabaseSync>;
  if (typeof statement.iterate !== 'function' || typeof database.function !== 'function')
    throw new Error(
      `node:sqlite in Node ${process.version} is too old (Node 22.13 or newer is needed)`,
    );
  loaded = mod;
  return mod;
}

export function openNodeSqlite(path: string, options: OpenOptions): Database {
  const { DatabaseSync } = loadNodeSqlite();
  if (options.fileMustExist && path !== ':memory:' && !existsSync(path))
    throw Object.assign(new Error(`unable to open database file: ${path}`), {
      code: 'SQLITE_CANTOPEN',
    });
  return new NodeSqliteDatabase(
    sqliteCall(() => new DatabaseSync(path, { readOnly: options.readonly ?? false })),
  );
}

class NodeSqliteDatabase implements Database {
  #open = true;
  /** Transactions begun without isTransaction (Node < 22.16): this adapter's own count. */
  #depth = 0;
  #savepoints = 0;

  constructor(private readonly db: DatabaseSync) {}

  get open(): boolean {
    return this.#open;
  }

  get inTransaction(): boolean {
    return this.db.isTransaction ?? this.#depth > 0;
  }

  prepare(sql: string): Statement {
    const statement = sqliteCall(() => this.db.prepare(sql));
    // better-sqlite3 ignores object keys the SQL does not name; so do we.
    statement.setAllowUnknownNamedParameters?.(true);
    const control = transactionControl(sql);
    return new NodeSqliteStatement(
      statement,
      false,
      control ? () => (this.#depth = control === 'begin' ? 1 : 0) : undefined,
    );
  }

  exec(sql: string): void {
    sqliteCall(() => this.db.exec(sql));
    const control = transactionControl(sql);
    if (control) this.#depth = control === 'begin' ? 1 : 0;
  }

  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const rows = sqliteCall(() => this.db.prepare(`PRAGMA ${source}`).all());
    if (!options.simple) return rows.map((row) => ({ ...row }));
    const first = rows[0];
    return first === undefined ? undefined : Object.values(first)[0];
  }

  transaction<A extends unknown[], R>(fn: (...args: A) => R): Transaction<A, R> {
    const run =
      (mode: 'DEFERRED' | 'IMMEDIATE') =>
      (...args: A): R =>
        this.inTransaction
          ? this.#savepoint(() => fn(...args))
          : this.#begin(mode, () => fn(...args));
    return Object.assign(run('DEFERRED'), {
      deferred: run('DEFERRED'),
      immediate: run('IMMEDIATE'),
    });
  }

  function(
    name: string,
    options: { deterministic?: boolean },
    fn: (...args: SqlValue[]) => SqlValue,
  ): void {
    this.db.function(name, options, fn);
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.db.close();
  }

  #begin<R>(mode: string, body: () => R): R {
    this.exec(`BEGIN ${mode}`);
    try {
      const result = body();
      this.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.inTransaction) this.exec('ROLLBACK');
      this.#depth = 0;
      throw error;
    }
  }

  #savepoint<R>(body: () => R): R {
    const name = `arbor_sp${++this.#savepoints}`;
    this.exec(`SAVEPOINT ${name}`);
    try {
      const result = body();
      this.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.exec(`ROLLBACK TO ${name}`);
      this.exec(`RELEASE ${name}`);
      throw error;
    } finally {
      this.#savepoints--;
    }
  }
}

class NodeSqliteStatement implements Statement {
  constructor(
    private readonly statement: StatementSync,
    private readonly plucked: boolean,
    private readonly onRun?: () => void,
  ) {}

  // The store's hot path: plain try/catch, no closure per call.
  run(...params: unknown[]): RunResult {
    let result: RunResult;
    try {
      result = this.statement.run(...params);
    } catch (error) {
      throw withSqliteCode(error);
    }
    this.onRun?.();
    return result;
  }

  get(...params: unknown[]): unknown {
    let row: Record<string, unknown> | undefined;
    try {
      row = this.statement.get(...params);
    } catch (error) {
      throw withSqliteCode(error);
    }
    return row === undefined ? undefined : this.#shape(row);
  }

  all(...params: unknown[]): unknown[] {
    let rows: Record<string, unknown>[];
    try {
      rows = this.statement.all(...params);
    } catch (error) {
      throw withSqliteCode(error);
    }
    return rows.map((row) => this.#shape(row));
  }

  *iterate(...params: unknown[]): IterableIterator<unknown> {
    const rows = sqliteCall(() => this.statement.iterate(...params));
    for (const row of rows) yield this.#shape(row);
  }

  pluck(): Statement {
    return new NodeSqliteStatement(this.statement, true, this.onRun);
  }

  /** node:sqlite rows have a null prototype; callers (and assert.deepStrictEqual) expect plain objects. */
  #shape(row: Record<string, unknown>): unknown {
    if (this.plucked) {
      for (const key in row) return row[key];
      return undefined;
    }
    return { ...row };
  }
}

/** BEGIN/COMMIT/END/ROLLBACK (not ROLLBACK TO) run as plain SQL, for inTransaction on old Node. */
function transactionControl(sql: string): 'begin' | 'end' | undefined {
  const match = /^\s*(BEGIN|COMMIT|END|ROLLBACK)\b(\s+TRANSACTION)?\s*(TO\b)?/i.exec(sql);
  if (!match || match[3]) return undefined;
  return match[1]!.toUpperCase() === 'BEGIN' ? 'begin' : 'end';
}

/**
 * Runs a node:sqlite call, giving its errors better-sqlite3's `code`
 * (SQLITE_BUSY, SQLITE_CONSTRAINT_UNIQUE, ...) from their numeric `errcode`,
 * the names the store maps to its own errors.
 */
function sqliteCall<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw withSqliteCode(error);
  }
}

function withSqliteCode(error: unknown): unknown {
  const errcode = (error as { errcode?: unknown }).errcode;
  if (typeof errcode === 'number') (error as { code?: string }).code = sqliteCodeName(errcode);
  return error;
}

/** SQLite's primary result codes, by number (sqlite3.h). */
const PRIMARY = [
  'OK',
  'ERROR',
  'INTERNAL',
  'PERM',
  'ABORT',
  'BUSY',
  'LOCKED',
  'NOMEM',
  'READONLY',
  'INTERRUPT',
  'IOERR',
  'CORRUPT',
  'NOTFOUND',
  'FULL',
  'CANTOPEN',
  'PROTOCOL',
  'EMPTY',
  'SCHEMA',
  'TOOBIG',
  'CONSTRAINT',
  'MISMATCH',
  'MISUSE',
  'NOLFS',
  'AUTH',
  'FORMAT',
  'RANGE',
  'NOTADB',
  'NOTICE',
  'WARNING',
];
/** The extended codes the store tells apart (sqlite3.h: primary | n << 8). */
const EXTENDED: Record<number, string> = {
  275: 'CONSTRAINT_CHECK',
  787: 'CONSTRAINT_FOREIGNKEY',
  1299: 'CONSTRAINT_NOTNULL',
  1555: 'CONSTRAINT_PRIMARYKEY',
  2067: 'CONSTRAINT_UNIQUE',
  264: 'READONLY_RECOVERY',
  520: 'READONLY_CANTLOCK',
  776: 'READONLY_ROLLBACK',
  1032: 'READONLY_DBMOVED',
  1288: 'READONLY_CANTINIT',
  1544: 'READONLY_DIRECTORY',
  261: 'BUSY_RECOVERY',
  517: 'BUSY_SNAPSHOT',
  773: 'BUSY_TIMEOUT',
};

export function sqliteCodeName(errcode: number): string {
  return `SQLITE_${EXTENDED[errcode] ?? PRIMARY[errcode & 0xff] ?? 'ERROR'}`;
}
