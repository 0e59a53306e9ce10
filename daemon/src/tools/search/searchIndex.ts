/**
 * The search_code index of one workspace: an SQLite database in the data dir
 * with one FTS5 row per file, trigram-tokenized so any substring of three or
 * more characters is found (identifiers, partial names, punctuation).
 * `files` holds each file's path, mtime and size, so a daemon that restarts
 * re-reads only what changed, and the path filters run on its index.
 *
 * Queries never rank inside SQLite: FTS5's bm25 computes each term's weight
 * over every row that contains it, so a common term ("function") costs a
 * pass over the whole index even with a LIMIT. Matches come out in rowid
 * order instead, where FTS5 stops as soon as the caller has enough, and
 * relevance.ts ranks the few it read.
 */
import { openDatabase, type Database, type Statement } from '../../store/sqlite/index.js';

export interface IndexedFile {
  mtimeMs: number;
  size: number;
}

export interface IndexHit {
  path: string;
  content: string;
}

export interface IndexQuery {
  /** Every one must be in the file (case-insensitive substrings of 3+ characters). */
  terms: readonly string[];
  /** Only files under this directory ('' for all), or this file itself. */
  under: string;
  /** Only paths this matches. */
  include?: RegExp;
  /** A substring of every path `include` matches (3+ characters), to find them fast. */
  includeHint?: string;
}

/** Bumped when the tables change: an index of another version is dropped and rebuilt. */
const SCHEMA_VERSION = 2;
/** Files selected by path this few are searched by reading them, not through FTS5. */
const SMALL_SELECTION_FILES = 1000;
const SMALL_SELECTION_BYTES = 4 * 1024 * 1024;
/** Page cache of one index: the build's merges and the queries' doclists stay in memory. */
const CACHE_KIB = 32 * 1024;

/** `"term"`: an FTS5 string, which the trigram tokenizer turns into a phrase of its trigrams. */
function ftsString(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export class SearchIndex {
  private readonly db: Database;
  private readonly sql;
  /** Prepared match queries by which filters they carry. */
  private readonly matchQueries = new Map<string, Statement>();

  constructor(path: string) {
    this.db = openDatabase(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma(`cache_size = -${CACHE_KIB}`);
    if (this.db.pragma('user_version', { simple: true }) !== SCHEMA_VERSION) {
      this.db.exec(`
        DROP TABLE IF EXISTS code;
        DROP TABLE IF EXISTS files;
        CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, mtime REAL NOT NULL, size INTEGER NOT NULL);
        CREATE VIRTUAL TABLE code USING fts5(content, tokenize = 'trigram', columnsize = 0);
        PRAGMA user_version = ${SCHEMA_VERSION};
      `);
    }
    // `path REGEXP pattern` for the glob filter; one RegExp per pattern source.
    const patterns = new Map<string, RegExp>();
    this.db.function('regexp', { deterministic: true }, (source, value) => {
      let regex = patterns.get(String(source));
      if (regex === undefined) {
        if (patterns.size > 100) patterns.clear();
        regex = new RegExp(String(source));
        patterns.set(String(source), regex);
      }
      return regex.test(String(value)) ? 1 : 0;
    });
    const p = (source: string) => this.db.prepare(source);
    this.sql = {
      file: p(`SELECT id, mtime, size FROM files WHERE path = ?`),
      paths: p(`SELECT path FROM files`).pluck(),
      insertFile: p(`INSERT INTO files (path, mtime, size) VALUES (?, ?, ?)`),
      updateFile: p(`UPDATE files SET mtime = ?, size = ? WHERE id = ?`),
      deleteFile: p(`DELETE FROM files WHERE id = ?`),
      insertCode: p(`INSERT INTO code (rowid, content) VALUES (?, ?)`),
      deleteCode: p(`DELETE FROM code WHERE rowid = ?`),
      count: p(`SELECT count(*) FROM files`).pluck(),

      idRange: p(
        `SELECT min(id) AS lo, max(id) AS hi FROM files WHERE path = @under OR (path >= @below AND path < @after)`,
      ),
      underRows: p(
        `SELECT id, path, size FROM files WHERE path = @under OR (path >= @below AND path < @after)`,
      ),
      pathsLike: p(`SELECT id, path, size FROM files WHERE path LIKE ? ESCAPE '\\'`),
      // No MATCH with it: FTS5 would run the whole full-text query for each lookup.
      content: p(`SELECT content FROM code WHERE rowid = ?`).pluck(),
      begin: p('BEGIN'),
      commit: p('COMMIT'),
      rollback: p('ROLLBACK'),
    };
  }

  /** What the index holds for `path`, to skip files that did not change. */
  stamp(path: string): IndexedFile | undefined {
    const row = this.sql.file.get(path) as { mtime: number; size: number } | undefined;
    return row && { mtimeMs: row.mtime, size: row.size };
  }

  paths(): string[] {
    return this.sql.paths.all() as string[];
  }

  get fileCount(): number {
    return this.sql.count.get() as number;
  }

  /** Adds or replaces a file; `content` undefined removes it (gone, binary, too large, ignored). */
  put(path: string, stamp: IndexedFile, content: string | undefined): void {
    const work = (): void => {
      const row = this.sql.file.get(path) as { id: number } | undefined;
      if (row) this.sql.deleteCode.run(row.id);
      if (content === undefined) {
        if (row) this.sql.deleteFile.run(row.id);
        return;
      }
      let id = row?.id;
      if (id === undefined)
        id = Number(this.sql.insertFile.run(path, stamp.mtimeMs, stamp.size).lastInsertRowid);
      else this.sql.updateFile.run(stamp.mtimeMs, stamp.size, id);
      this.sql.insertCode.run(id, content);
    };
    // Inside the build's transaction a savepoint per file would only cost.
    if (this.db.inTransaction) work();
    else this.db.transaction(work)();
  }

  remove(path: string): void {
    this.put(path, { mtimeMs: 0, size: 0 }, undefined);
  }

  /** Runs `work` in one transaction: a batch of puts costs one commit. */
  batch(work: () => void): void {
    this.db.transaction(work)();
  }

  /**
   * Opens a transaction that stays open across turns of the event loop
   * (the build's): FTS5 writes a segment per commit and merges them later,
   * so a few large commits build the index about twice as fast as many small
   * ones. Searches on this connection meanwhile see what is written so far.
   */
  begin(): void {
    if (!this.db.inTransaction) this.sql.begin.run();
  }

  commit(): void {
    if (this.db.inTransaction) this.sql.commit.run();
  }

  /** Folds the write-ahead log into the database file and truncates it (after a build). */
  checkpoint(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  rollback(): void {
    if (this.db.open && this.db.inTransaction) this.sql.rollback.run();
  }

  /**
   * Files containing every term, in index order (no ranking: see the top),
   * with the path filters applied in SQL. Lazy: stop iterating and FTS5
   * reads no further.
   */
  *matches(query: IndexQuery): Generator<IndexHit> {
    const small = this.smallSelection(query);
    if (small !== undefined) {
      yield* small;
      return;
    }
    const filters: string[] = [];
    const params: Record<string, string | bigint> = {
      match: query.terms.map(ftsString).join(' '),
    };
    if (query.under !== '') {
      // The directory's files sort between "dir/" and "dir0" ('0' follows '/').
      const range = { under: query.under, below: `${query.under}/`, after: `${query.under}0` };
      // Ids follow the walk of the first build, so a directory's files mostly
      // have neighbouring ids: FTS5 seeks to them instead of going through all.
      const ids = this.sql.idRange.get(range) as { lo: number | null; hi: number | null };
      if (ids.lo === null || ids.hi === null) return;
      filters.push(`(f.path = @under OR (f.path >= @below AND f.path < @after))`);
      // Bound as integers: better-sqlite3 binds numbers as REAL, and with MATCH
      // FTS5 disregards `rowid = <real>` (a range still works; integers to be safe).
      filters.push(`code.rowid BETWEEN @lo AND @hi`);
      Object.assign(params, range, { lo: BigInt(ids.lo), hi: BigInt(ids.hi) });
    }
    if (query.include) {
      filters.push(`f.path REGEXP @include`);
      params.include = query.include.source;
    }
    const key = filters.join(' AND ');
    let statement = this.matchQueries.get(key);
    if (statement === undefined) {
      // CROSS JOIN keeps FTS5 the outer loop: one index lookup per match,
      // never one full-text query per file of a large directory.
      statement = this.db.prepare(
        `SELECT f.path AS path, code.content AS content FROM code CROSS JOIN files f ON f.id = code.rowid
         WHERE code MATCH @match${filters.map((filter) => ` AND ${filter}`).join('')}`,
      );
      this.matchQueries.set(key, statement);
    }
    yield* statement.iterate(params) as IterableIterator<IndexHit>;
  }

  /**
   * The matching files among those the path filters select, read directly
   * when they are few: FTS5 would go through every file of the tree holding
   * the terms to find the few among them, tens of milliseconds for a common
   * term. Undefined when there is no filter or it selects too much.
   */
  private smallSelection(query: IndexQuery): IndexHit[] | undefined {
    const { under, include, includeHint } = query;
    let rows: IterableIterator<{ id: number; path: string; size: number }>;
    if (under !== '')
      rows = this.sql.underRows.iterate({ under, below: `${under}/`, after: `${under}0` }) as never;
    else if (include !== undefined && includeHint !== undefined && includeHint.length >= 3)
      rows = this.sql.pathsLike.iterate(`%${likeEscape(includeHint)}%`) as never;
    else return undefined;
    const chosen: { id: number; path: string }[] = [];
    let bytes = 0;
    for (const row of rows) {
      if (include && !include.test(row.path)) continue;
      chosen.push(row);
      bytes += row.size;
      if (chosen.length > SMALL_SELECTION_FILES || bytes > SMALL_SELECTION_BYTES) return undefined;
    }
    const lowered = query.terms.map((term) => term.toLowerCase());
    const hits: IndexHit[] = [];
    for (const { id, path } of chosen) {
      const content = this.sql.content.get(id) as string | undefined;
      if (content === undefined) continue;
      const text = content.toLowerCase();
      if (lowered.every((term) => text.includes(term))) hits.push({ path, content });
    }
    return hits;
  }

  /**
   * Up to `limit` files whose name (the last path segment) contains one of
   * the terms, with the query's filters: the ones a ranking over part of the
   * matches must not miss. Whether they hold every term is left to the
   * caller, which reads their text anyway.
   */
  namedMatches(query: IndexQuery, limit: number): IndexHit[] {
    const lowered = query.terms.map((term) => term.toLowerCase());
    const hits: IndexHit[] = [];
    const seen = new Set<number>();
    // A term in a common directory name finds many paths: look at a bounded number.
    let probes = limit * 20;
    for (const term of query.terms) {
      for (const row of this.sql.pathsLike.iterate(`%${likeEscape(term)}%`) as IterableIterator<{
        id: number;
        path: string;
      }>) {
        if (hits.length >= limit || probes <= 0) return hits;
        if (seen.has(row.id)) continue;
        seen.add(row.id);
        probes -= 1;
        const name = row.path.slice(row.path.lastIndexOf('/') + 1).toLowerCase();
        if (!lowered.some((t) => name.includes(t))) continue;
        const { under, include } = query;
        if (under !== '' && row.path !== under && !row.path.startsWith(`${under}/`)) continue;
        if (include && !include.test(row.path)) continue;
        const content = this.sql.content.get(row.id) as string | undefined;
        if (content !== undefined) hits.push({ path: row.path, content });
      }
    }
    return hits;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
