/**
 * One write transaction per pass of the event loop. A turn emits its events
 * one by one (state, tree nodes, text, cost), each appended to the event log
 * before any client sees it; committing each on its own made SQLite's BEGIN
 * and COMMIT (locks, WAL frames) the largest cost of a short turn. Writes
 * made in one pass join one transaction instead, committed when the pass
 * ends, or sooner by the store's other writes (which then commit at once, as
 * their callers expect) and by a connection about to send (so no frame
 * leaves before what it reports is committed: stored before sent).
 */
import type { Database, Statement } from './sqlite/index.js';

/** The store's side of "stored before sent" for a connection (Store.commitPending, Store.droppedCommits). */
export interface StoreCommits {
  /** Commits the events stored in this pass; throws when they had to be dropped. */
  commitPending(): void;
  /** Grows each time a failed commit dropped stored events. */
  readonly droppedCommits: number;
}

export class PassTransaction {
  private readonly begin: Statement;
  private readonly commitStatement: Statement;
  private readonly rollbackStatement: Statement;
  /** Runs its argument; inside the open transaction, as a savepoint. */
  private readonly savepoint: (fn: () => unknown) => unknown;
  private scheduled = false;
  /** Calls of run() in progress: nothing commits in the middle of one. */
  private depth = 0;
  /** A transaction of ours is open (SQLite may have ended it on an error: see run). */
  private open = false;
  /** The writes in the open transaction, to write again after a failed COMMIT (redo). */
  private writes: (() => unknown)[] = [];

  constructor(
    private readonly db: Database,
    /** The end of the pass, where the store commits what is still open. */
    private readonly onPassEnd: () => void,
  ) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commitStatement = db.prepare('COMMIT');
    this.rollbackStatement = db.prepare('ROLLBACK');
    this.savepoint = db.transaction((fn: () => unknown) => fn());
  }

  /** Whether writes are waiting for commit(). */
  get pending(): boolean {
    return this.open;
  }

  /** Whether a run() is in progress (its caller commits, not a nested write). */
  get nested(): boolean {
    return this.depth > 0;
  }

  /**
   * Runs `fn` in the pass's transaction, opening it (write lock at BEGIN) when
   * none is. A throw undoes `fn`'s writes only; the pass's others stay.
   */
  run<T>(fn: () => T): T {
    if (!this.open) {
      this.begin.run();
      this.open = true;
      this.writes = [];
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.onPassEnd();
        });
      }
    }
    this.depth++;
    try {
      const result = this.savepoint(fn) as T;
      this.writes.push(fn);
      return result;
    } finally {
      this.depth--;
    }
  }

  /**
   * Commits the open transaction, if any. When COMMIT fails, or SQLite ended
   * the transaction on an earlier error (its writes are lost), everything is
   * rolled back and the error thrown; redo() may then write it all again.
   */
  commit(): void {
    if (!this.open) return;
    try {
      if (!this.db.inTransaction) throw new Error('SQLite rolled the transaction back');
      this.commitStatement.run();
    } catch (error) {
      this.rollback();
      throw error;
    }
    this.open = false;
    this.writes = [];
  }

  /** After a failed commit(): the same writes again, in a new transaction, committed. */
  redo(): void {
    const writes = this.writes;
    this.begin.run();
    this.open = true;
    try {
      for (const write of writes) this.savepoint(write);
    } catch (error) {
      this.rollback();
      throw error;
    }
    this.writes = writes;
    this.commit();
  }

  /** Drops the open transaction's writes: for when they cannot be committed. */
  rollback(): void {
    if (this.db.inTransaction) this.rollbackStatement.run();
    this.open = false;
  }
}
