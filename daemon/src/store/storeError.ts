/**
 * The one error type the store throws on purpose. `code` lets the session
 * manager map it to a protocol error (e.g. `not_found` -> SessionNotFound);
 * `message` is written for the person starting the daemon.
 */
export type StoreErrorCode =
  /** The data dir is missing and could not be created (or is not a directory). */
  | 'data_dir_unavailable'
  /** The data dir or the database file cannot be written. */
  | 'data_dir_read_only'
  /** The data dir is writable by other users: its token and sessions are not private. */
  | 'data_dir_unsafe'
  /** The database was written by a newer Arbor: its schema version is unknown here. */
  | 'schema_too_new'
  /** This Node cannot run SQLite (no backend loads); the database itself is untouched. */
  | 'sqlite_unavailable'
  /** The file is not a usable SQLite database, or a migration failed. */
  | 'database_unusable'
  /** A session or turn that the call names does not exist. */
  | 'not_found'
  /** A listSessions cursor that this store did not produce. */
  | 'invalid_cursor'
  /** The call contradicts the stored state (e.g. committing a turn that already ended). */
  | 'conflict'
  /** The disk holding the data dir is full: the write did not happen. */
  | 'disk_full';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    /** The file or directory concerned, when there is one. */
    readonly path?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
