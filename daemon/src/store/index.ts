/**
 * store/ — SQLite persistence of sessions, messages, execution trees, usage,
 * approvals and the per-session event log. The session manager is its only
 * caller: openStore() at startup, then markInterruptedTurns(), then the
 * methods of Store. Nothing here knows about connections or the wire.
 */
export {
  BUSY_TIMEOUT_MS,
  CHARS_PER_TOKEN,
  EVENT_PRUNE_BATCH,
  EVENT_RETENTION,
  TITLE_MAX_CHARS,
  Store,
  estimateTokens,
  openStore,
} from './store.js';
export type {
  ApprovalRecord,
  EventsSince,
  HistoryEntry,
  ListSessionsOptions,
  LoadedSession,
  NewSession,
  SessionPage,
  SessionPatch,
  StoreOptions,
  StoredApproval,
  StoredEvent,
  TurnCommit,
  TurnRecord,
  TurnStatus,
} from './store.js';
export { StoreError, type StoreErrorCode } from './storeError.js';
export { digestArgs } from './argsDigest.js';
export { ContextTables } from './contextTables.js';
export {
  CheckpointTables,
  type SessionCheckpointStore,
  type TurnCheckpointRecord,
} from './checkpointTables.js';
export { DATABASE_FILE_NAME, DATABASE_FILE_MODE, DATA_DIR_MODE } from './dataDir.js';
export { sqliteBackend, type SqliteBackend } from './sqlite/index.js';
export { MIGRATIONS, SCHEMA_VERSION, type Migration } from './migrations.js';
