/**
 * The search_code index of one workspace: an SQLite database in the data dir
 * with one FTS5 row per file, trigram-tokenized so any substring of three or
 * more characters is found (identifiers, partial names, punctuation) and
 * ranked by bm25. `files` remembers each file's mtime and size, so a daemon
 * that restarts re-reads only what changed.
 */
import Database from 'better-sqlite3';

export interface IndexedFile {
  mtimeMs: number;
  size: number;
}

export interface IndexHit {
  path: string;
  content: string;
}

export class SearchIndex {
  private readonly db: Database.Database;
  private readonly sql;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, mtime REAL NOT NULL, size INTEGER NOT NULL);
      CREATE VIRTUAL TABLE IF NOT EXISTS code USING fts5(path UNINDEXED, content, tokenize = 'trigram');
    `);
    const p = (source: string) => this.db.prepare(source);
    this.sql = {
      file: p(`SELECT id, mtime, size FROM files WHERE path = ?`),
      paths: p(`SELECT path FROM files`).pluck(),
      insertFile: p(`INSERT INTO files (path, mtime, size) VALUES (?, ?, ?)`),
      updateFile: p(`UPDATE files SET mtime = ?, size = ? WHERE id = ?`),
      deleteFile: p(`DELETE FROM files WHERE id = ?`),
      insertCode: p(`INSERT INTO code (rowid, path, content) VALUES (?, ?, ?)`),
      deleteCode: p(`DELETE FROM code WHERE rowid = ?`),
      search: p(`SELECT path, content FROM code WHERE code MATCH ? ORDER BY rank`),
      count: p(`SELECT count(*) FROM files`).pluck(),
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
    this.db.transaction(() => {
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
      this.sql.insertCode.run(id, path, content);
    })();
  }

  remove(path: string): void {
    this.put(path, { mtimeMs: 0, size: 0 }, undefined);
  }

  /** Runs `work` in one transaction: a batch of puts costs one commit. */
  batch(work: () => void): void {
    this.db.transaction(work)();
  }

  /** Files containing every term (case-insensitive substrings), best first. */
  *search(terms: readonly string[]): Generator<IndexHit> {
    const match = terms.map((term) => `"${term.replace(/"/g, '""')}"`).join(' ');
    yield* this.sql.search.iterate(match) as IterableIterator<IndexHit>;
  }

  close(): void {
    this.db.close();
  }
}
