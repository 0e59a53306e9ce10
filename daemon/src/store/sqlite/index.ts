/**
 * The daemon's one way to open an SQLite database, on whatever Node runs it.
 *
 * Two backends behind one interface (database.ts):
 * - better-sqlite3, the first choice: fast, mature, and what the daemon was
 *   built on. Its native binding is compiled for one Node ABI (the .vsix
 *   ships it built for Node 20), so it loads only there, and in development.
 * - node:sqlite (Node >= 22.13, FTS5 included): needs no native code, so the
 *   daemon also runs on a user's Node 22/24 and on VS Code's own runtime
 *   (ELECTRON_RUN_AS_NODE), where no prebuilt binding could match.
 * The choice is made once per process by trying the binding on an in-memory
 * database. ARBOR_SQLITE_BACKEND=better-sqlite3|node:sqlite forces one (tests).
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database, OpenOptions, SqliteBackend } from './database.js';
import { loadNodeSqlite, openNodeSqlite } from './nodeSqlite.js';

export type {
  Database,
  OpenOptions,
  RunResult,
  SqlValue,
  SqliteBackend,
  Statement,
  Transaction,
} from './database.js';

/** Neither backend runs on this Node: nothing is wrong with the database file. */
export class SqliteUnavailableError extends Error {
  override readonly name = 'SqliteUnavailableError';
}

type Opener = (path: string, options: OpenOptions) => Database;

let chosen: { backend: SqliteBackend; open: Opener } | undefined;

/** Opens (creating unless `fileMustExist`) the database at `path` with this runtime's backend. */
export function openDatabase(path: string, options: OpenOptions = {}): Database {
  return chooseBackend().open(path, options);
}

/** Which backend openDatabase uses in this process; throws SqliteUnavailableError if none. */
export function sqliteBackend(): SqliteBackend {
  return chooseBackend().backend;
}

function chooseBackend(): { backend: SqliteBackend; open: Opener } {
  if (chosen) return chosen;
  const forced = process.env.ARBOR_SQLITE_BACKEND;
  if (
    forced !== undefined &&
    forced !== '' &&
    forced !== 'better-sqlite3' &&
    forced !== 'node:sqlite'
  )
    throw new SqliteUnavailableError(
      `ARBOR_SQLITE_BACKEND is "${forced}"; use "better-sqlite3" or "node:sqlite".`,
    );
  const reasons: string[] = [];
  if (forced !== 'node:sqlite') {
    try {
      chosen = { backend: 'better-sqlite3', open: betterSqlite3() };
      return chosen;
    } catch (error) {
      reasons.push(`better-sqlite3: ${describe(error)}`);
    }
  }
  if (forced !== 'better-sqlite3') {
    try {
      loadNodeSqlite();
      chosen = { backend: 'node:sqlite', open: openNodeSqlite };
      return chosen;
    } catch (error) {
      reasons.push(`node:sqlite: ${describe(error)}`);
    }
  }
  throw new SqliteUnavailableError(
    `Node ${process.version} cannot run Arbor's database (${reasons.join('; ')}). ` +
      'Run the daemon with Node 20, or Node 22.13 or newer.',
  );
}

/** better-sqlite3's opener, once its native binding has proved it loads in this runtime. */
function betterSqlite3(): Opener {
  // Loaded lazily, not imported: on a Node its binding was not built for the
  // import itself must not fail the daemon.
  const Driver = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  new Driver(':memory:').close();
  return (path, options) =>
    new Driver(path, {
      fileMustExist: options.fileMustExist ?? false,
      readonly: options.readonly ?? false,
    }) satisfies Database;
}

function describe(error: unknown): string {
  // The binding's ABI complaint spans several lines.
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}
