/**
 * Arbor's persistence: sessions, messages, execution trees, usage, approvals
 * and the per-session event log, in one SQLite file in the data dir.
 *
 * Durability contract (what the session manager relies on):
 * - appendUserMessage commits the user's message before the turn's first LLM
 *   call; commitTurn writes everything a turn produced in ONE transaction, so
 *   a reader sees a turn either running or complete, never half-written.
 * - A process crash loses no committed transaction (WAL, synchronous=NORMAL;
 *   a power cut may lose the last few, never corrupts the file).
 * - Every write method commits before it returns, except appendEvent: the
 *   events of one pass of the event loop share one transaction, committed
 *   when the pass ends, by the next other write, or by commitPending(), which
 *   a connection calls before its frames leave (passTransaction.ts).
 * - Turns still `running` when a daemon died become `interrupted` through
 *   markInterruptedTurns(), which the daemon calls once at startup; their
 *   partial answer and tree are rebuilt from the event log (turnReplay.ts).
 *
 * Every method is synchronous (SQLite through ./sqlite/: better-sqlite3 or
 * node:sqlite, whichever this Node runs): a call is atomic with respect
 * to the event loop, and writes take the write lock up front (BEGIN IMMEDIATE)
 * so several connections or processes on one file wait (busy_timeout) instead
 * of failing with SQLITE_BUSY.
 */
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { openDatabase, SqliteUnavailableError, type Database } from './sqlite/index.js';
import type { z } from 'zod';
import {
  Methods,
  type ApprovalDecision,
  type ApprovalOutcome,
  type ExecutionTreeSnapshot,
  type MessageStatus,
  type ModelCost,
  type OmittedData,
  type PermissionMode,
  type PlanEntry,
  type SessionInfo,
  type SessionListResult,
  type SessionLoadResult,
  type SessionNewParams,
  type StopReason,
  type StoredMessage,
  type StoredPart,
  type StoredTurnCost,
  type Usage,
} from '@arbor/protocol';
import { digestArgs } from './argsDigest.js';
import { prepareDataDir, restrictDatabaseFiles } from './dataDir.js';
import { DiskReserve, LAST_WORDS_BYTES } from './diskReserve.js';
import { migrate } from './migrations.js';
import { decodeSessionCursor, encodeSessionCursor } from './sessionCursor.js';
import { StoreError } from './storeError.js';
import { ContextTables } from './contextTables.js';
import { CheckpointTables } from './checkpointTables.js';
import { replayTurn, type StoredEventRow } from './turnReplay.js';
import { PassTransaction } from './passTransaction.js';

/** The file in the data dir that keeps disk space for a full disk's last writes (diskReserve.ts). */
export const DISK_RESERVE_FILE = 'disk-reserve';
/** The smaller reserve only a turn's end may use (Store.commitPending lastWords). */
export const LAST_WORDS_RESERVE_FILE = 'disk-reserve-last';

/** Events kept per session for `session/attach` replay; older ones get a snapshot instead. */
export const EVENT_RETENTION = 10_000;
/** Pruning runs once per this many appends to a session, so the log holds at most RETENTION + BATCH - 1. */
export const EVENT_PRUNE_BATCH = 500;
/** historyForNextTurn estimates tokens as ceil(characters / CHARS_PER_TOKEN) per message. */
export const CHARS_PER_TOKEN = 4;
/** A session without a title gets the first line of its first user message, cut to this length. */
export const TITLE_MAX_CHARS = 80;
/** How long a write waits for another connection's write lock before failing. */
export const BUSY_TIMEOUT_MS = 10_000;

export type TurnStatus = 'running' | z.infer<typeof MessageStatus>;

export interface StoreOptions {
  /** Events kept per session (default EVENT_RETENTION). */
  eventRetention?: number;
  /** Clock for every stored timestamp (default: the system clock). */
  now?: () => Date;
  /** The process recorded as running the turns this store begins (default: this one). */
  ownerPid?: number;
  /** Whether a turn's owner still runs (default: signal 0 to the pid). */
  isProcessAlive?: (pid: number) => boolean;
}

/** Signal 0 checks that a process exists; EPERM means it exists but is another user's. */
function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** session/new params as the store takes them; the session manager may choose the id. */
export type NewSession = z.infer<typeof SessionNewParams> & { sessionId?: string };

export interface SessionPatch {
  title?: string;
  permissionMode?: PermissionMode;
  /** null removes the session's model (it falls back to the daemon default). */
  model?: string | null;
  /** Default: now. */
  updatedAt?: string;
}

export interface ListSessionsOptions {
  workspaceRoot?: string;
  cursor?: string;
  limit: number;
}

export type SessionPage = z.infer<typeof SessionListResult>;
export type LoadedSession = z.infer<typeof SessionLoadResult>;

export interface TurnCommit {
  turnId: string;
  /** The turn's status is derived from it: end_turn -> complete, otherwise the same word. */
  stopReason: StopReason;
  /** The root loop's final text; partial on cancel / budget_exceeded; may be empty. */
  assistantText: string;
  /** Provider-specific fields of the assistant message (reasoning ids, signatures...), kept verbatim. */
  providerFields?: unknown;
  tree: ExecutionTreeSnapshot;
  /** The turn's text runs and nodes in stream order (sessions.md#stored-parts). */
  parts?: readonly StoredPart[];
  /** The turn's cost/summary, when one was sent. */
  cost?: StoredTurnCost;
  usage: Usage;
  byModel: readonly ModelCost[];
  /** With stopReason `error`: the message shown to the user. */
  error?: string;
  /** What the agent profile's data policy kept out of the turn (sessions.md#stored-omitted); absent: nothing. */
  omitted?: readonly OmittedData[];
  /** Tool results to keep as `tool` messages, stored before the assistant message. */
  toolMessages?: readonly { content: string; providerFields?: unknown }[];
}

export interface TurnRecord {
  turnId: string;
  sessionId: string;
  status: TurnStatus;
  stopReason?: StopReason;
  error?: string;
  startedAt: string;
  endedAt?: string;
  usage?: Usage;
}

export interface ApprovalRecord {
  sessionId: string;
  turnId: string;
  toolCallId: string;
  tool: string;
  /** Digested on the way in (digestArgs); never stored. */
  args: unknown;
  decision?: ApprovalDecision;
  outcome: ApprovalOutcome;
  /** clientId of the deciding client. */
  decidedBy?: string;
  /** Default: now. */
  decidedAt?: string;
}

export interface StoredApproval extends Omit<ApprovalRecord, 'args' | 'decidedAt'> {
  argsDigest: string;
  decidedAt: string;
}

export interface StoredEvent {
  seq: number;
  method: string;
  params: unknown;
}

/** `beyondRetention`: some missed event is gone (or sinceSeq is ahead of the log): send a snapshot. */
export type EventsSince = { events: StoredEvent[] } | { beyondRetention: true };

/** One message of the next turn's history; structurally an agent HistoryMessage. */
export interface HistoryEntry {
  role: 'user' | 'assistant';
  content: string;
  providerFields?: unknown;
}

/** Opens (creating and migrating as needed) the store in `dataDir`; throws StoreError with advice. */
export function openStore(dataDir: string, options: StoreOptions = {}): Store {
  const file = prepareDataDir(dataDir);
  let db: Database;
  try {
    db = openDatabase(file, { fileMustExist: true });
  } catch (cause) {
    throw unusable(file, cause);
  }
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`journal_mode is ${String(mode)}, not wal`);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, file);
    restrictDatabaseFiles(file);
    return new Store(db, file, options);
  } catch (cause) {
    db.close();
    if (cause instanceof StoreError) throw cause;
    throw unusable(file, cause);
  }
}

interface SessionRow {
  id: string;
  workspace_root: string;
  title: string;
  permission_mode: PermissionMode;
  chat_context: string;
  model: string | null;
  /** NULL: none, or stored before version 11. */
  agent: string | null;
  created_at: string;
  updated_at: string;
  running: 0 | 1;
}

interface TurnRow {
  id: string;
  session_id: string;
  status: TurnStatus;
  stop_reason: StopReason | null;
  error: string | null;
  started_at: string;
  ended_at: string | null;
  usage: string | null;
  owner_pid: number | null;
  cost: string | null;
}

interface MessageRow {
  id: string;
  turn_id: string;
  role: 'user' | 'assistant' | 'tool';
  content: string;
  created_at: string;
  provider_fields: string | null;
  status: TurnStatus;
  usage: string | null;
  snapshot: string | null;
  parts: string | null;
  cost: string | null;
  /** NULL: everything was kept, or stored before version 12. */
  omitted: string | null;
}

interface UsageRow {
  provider: string;
  model: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number | null;
  cache_write_input_tokens: number | null;
  reasoning_tokens: number | null;
  cost: number | null;
}

interface ApprovalRow {
  session_id: string;
  turn_id: string;
  tool_call_id: string;
  tool: string;
  args_digest: string;
  decision: ApprovalDecision | null;
  outcome: ApprovalOutcome;
  decided_by: string | null;
  decided_at: string;
}

const SESSION_COLUMNS = `s.*, EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id AND t.status = 'running') AS running`;

export class Store {
  private readonly now: () => Date;
  private readonly eventRetention: number;
  private readonly ownerPid: number;
  private readonly isProcessAlive: (pid: number) => boolean;
  /** Appends per session since this process last pruned its events. */
  private readonly appendsSincePrune = new Map<string, number>();
  private readonly sql;
  private readonly reserve: DiskReserve;
  private readonly lastWords: DiskReserve;
  private contextTables: ContextTables | undefined;
  private checkpointTables: CheckpointTables | undefined;
  private onReserve: string | undefined;
  /** This pass's writes, committed together (passTransaction.ts). */
  private readonly pass: PassTransaction;
  /** Sessions whose numbered events a failed commit dropped: their buses renumber from the log. */
  private readonly eventsDropped = new Set<string>();
  /** Sessions with events in the open pass transaction. */
  private readonly eventsPending = new Set<string>();
  private dropCount = 0;

  /** Use openStore(). */
  constructor(
    private readonly db: Database,
    /** Absolute path of the database file. */
    readonly path: string,
    options: StoreOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.eventRetention = options.eventRetention ?? EVENT_RETENTION;
    this.ownerPid = options.ownerPid ?? process.pid;
    this.reserve = new DiskReserve(join(dirname(path), DISK_RESERVE_FILE));
    this.lastWords = new DiskReserve(
      join(dirname(path), LAST_WORDS_RESERVE_FILE),
      LAST_WORDS_BYTES,
    );
    this.lastWords.ensure();
    this.reserve.ensure();
    this.isProcessAlive = options.isProcessAlive ?? processIsAlive;
    this.pass = new PassTransaction(db, () => {
      try {
        this.commitPending();
      } catch {
        // No caller to tell: the connections see dropCount change and send nothing of it.
      }
    });
    const p = (source: string) => db.prepare(source);
    this.sql = {
      insertSession:
        p(`INSERT INTO sessions (id, workspace_root, title, permission_mode, chat_context, model, agent, created_at, updated_at)
                        VALUES (@id, @workspaceRoot, @title, @permissionMode, @chatContext, @model, @agent, @createdAt, @updatedAt)`),
      getSession: p(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.id = ?`),
      updateSession: p(`UPDATE sessions SET title = coalesce(@title, title),
                          permission_mode = coalesce(@permissionMode, permission_mode),
                          model = CASE WHEN @setModel THEN @model ELSE model END,
                          updated_at = @updatedAt WHERE id = @id`),
      touchSession: p(`UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?`),
      setTitleIfEmpty: p(`UPDATE sessions SET title = ? WHERE id = ? AND title = ''`),
      deleteSession: p(`DELETE FROM sessions WHERE id = ?`),
      listAll: p(
        `SELECT ${SESSION_COLUMNS} FROM sessions s ORDER BY s.updated_at DESC, s.id DESC LIMIT ?`,
      ),
      listAllAfter: p(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE (s.updated_at, s.id) < (?, ?)
                       ORDER BY s.updated_at DESC, s.id DESC LIMIT ?`),
      listRoot: p(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.workspace_root = ?
                   ORDER BY s.updated_at DESC, s.id DESC LIMIT ?`),
      listRootAfter:
        p(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.workspace_root = ? AND (s.updated_at, s.id) < (?, ?)
                        ORDER BY s.updated_at DESC, s.id DESC LIMIT ?`),
      insertTurn: p(
        `INSERT INTO turns (id, session_id, status, started_at, owner_pid) VALUES (?, ?, 'running', ?, ?)`,
      ),
      getTurn: p(`SELECT * FROM turns WHERE id = ?`),
      runningTurnOf: p(`SELECT id FROM turns WHERE session_id = ? AND status = 'running'`),
      endTurn: p(`UPDATE turns SET status = @status, stop_reason = @stopReason, error = @error,
                    ended_at = @endedAt, usage = @usage, cost = @cost WHERE id = @id AND status = 'running'`),
      runningTurns: p(`SELECT id, session_id, owner_pid FROM turns WHERE status = 'running'`),
      setTurnCost: p(`UPDATE turns SET cost = ? WHERE id = ?`),
      interruptTurn:
        p(`UPDATE turns SET status = 'interrupted', stop_reason = 'interrupted', ended_at = ?
                           WHERE id = ? AND status = 'running'`),
      nextMessageSeq: p(
        `SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = ?`,
      ).pluck(),
      insertMessage:
        p(`INSERT INTO messages (id, session_id, turn_id, seq, role, content, provider_fields, created_at, parts, omitted)
                        VALUES (@id, @sessionId, @turnId, @seq, @role, @content, @providerFields, @createdAt, @parts, @omitted)`),
      insertTree: p(`INSERT INTO trees (message_id, snapshot) VALUES (?, ?)`),
      insertUsage:
        p(`INSERT INTO turn_usage (turn_id, provider, model, calls, input_tokens, output_tokens,
                        cached_input_tokens, cache_write_input_tokens, reasoning_tokens, cost)
                      VALUES (@turnId, @provider, @model, @calls, @inputTokens, @outputTokens,
                        @cachedInputTokens, @cacheWriteInputTokens, @reasoningTokens, @cost)`),
      usageOfTurn: p(`SELECT * FROM turn_usage WHERE turn_id = ? ORDER BY rowid`),
      messagesOf: p(`SELECT m.id, m.turn_id, m.role, m.content, m.created_at, m.provider_fields,
                       m.parts, m.omitted, t.status, t.usage, t.cost, tr.snapshot
                     FROM messages m JOIN turns t ON t.id = m.turn_id LEFT JOIN trees tr ON tr.message_id = m.id
                     WHERE m.session_id = ? ORDER BY m.seq`),
      historyOf:
        p(`SELECT m.role, m.content, m.provider_fields FROM messages m JOIN turns t ON t.id = m.turn_id
                    WHERE m.session_id = ? AND m.role IN ('user', 'assistant') AND t.status <> 'running'
                    ORDER BY m.seq DESC`),
      insertApproval:
        p(`INSERT INTO approvals (session_id, turn_id, tool_call_id, tool, args_digest, decision, outcome,
                           decided_by, decided_at)
                         VALUES (@sessionId, @turnId, @toolCallId, @tool, @argsDigest, @decision, @outcome,
                           @decidedBy, @decidedAt)`),
      approvalsOf: p(`SELECT * FROM approvals WHERE session_id = ? ORDER BY id`),
      insertEvent: p(`INSERT INTO events (session_id, seq, method, params) VALUES (?, ?, ?, ?)`),
      setPlan: p(`UPDATE sessions SET plan = ? WHERE id = ?`),
      planOf: p(`SELECT plan FROM sessions WHERE id = ?`),
      pruneEvents: p(`DELETE FROM events WHERE session_id = ? AND seq <= ?`),
      eventBounds: p(`SELECT min(seq) AS first, max(seq) AS last FROM events WHERE session_id = ?`),
      eventsAfter: p(
        `SELECT seq, method, params FROM events WHERE session_id = ? AND seq > ? ORDER BY seq`,
      ),
      lastSeq: p(`SELECT coalesce(max(seq), 0) FROM events WHERE session_id = ?`).pluck(),
      // What replayTurn folds; it picks the turn's own events out of the session's.
      foldableEvents: p(`SELECT method, params FROM events WHERE session_id = ?
                           AND method IN ('tree/update', 'chat/chunk') ORDER BY seq`),
    };
  }

  // ---- sessions -------------------------------------------------------------

  createSession(params: NewSession): SessionInfo {
    const at = this.timestamp();
    const id = params.sessionId ?? randomUUID();
    this.write(() =>
      this.sql.insertSession.run({
        id,
        workspaceRoot: params.workspaceRoot,
        title: params.title ?? '',
        permissionMode: params.permissionMode,
        chatContext: JSON.stringify(params.chatContext),
        model: params.model ?? null,
        agent: params.agent ?? null,
        createdAt: at,
        updatedAt: at,
      }),
    );
    return this.requireSession(id);
  }

  updateSession(sessionId: string, patch: SessionPatch): SessionInfo {
    const result = this.write(() =>
      this.sql.updateSession.run({
        id: sessionId,
        title: patch.title ?? null,
        permissionMode: patch.permissionMode ?? null,
        setModel: patch.model !== undefined ? 1 : 0,
        model: patch.model ?? null,
        updatedAt: this.timestamp(patch.updatedAt),
      }),
    );
    if (result.changes === 0) throw notFound('session', sessionId);
    return this.requireSession(sessionId);
  }

  getSession(sessionId: string): SessionInfo | undefined {
    const row = this.sql.getSession.get(sessionId) as SessionRow | undefined;
    return row && toSessionInfo(row);
  }

  /** Newest first by updatedAt; `nextCursor` is absent on the last page. */
  listSessions(options: ListSessionsOptions): SessionPage {
    const limit = Math.max(1, Math.floor(options.limit));
    const after = options.cursor === undefined ? undefined : decodeSessionCursor(options.cursor);
    const { workspaceRoot } = options;
    const rows = (
      workspaceRoot === undefined
        ? after === undefined
          ? this.sql.listAll.all(limit + 1)
          : this.sql.listAllAfter.all(after.updatedAt, after.id, limit + 1)
        : after === undefined
          ? this.sql.listRoot.all(workspaceRoot, limit + 1)
          : this.sql.listRootAfter.all(workspaceRoot, after.updatedAt, after.id, limit + 1)
    ) as SessionRow[];
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      sessions: page.map(toSessionInfo),
      ...(rows.length > limit && last
        ? { nextCursor: encodeSessionCursor({ updatedAt: last.updated_at, id: last.id }) }
        : {}),
    };
  }

  /** Deletes the session with its turns, messages, trees, usage, approvals and events. */
  deleteSession(sessionId: string): boolean {
    this.appendsSincePrune.delete(sessionId);
    return this.write(() => this.sql.deleteSession.run(sessionId)).changes > 0;
  }

  /**
   * The session, every message in order with its turn's status, each
   * answer's tree and usage, and its plan (the entries of its last plan/update).
   */
  loadSession(sessionId: string): LoadedSession | undefined {
    return this.db
      .transaction((): LoadedSession | undefined => {
        const session = this.getSession(sessionId);
        if (!session) return undefined;
        const rows = this.sql.messagesOf.all(sessionId) as MessageRow[];
        const { plan } = this.sql.planOf.get(sessionId) as { plan: string | null };
        return {
          session,
          messages: rows.map(toStoredMessage),
          ...(plan === null ? {} : { plan: JSON.parse(plan) as PlanEntry[] }),
        };
      })
      .deferred();
  }

  // ---- turns and messages ---------------------------------------------------

  /** Records a running turn. A session runs one turn at a time. */
  beginTurn(sessionId: string, turnId: string): TurnRecord {
    return this.write(() => {
      this.beginTurnInTransaction(sessionId, turnId);
      return this.requireTurn(turnId);
    });
  }

  /**
   * Commits the user's message of a turn (beginning the turn if needed) before
   * the first LLM call. Gives an untitled session its title.
   */
  appendUserMessage(sessionId: string, turnId: string, text: string): StoredMessage {
    return this.write(() => {
      const turn = this.sql.getTurn.get(turnId) as TurnRow | undefined;
      if (!turn) this.beginTurnInTransaction(sessionId, turnId);
      else if (turn.session_id !== sessionId)
        throw conflict(`Turn ${turnId} belongs to another session.`);
      else if (turn.status !== 'running')
        throw conflict(`Turn ${turnId} has already ended (${turn.status}).`);
      const message = this.insertMessage(sessionId, turnId, 'user', text, undefined);
      this.sql.setTitleIfEmpty.run(titleFrom(text), sessionId);
      this.sql.touchSession.run(message.createdAt, sessionId);
      return message;
    });
  }

  /**
   * Ends a running turn and writes what it produced, in one transaction: the
   * turn's status, stop reason and usage, the assistant message (partial text
   * on cancel / budget_exceeded) with its tree, the per-model usage and cost.
   */
  commitTurn(commit: TurnCommit): StoredMessage {
    if (commit.tree.version !== 1)
      throw new TypeError('commitTurn: the tree must be an ExecutionTreeSnapshot version 1');
    const tree = JSON.stringify(commit.tree);
    const usage = JSON.stringify(commit.usage);
    return this.write(() => {
      const turn = this.sql.getTurn.get(commit.turnId) as TurnRow | undefined;
      if (!turn) throw notFound('turn', commit.turnId);
      if (turn.status !== 'running')
        throw conflict(`Turn ${commit.turnId} has already ended (${turn.status}).`);
      const endedAt = this.timestamp();
      this.sql.endTurn.run({
        id: commit.turnId,
        status: statusOf(commit.stopReason),
        stopReason: commit.stopReason,
        error: commit.error ?? null,
        endedAt,
        usage,
        cost: commit.cost === undefined ? null : JSON.stringify(commit.cost),
      });
      for (const tool of commit.toolMessages ?? []) {
        this.insertMessage(
          turn.session_id,
          commit.turnId,
          'tool',
          tool.content,
          tool.providerFields,
        );
      }
      const message = this.insertMessage(
        turn.session_id,
        commit.turnId,
        'assistant',
        commit.assistantText,
        commit.providerFields,
        commit.parts,
        commit.omitted,
      );
      this.sql.insertTree.run(message.id, tree);
      for (const entry of commit.byModel) {
        this.sql.insertUsage.run({
          turnId: commit.turnId,
          provider: entry.provider,
          model: entry.model,
          calls: entry.calls,
          inputTokens: entry.usage.inputTokens,
          outputTokens: entry.usage.outputTokens,
          cachedInputTokens: entry.usage.cachedInputTokens ?? null,
          cacheWriteInputTokens: entry.usage.cacheWriteInputTokens ?? null,
          reasoningTokens: entry.usage.reasoningTokens ?? null,
          cost: entry.cost,
        });
      }
      this.sql.touchSession.run(endedAt, turn.session_id);
      return {
        ...message,
        status: statusOf(commit.stopReason) as StoredMessage['status'],
        tree: commit.tree,
        usage: commit.usage,
        ...(commit.parts && { parts: [...commit.parts] }),
        ...(commit.cost && { cost: commit.cost }),
        ...(commit.omitted && { omitted: [...commit.omitted] }),
      };
    });
  }

  /**
   * At startup: turns left `running` by a daemon that died become
   * `interrupted`. Returns their ids. A turn another live daemon runs on the
   * same data dir (two editor windows, each with its own stdio daemon) is left
   * alone. A turn recorded under this very pid belongs to an earlier process
   * whose pid was reused, so it is interrupted too.
   *
   * Each keeps what it had streamed (turns.md#turns-partial-kept): an assistant
   * message with the partial text and tree folded from the session's event log,
   * in the same transaction, so a turn is never interrupted without its answer.
   */
  markInterruptedTurns(): string[] {
    return this.write(() => {
      const endedAt = this.timestamp();
      const orphaned = (
        this.sql.runningTurns.all() as {
          id: string;
          session_id: string;
          owner_pid: number | null;
        }[]
      ).filter(
        ({ owner_pid: pid }) => pid === null || pid === this.ownerPid || !this.isProcessAlive(pid),
      );
      for (const { id, session_id: sessionId } of orphaned) {
        this.sql.interruptTurn.run(endedAt, id);
        this.keepPartialAnswer(sessionId, id);
      }
      return orphaned.map(({ id }) => id);
    });
  }

  getTurn(turnId: string): TurnRecord | undefined {
    const row = this.sql.getTurn.get(turnId) as TurnRow | undefined;
    return row && toTurnRecord(row);
  }

  /** Usage and cost of a turn per provider/model, in the order commitTurn got them (as in cost/summary). */
  turnUsage(turnId: string): ModelCost[] {
    return (this.sql.usageOfTurn.all(turnId) as UsageRow[]).map(toModelCost);
  }

  /**
   * The next turn's history: user and assistant messages of the session's
   * finished turns (the running turn's own message is the turn's input, not
   * history), newest kept, trimmed from the oldest so that the estimate
   * ceil(chars / CHARS_PER_TOKEN) per message sums to at most maxTokens. It
   * never starts with an assistant message; empty answers are left out; tool
   * messages stay in the store (their gist is in the answers and trees).
   */
  historyForNextTurn(sessionId: string, maxTokens: number): HistoryEntry[] {
    const kept: HistoryEntry[] = [];
    let tokens = 0;
    for (const row of this.sql.historyOf.iterate(sessionId) as IterableIterator<
      Pick<MessageRow, 'role' | 'content' | 'provider_fields'>
    >) {
      if (row.role === 'assistant' && row.content === '') continue;
      tokens += estimateTokens(row.content);
      if (tokens > maxTokens) break;
      kept.push({
        role: row.role as HistoryEntry['role'],
        content: row.content,
        ...(row.provider_fields !== null
          ? { providerFields: JSON.parse(row.provider_fields) as unknown }
          : {}),
      });
    }
    kept.reverse();
    while (kept[0]?.role === 'assistant') kept.shift();
    return kept;
  }

  // ---- approvals ------------------------------------------------------------

  /** Logs how an approval ended. The arguments are stored only as digestArgs(args). */
  recordApproval(record: ApprovalRecord): StoredApproval {
    const row: ApprovalRow = {
      session_id: record.sessionId,
      turn_id: record.turnId,
      tool_call_id: record.toolCallId,
      tool: record.tool,
      args_digest: digestArgs(record.args),
      decision: record.decision ?? null,
      outcome: record.outcome,
      decided_by: record.decidedBy ?? null,
      decided_at: this.timestamp(record.decidedAt),
    };
    this.write(() => {
      const turn = this.sql.getTurn.get(record.turnId) as TurnRow | undefined;
      if (!turn || turn.session_id !== record.sessionId)
        throw notFound('turn', `${record.turnId} of session ${record.sessionId}`);
      this.sql.insertApproval.run({
        sessionId: row.session_id,
        turnId: row.turn_id,
        toolCallId: row.tool_call_id,
        tool: row.tool,
        argsDigest: row.args_digest,
        decision: row.decision,
        outcome: row.outcome,
        decidedBy: row.decided_by,
        decidedAt: row.decided_at,
      });
    });
    return toStoredApproval(row);
  }

  approvals(sessionId: string): StoredApproval[] {
    return (this.sql.approvalsOf.all(sessionId) as ApprovalRow[]).map(toStoredApproval);
  }

  // ---- event log ------------------------------------------------------------

  /**
   * Appends one numbered session event (seq strictly increasing, without gaps:
   * the session manager stores every event it numbers). Keeps the newest
   * `eventRetention` seqs of the session, pruning every EVENT_PRUNE_BATCH appends.
   */
  appendEvent(sessionId: string, seq: number, method: string, params: unknown): void {
    const json = JSON.stringify(params);
    const appends = (this.appendsSincePrune.get(sessionId) ?? 0) + 1;
    const prune = appends >= EVENT_PRUNE_BATCH;
    // Joins this pass's transaction: committed when the pass ends, or before a frame
    // leaves (commitPending), whichever comes first.
    this.retryOnFullDisk(() =>
      this.pass.run(() => {
        this.sql.insertEvent.run(sessionId, seq, method, json);
        // The session's plan outlives the event log's retention (sessions.md#sessions-load-plan).
        if (method === Methods.PlanUpdate.method)
          this.sql.setPlan.run(JSON.stringify((params as { entries: unknown }).entries), sessionId);
        if (prune) this.sql.pruneEvents.run(sessionId, seq - this.eventRetention);
      }),
    );
    this.eventsPending.add(sessionId);
    this.appendsSincePrune.set(sessionId, prune ? 0 : appends);
  }

  /** Every event with seq > sinceSeq, oldest first; or beyondRetention when the log cannot replay them all. */
  eventsSince(sessionId: string, sinceSeq: number): EventsSince {
    return this.db
      .transaction((): EventsSince => {
        const bounds = this.sql.eventBounds.get(sessionId) as {
          first: number | null;
          last: number | null;
        };
        const last = bounds.last ?? 0;
        if (sinceSeq === last) return { events: [] };
        // Ahead of the log: the client saw events this store never kept; only a snapshot is safe.
        if (sinceSeq > last) return { beyondRetention: true };
        if ((bounds.first ?? 1) > sinceSeq + 1) return { beyondRetention: true };
        const rows = this.sql.eventsAfter.all(sessionId, sinceSeq) as {
          seq: number;
          method: string;
          params: string;
        }[];
        return {
          events: rows.map((r) => ({
            seq: r.seq,
            method: r.method,
            params: JSON.parse(r.params) as unknown,
          })),
        };
      })
      .deferred();
  }

  /** seq of the session's newest stored event, 0 when none: the session manager continues from it. */
  lastSeq(sessionId: string): number {
    return this.sql.lastSeq.get(sessionId) as number;
  }

  /** The context engine's per-session artifacts and turn transcripts (store/contextTables.ts). */
  get context(): ContextTables {
    this.contextTables ??= new ContextTables(
      this.db,
      (fn) => this.write(fn),
      () => this.timestamp(),
      () => this.diskFull !== undefined,
    );
    return this.contextTables;
  }

  /** Each session's workspace checkpoints (store/checkpointTables.ts). */
  get checkpoints(): CheckpointTables {
    this.checkpointTables ??= new CheckpointTables(
      this.db,
      (fn) => this.write(fn),
      () => this.timestamp(),
    );
    return this.checkpointTables;
  }

  close(): void {
    if (!this.db.open) return;
    try {
      this.commitPending();
    } finally {
      this.db.close();
    }
  }

  /**
   * Commits this pass's writes now (a connection calls it before its frames
   * leave). When that fails even into the disk reserve they are dropped,
   * dropCount grows, and their sessions renumber from the log (takeDropped).
   * `lastWords`: a turn's end, which may also use the last, smaller reserve.
   */
  commitPending(options: { lastWords?: boolean } = {}): void {
    if (!this.pass.pending || this.pass.nested) return;
    try {
      try {
        this.pass.commit();
      } catch (error) {
        // Disk full: the reserve's space, once, and the pass's writes again.
        if (!isDiskFull(error) || !this.reserve.release()) throw error;
        this.onReserve = (translate(error, this.path) as Error).message;
        try {
          this.pass.redo();
        } catch (again) {
          if (!options.lastWords || !isDiskFull(again) || !this.lastWords.release()) throw again;
          this.pass.redo();
        }
      }
      this.eventsPending.clear();
    } catch (error) {
      // A transaction that held no event (one write's own rows) drops nothing a client saw.
      if (this.eventsPending.size > 0) {
        for (const sessionId of this.eventsPending) this.eventsDropped.add(sessionId);
        this.eventsPending.clear();
        this.dropCount++;
      }
      throw translate(error, this.path);
    }
  }

  /** Grows each time commitPending drops written events: frames sent since they were made report them. */
  get droppedCommits(): number {
    return this.dropCount;
  }

  /** Whether a failed commit dropped events of the session since the last call (its seq is ahead of the log). */
  takeDropped(sessionId: string): boolean {
    return this.eventsDropped.delete(sessionId);
  }

  // ---- internals ------------------------------------------------------------

  /**
   * Runs `fn` in a transaction that takes the write lock at BEGIN (no
   * lock-upgrade SQLITE_BUSY), after this pass's event appends are committed,
   * and commits before returning: the caller's write is durable once it returns.
   */
  private write<T>(fn: () => T): T {
    // The pass's events commit first, on their own: a write the disk has no room for
    // (a long answer once the disk is full) then fails alone, instead of taking with it
    // the events a connection is about to send, and the connection.
    try {
      this.commitPending();
    } catch {
      // Dropped and counted (droppedCommits); fn may still fit.
    }
    let result!: T;
    // A commit that fails on a full disk writes fn again (PassTransaction.redo): what
    // fn returns must then be its last run's (new ids, timestamps).
    const run = (): void => {
      result = fn();
    };
    try {
      this.retryOnFullDisk(() => this.pass.run(run));
    } catch (error) {
      // fn's writes are undone; the pass's others are committed now all the same,
      // so a failed write never leaves the lock held.
      try {
        this.commitPending();
      } catch {
        // Dropped and counted (droppedCommits); the caller gets fn's own error.
      }
      throw error;
    }
    this.commitPending();
    return result;
  }

  /** Disk full: the reserve's space, once, for what must still be written. */
  private retryOnFullDisk<T>(step: () => T): T {
    try {
      return step();
    } catch (error) {
      if (!isDiskFull(error) || !this.reserve.release()) throw translate(error, this.path);
      this.onReserve = (translate(error, this.path) as Error).message;
      try {
        return step();
      } catch (again) {
        throw translate(again, this.path);
      }
    }
  }

  /**
   * Set while the store writes into the disk reserve: the disk is full, and
   * whoever is writing a lot (a running turn) should stop now, while the
   * reserve still holds its last writes. The sentence to tell the user.
   */
  get diskFull(): string | undefined {
    return this.onReserve;
  }

  /**
   * Sets the disk reserve aside again (at each turn's start). Throws the
   * disk-full StoreError while there is no room for it: a turn started then
   * could not be sure to store its own end, so it is refused up front.
   */
  ensureDiskReserve(): void {
    if (!this.lastWords.ensure() || !this.reserve.ensure())
      throw translate({ code: 'ENOSPC' }, this.path);
    this.onReserve = undefined;
  }

  /**
   * Ends the turn of `sessionId` that this very process left `running`
   * because its end could not be written (a full disk): interrupted, with
   * what its events had streamed. Call only while the session runs no turn.
   */
  endOwnOrphanedTurn(sessionId: string): void {
    // Read first: the write lock is taken only in the rare case there is one.
    if (!this.sql.runningTurnOf.get(sessionId)) return;
    this.write(() => {
      const row = this.sql.runningTurnOf.get(sessionId) as { id: string } | undefined;
      if (!row) return;
      const turn = this.sql.getTurn.get(row.id) as TurnRow;
      if (turn.owner_pid !== this.ownerPid) return; // another daemon's live turn
      this.sql.interruptTurn.run(this.timestamp(), row.id);
      this.keepPartialAnswer(sessionId, row.id);
    });
  }

  private beginTurnInTransaction(sessionId: string, turnId: string): void {
    if (!this.sql.getSession.get(sessionId)) throw notFound('session', sessionId);
    const running = this.sql.runningTurnOf.get(sessionId) as { id: string } | undefined;
    if (running) throw conflict(`Session ${sessionId} already runs turn ${running.id}.`);
    this.sql.insertTurn.run(turnId, sessionId, this.timestamp(), this.ownerPid);
  }

  /** The interrupted turn's answer as far as its events go; nothing when none of them is left. */
  private keepPartialAnswer(sessionId: string, turnId: string): void {
    const replayed = replayTurn(
      turnId,
      this.sql.foldableEvents.iterate(sessionId) as IterableIterator<StoredEventRow>,
    );
    if (!replayed) return;
    const message = this.insertMessage(
      sessionId,
      turnId,
      'assistant',
      replayed.text,
      undefined,
      replayed.parts,
    );
    this.sql.insertTree.run(message.id, JSON.stringify(replayed.tree));
    if (replayed.cost) this.sql.setTurnCost.run(JSON.stringify(replayed.cost), turnId);
  }

  private insertMessage(
    sessionId: string,
    turnId: string,
    role: StoredMessage['role'],
    content: string,
    providerFields: unknown,
    parts?: readonly StoredPart[],
    omitted?: readonly OmittedData[],
  ): StoredMessage {
    const message: StoredMessage = {
      id: randomUUID(),
      turnId,
      role,
      content,
      createdAt: this.timestamp(),
    };
    this.sql.insertMessage.run({
      ...message,
      sessionId,
      seq: this.sql.nextMessageSeq.get(sessionId) as number,
      providerFields: providerFields === undefined ? null : JSON.stringify(providerFields),
      parts: parts === undefined ? null : JSON.stringify(parts),
      omitted: omitted === undefined || omitted.length === 0 ? null : JSON.stringify(omitted),
    });
    return message;
  }

  private requireSession(sessionId: string): SessionInfo {
    const session = this.getSession(sessionId);
    if (!session) throw notFound('session', sessionId);
    return session;
  }

  private requireTurn(turnId: string): TurnRecord {
    const turn = this.getTurn(turnId);
    if (!turn) throw notFound('turn', turnId);
    return turn;
  }

  /** Stored timestamps are all Date#toISOString(), so text order is time order (list paging relies on it). */
  private timestamp(given?: string): string {
    return (given === undefined ? this.now() : new Date(given)).toISOString();
  }
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * A cut-off answer (max_tokens, 1.1) is stored as complete: stored statuses are
 * a closed v1 enum that session/load sends to every client; stop_reason keeps why.
 */
function statusOf(stopReason: StopReason): Exclude<TurnStatus, 'running'> {
  return stopReason === 'end_turn' || stopReason === 'max_tokens' ? 'complete' : stopReason;
}

function titleFrom(text: string): string {
  const line = text.trim().split('\n', 1)[0]?.trim() ?? '';
  return line.length > TITLE_MAX_CHARS ? `${line.slice(0, TITLE_MAX_CHARS - 1)}…` : line;
}

function toSessionInfo(row: SessionRow): SessionInfo {
  return {
    sessionId: row.id,
    workspaceRoot: row.workspace_root,
    title: row.title,
    permissionMode: row.permission_mode,
    chatContext: JSON.parse(row.chat_context) as SessionInfo['chatContext'],
    ...(row.model !== null ? { model: row.model } : {}),
    ...(row.agent !== null ? { agent: row.agent } : {}),
    // What the store knows; the session manager overlays live state (requires_action).
    state: row.running ? 'running' : 'idle',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toStoredMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    turnId: row.turn_id,
    role: row.role,
    content: row.content,
    createdAt: row.created_at,
    ...(row.status !== 'running' ? { status: row.status } : {}),
    ...(row.snapshot !== null ? { tree: JSON.parse(row.snapshot) as ExecutionTreeSnapshot } : {}),
    ...(row.role === 'assistant' && row.usage !== null
      ? { usage: JSON.parse(row.usage) as Usage }
      : {}),
    ...(row.parts !== null ? { parts: JSON.parse(row.parts) as StoredPart[] } : {}),
    ...(row.role === 'assistant' && row.cost !== null
      ? { cost: JSON.parse(row.cost) as StoredTurnCost }
      : {}),
    ...(row.omitted !== null ? { omitted: JSON.parse(row.omitted) as OmittedData[] } : {}),
  };
}

function toTurnRecord(row: TurnRow): TurnRecord {
  return {
    turnId: row.id,
    sessionId: row.session_id,
    status: row.status,
    ...(row.stop_reason !== null ? { stopReason: row.stop_reason } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
    startedAt: row.started_at,
    ...(row.ended_at !== null ? { endedAt: row.ended_at } : {}),
    ...(row.usage !== null ? { usage: JSON.parse(row.usage) as Usage } : {}),
  };
}

function toModelCost(row: UsageRow): ModelCost {
  return {
    provider: row.provider,
    model: row.model,
    calls: row.calls,
    usage: {
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      ...(row.cached_input_tokens !== null ? { cachedInputTokens: row.cached_input_tokens } : {}),
      ...(row.cache_write_input_tokens !== null
        ? { cacheWriteInputTokens: row.cache_write_input_tokens }
        : {}),
      ...(row.reasoning_tokens !== null ? { reasoningTokens: row.reasoning_tokens } : {}),
    },
    cost: row.cost,
  };
}

function toStoredApproval(row: ApprovalRow): StoredApproval {
  return {
    sessionId: row.session_id,
    turnId: row.turn_id,
    toolCallId: row.tool_call_id,
    tool: row.tool,
    argsDigest: row.args_digest,
    ...(row.decision !== null ? { decision: row.decision } : {}),
    outcome: row.outcome,
    ...(row.decided_by !== null ? { decidedBy: row.decided_by } : {}),
    decidedAt: row.decided_at,
  };
}

function notFound(what: 'session' | 'turn', id: string): StoreError {
  return new StoreError('not_found', `No ${what} ${id} in the store.`);
}

function conflict(message: string): StoreError {
  return new StoreError('conflict', message);
}

function unusable(file: string, cause: unknown): StoreError {
  const code = (cause as { code?: string }).code;
  if (
    code === 'SQLITE_READONLY' ||
    code === 'SQLITE_CANTOPEN' ||
    code?.startsWith('SQLITE_READONLY_')
  ) {
    return new StoreError(
      'data_dir_read_only',
      `The database ${file} cannot be written (${code}). Make its directory and files writable, ` +
        'or pass --data-dir <writable directory>.',
      file,
      { cause },
    );
  }
  // The runtime cannot run SQLite at all (e.g. a native binding built for
  // another Node): the file is fine, and moving it aside would lose sessions.
  if (cause instanceof SqliteUnavailableError)
    return new StoreError('sqlite_unavailable', cause.message, file, { cause });
  const damaged = code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB';
  return new StoreError(
    'database_unusable',
    `The database ${file} cannot be used: ${(cause as Error).message}.` +
      (damaged
        ? ' It is damaged or not an Arbor database: move it aside and restart to begin with an empty store.'
        : ''),
    file,
    { cause },
  );
}

/** Constraint failures from stale ids become StoreErrors the caller can map; the rest pass through. */
function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
}

function translate(error: unknown, databasePath?: string): unknown {
  if (error instanceof StoreError) return error;
  if (isDiskFull(error))
    return new StoreError(
      'disk_full',
      `The disk holding Arbor's data (${databasePath ? dirname(databasePath) : 'the data directory'}) is full. ` +
        'Free some space there; Arbor goes on by itself once there is room.',
      databasePath,
      { cause: error },
    );
  const code = (error as { code?: string }).code;
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
    return new StoreError('not_found', 'The session or turn no longer exists.', undefined, {
      cause: error,
    });
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE') {
    return new StoreError('conflict', `Duplicate key: ${(error as Error).message}`, undefined, {
      cause: error,
    });
  }
  return error;
}
