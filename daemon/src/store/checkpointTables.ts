/**
 * The checkpoint tables (schema version 9): for each turn that changed
 * workspace files, the snapshots before and after it and the files it
 * changed; for each session, the snapshot its turns (or its last restore)
 * left the workspace in. Rows go with their session.
 */
import type { Database } from './sqlite/index.js';

export interface TurnCheckpointRecord {
  turnId: string;
  beforeId: string;
  afterId: string;
  /** Every file the turn changed, workspace-relative. */
  paths: string[];
}

interface TurnCheckpointRow {
  turn_id: string;
  before_id: string;
  after_id: string;
  paths: string;
}

/** One session's checkpoints, as SessionCheckpoints reads and writes them. */
export interface SessionCheckpointStore {
  /** The session's turns that changed files, oldest first. */
  turns(): TurnCheckpointRecord[];
  /** Records a turn's checkpoints and makes its after-snapshot the head. */
  saveTurn(record: TurnCheckpointRecord): void;
  head(): string | undefined;
  setHead(checkpointId: string): void;
}

export class CheckpointTables {
  private readonly sql;

  constructor(
    db: Database,
    /** The store's write path (write lock at BEGIN, disk-reserve handling). */
    private readonly write: <T>(fn: () => T) => T,
    private readonly timestamp: () => string,
  ) {
    const p = (source: string) => db.prepare(source);
    this.sql = {
      insert: p(
        `INSERT OR REPLACE INTO turn_checkpoints (turn_id, session_id, before_id, after_id, paths, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      // rowid order is the order the turns ended in.
      turns: p(
        `SELECT turn_id, before_id, after_id, paths FROM turn_checkpoints
         WHERE session_id = ? ORDER BY rowid`,
      ),
      head: p(`SELECT checkpoint_head FROM sessions WHERE id = ?`).pluck(),
      setHead: p(`UPDATE sessions SET checkpoint_head = ? WHERE id = ?`),
    };
  }

  of(sessionId: string): SessionCheckpointStore {
    const { sql } = this;
    return {
      turns: () =>
        (sql.turns.all(sessionId) as TurnCheckpointRow[]).map((row) => ({
          turnId: row.turn_id,
          beforeId: row.before_id,
          afterId: row.after_id,
          paths: JSON.parse(row.paths) as string[],
        })),
      saveTurn: (record) =>
        this.write(() => {
          sql.insert.run(
            record.turnId,
            sessionId,
            record.beforeId,
            record.afterId,
            JSON.stringify(record.paths),
            this.timestamp(),
          );
          sql.setHead.run(record.afterId, sessionId);
        }),
      head: () => (sql.head.get(sessionId) as string | null | undefined) ?? undefined,
      setHead: (checkpointId) => this.write(() => sql.setHead.run(checkpointId, sessionId)),
    };
  }
}
