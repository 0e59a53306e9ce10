/**
 * The schema, as an ordered list of steps. Step i (0-based) takes a database
 * from `user_version` i to i + 1. Steps are append-only: once shipped, a step
 * is never edited, because databases in the field were built by it. A change
 * to the schema is a new step at the end (and a new case in the migration test).
 */
import type { Database } from './sqlite/index.js';
import { StoreError } from './storeError.js';

export interface Migration {
  /** The `user_version` this step produces. */
  version: number;
  description: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions, turns, messages, trees, per-model usage, approvals',
    sql: `
      CREATE TABLE sessions (
        id              TEXT PRIMARY KEY,
        workspace_root  TEXT NOT NULL,
        title           TEXT NOT NULL DEFAULT '',
        permission_mode TEXT NOT NULL CHECK (permission_mode IN ('plan', 'default', 'auto')),
        chat_context    TEXT NOT NULL,            -- JSON ChatContext
        model           TEXT,
        created_at      TEXT NOT NULL,            -- ISO 8601 UTC, always Date#toISOString()
        updated_at      TEXT NOT NULL
      );
      -- session/list: newest first, keyset pagination on (updated_at, id)
      CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id DESC);
      CREATE INDEX sessions_by_workspace ON sessions (workspace_root, updated_at DESC, id DESC);

      CREATE TABLE turns (
        id          TEXT PRIMARY KEY,
        session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        status      TEXT NOT NULL CHECK (status IN ('running', 'complete', 'cancelled', 'budget_exceeded',
                                                   'max_iterations', 'error', 'interrupted')),
        stop_reason TEXT,
        error       TEXT,
        started_at  TEXT NOT NULL,
        ended_at    TEXT,
        usage       TEXT                          -- JSON Usage of the whole turn
      );
      CREATE INDEX turns_by_session ON turns (session_id);
      CREATE INDEX turns_running ON turns (session_id) WHERE status = 'running';

      CREATE TABLE messages (
        id              TEXT PRIMARY KEY,
        session_id      TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        turn_id         TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
        seq             INTEGER NOT NULL,         -- order within the session, from 1
        role            TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
        content         TEXT NOT NULL,
        provider_fields TEXT,                     -- JSON, exactly as the provider adapter gave it
        created_at      TEXT NOT NULL,
        UNIQUE (session_id, seq)
      );

      CREATE TABLE trees (
        message_id TEXT PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
        snapshot   TEXT NOT NULL                  -- JSON ExecutionTreeSnapshot, version 1
      );

      CREATE TABLE turn_usage (
        turn_id             TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
        provider            TEXT NOT NULL,
        model               TEXT NOT NULL,
        calls               INTEGER NOT NULL,
        input_tokens        INTEGER NOT NULL,
        output_tokens       INTEGER NOT NULL,
        cached_input_tokens INTEGER,
        reasoning_tokens    INTEGER,
        cost                REAL,                 -- USD; NULL when the price is unknown
        PRIMARY KEY (turn_id, provider, model)
      );

      CREATE TABLE approvals (
        id           INTEGER PRIMARY KEY,
        session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        turn_id      TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
        tool_call_id TEXT NOT NULL,
        tool         TEXT NOT NULL,
        args_digest  TEXT NOT NULL CHECK (length(args_digest) = 64), -- sha256 hex; raw args never stored
        decision     TEXT CHECK (decision IN ('allow', 'allowForSession', 'deny')),
        outcome      TEXT NOT NULL CHECK (outcome IN ('approved', 'rejected', 'timed_out', 'cancelled', 'not_required')),
        decided_by   TEXT,                        -- clientId of the deciding client
        decided_at   TEXT NOT NULL
      );
      CREATE INDEX approvals_by_session ON approvals (session_id, id);
    `,
  },
  {
    version: 2,
    description: 'per-session event log for session/attach replay',
    sql: `
      CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        method     TEXT NOT NULL,
        params     TEXT NOT NULL,                 -- JSON params of the notification as sent
        PRIMARY KEY (session_id, seq)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 3,
    description: 'indexes that keep cascading deletes of turns and messages off full scans',
    sql: `
      CREATE INDEX messages_by_turn ON messages (turn_id);
      CREATE INDEX approvals_by_turn ON approvals (turn_id);
    `,
  },
  {
    version: 4,
    description:
      'the process that runs each turn, so a second daemon on the same data dir leaves it alone',
    sql: `
      ALTER TABLE turns ADD COLUMN owner_pid INTEGER;  -- NULL: written before version 4, owner unknown
    `,
  },
  {
    version: 5,
    description:
      'what the user saw of each turn: its text and tool cards in stream order, and its cost/summary',
    sql: `
      ALTER TABLE messages ADD COLUMN parts TEXT;      -- JSON StoredPart[]; NULL: stored before version 5
      ALTER TABLE turns ADD COLUMN cost TEXT;          -- JSON StoredTurnCost; NULL: none sent, or before version 5
    `,
  },
  {
    version: 6,
    description: 'per-model prompt-cache writes (Usage.cacheWriteInputTokens, protocol 1.1)',
    sql: `
      ALTER TABLE turn_usage ADD COLUMN cache_write_input_tokens INTEGER;  -- NULL: none reported, or before version 6
    `,
  },
  {
    version: 7,
    description:
      'the context engine: artifacts (tool results kept out of the model context) and each turn as the model saw it',
    sql: `
      CREATE TABLE artifacts (
        id           TEXT PRIMARY KEY,            -- art_<uuid>, named in the reduced text
        session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        turn_id      TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        content      TEXT NOT NULL,               -- the full tool result
        tokens       INTEGER NOT NULL,            -- its size as the engine counted it
        reduced      TEXT NOT NULL,               -- what the model was given instead (reduced or offloaded)
        created_at   TEXT NOT NULL
      );
      CREATE INDEX artifacts_by_session ON artifacts (session_id);

      CREATE TABLE turn_contexts (
        turn_id    TEXT PRIMARY KEY REFERENCES turns (id) ON DELETE CASCADE,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        messages   TEXT NOT NULL                  -- JSON: the turn's provider messages, reduced where they were sent so
      );
      CREATE INDEX turn_contexts_by_session ON turn_contexts (session_id);
    `,
  },
  {
    version: 8,
    description:
      "each session's plan, the entries of its last plan/update (session/load returns it)",
    sql: `
      ALTER TABLE sessions ADD COLUMN plan TEXT;  -- JSON PlanEntry[]; NULL: never had one, or before version 8
    `,
  },
  {
    version: 9,
    description:
      'checkpoints: the workspace snapshots around each turn that changed files, and where its turns left it',
    sql: `
      CREATE TABLE turn_checkpoints (
        turn_id    TEXT PRIMARY KEY REFERENCES turns (id) ON DELETE CASCADE,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        before_id  TEXT NOT NULL,                 -- shadow-repository commit before the turn's first change
        after_id   TEXT NOT NULL,                 -- and when the turn ended
        paths      TEXT NOT NULL,                 -- JSON string[]: every file the turn changed, workspace-relative
        created_at TEXT NOT NULL
      );
      CREATE INDEX turn_checkpoints_by_session ON turn_checkpoints (session_id);
      -- The workspace as the session's last turn or restore left it: what a restore expects to find.
      ALTER TABLE sessions ADD COLUMN checkpoint_head TEXT;
    `,
  },
  {
    version: 10,
    description:
      'approvals: the decision allowAlways (protocol 1.1), which saves a permission rule',
    // SQLite cannot change a CHECK constraint in place: the table is rebuilt with its rows.
    sql: `
      CREATE TABLE approvals_v10 (
        id           INTEGER PRIMARY KEY,
        session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        turn_id      TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
        tool_call_id TEXT NOT NULL,
        tool         TEXT NOT NULL,
        args_digest  TEXT NOT NULL CHECK (length(args_digest) = 64), -- sha256 hex; raw args never stored
        decision     TEXT CHECK (decision IN ('allow', 'allowForSession', 'allowAlways', 'deny')),
        outcome      TEXT NOT NULL CHECK (outcome IN ('approved', 'rejected', 'timed_out', 'cancelled', 'not_required')),
        decided_by   TEXT,                        -- clientId of the deciding client
        decided_at   TEXT NOT NULL
      );
      INSERT INTO approvals_v10 SELECT * FROM approvals;
      DROP TABLE approvals;
      ALTER TABLE approvals_v10 RENAME TO approvals;
      CREATE INDEX approvals_by_session ON approvals (session_id, id);
    `,
  },
  {
    version: 11,
    description: "each session's agent profile (session/new agent, protocol 1.1)",
    sql: `
      ALTER TABLE sessions ADD COLUMN agent TEXT;  -- the profile's name; NULL: none, or before version 11
    `,
  },
  {
    version: 12,
    description: "what an agent profile's data policy kept out of a turn's message (protocol 1.1)",
    sql: `
      ALTER TABLE messages ADD COLUMN omitted TEXT;  -- JSON OmittedData[]; NULL: all kept, or before version 12
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database to SCHEMA_VERSION, one transaction per step. Each step
 * re-reads `user_version` under the write lock, so two processes opening the
 * same new file at once do not both apply a step.
 */
export function migrate(db: Database, path: string): void {
  const current = () => db.pragma('user_version', { simple: true }) as number;
  if (current() > SCHEMA_VERSION) {
    throw tooNew(current(), path);
  }
  for (const step of MIGRATIONS) {
    db.transaction(() => {
      const version = current();
      if (version > SCHEMA_VERSION) throw tooNew(version, path);
      if (version !== step.version - 1) return;
      try {
        db.exec(step.sql);
      } catch (cause) {
        throw new StoreError(
          'database_unusable',
          `Migrating ${path} to schema version ${step.version} (${step.description}) failed: ` +
            `${(cause as Error).message}. The database was left at version ${version}; ` +
            'move the file aside to start with an empty store.',
          path,
          { cause },
        );
      }
      db.pragma(`user_version = ${step.version}`);
    }).immediate();
  }
}

function tooNew(found: number, path: string): StoreError {
  return new StoreError(
    'schema_too_new',
    `The database ${path} has schema version ${found}, but this Arbor only knows versions up to ` +
      `${SCHEMA_VERSION}. It was written by a newer Arbor: upgrade Arbor, or point --data-dir at another directory.`,
    path,
  );
}
