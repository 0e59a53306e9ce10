/**
 * Every session of the daemon. The store holds them all (across restarts);
 * the manager keeps in memory the ones in use by this process — created
 * here, or loaded from the store on first use (attach, chat/send...) — with
 * their attached clients and running turns. Creates, finds, lists (newest
 * first, paged, from the store), loads, deletes, and detaches a client from
 * all of its sessions when its connection goes away.
 */
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { BudgetKind, ParamsOf, ResultOf, Script, SessionInfo } from '@arbor/protocol';
import { Methods } from '@arbor/protocol';
import { rpcErrors } from '../rpcError.js';
import { StoreError } from '../store/storeError.js';
import type { StoreCommits } from '../store/passTransaction.js';
import { Session, type SessionDeps } from './session.js';
import { acceptedModel } from './sessionModel.js';
import { AgentProfileError } from '../agents/agentProfiles.js';

export type NewSessionParams = ParamsOf<typeof Methods.SessionNew>;
export type ListSessionsParams = ParamsOf<typeof Methods.SessionList>;

export class SessionManager {
  /** Sessions in use by this process, by id. */
  private readonly live = new Map<string, Session>();
  /** When each live session was last used, or last seen not evictable (deps.now). */
  private readonly lastActive = new Map<string, number>();
  private sweep: NodeJS.Timeout | undefined;
  /** Sessions whose deletion is under way: already not found, rows not yet gone. */
  private readonly deleting = new Set<string>();
  /** Script set by `_arbor/testing/setScript` without a sessionId. */
  defaultScript: Script | undefined;
  /** The budgets set with that script. */
  defaultScriptBudgets: Partial<Record<BudgetKind, number>> | undefined;
  private lastIdTime = 0;
  private idCounter = 0;

  constructor(private readonly deps: SessionDeps) {}

  /** What a connection commits before its frames leave (FrameWriter): the store's pass. */
  get storeCommits(): StoreCommits {
    return this.deps.store;
  }

  /**
   * Once at startup, before any request: turns a previous daemon process left
   * running are marked interrupted in the store, which keeps the answer and
   * tree they had streamed (rebuilt from the event log), and each gets its
   * `idle` event (stopReason `interrupted`) in its session's event log, after
   * the events it was rebuilt from. Returns their ids.
   */
  recoverInterruptedTurns(): string[] {
    const { store } = this.deps;
    const turnIds = store.markInterruptedTurns();
    for (const turnId of turnIds) {
      const turn = store.getTurn(turnId);
      if (turn) this.get(turn.sessionId).reportInterrupted(turnId);
    }
    return turnIds;
  }

  create(params: NewSessionParams): Session {
    const workspaceRoot = checkWorkspaceRoot(params.workspaceRoot);
    const agent = this.agentFor(workspaceRoot, params.agent);
    const stored = this.deps.store.createSession({
      ...params,
      ...(agent !== undefined && { agent }),
      ...(params.model !== undefined && { model: acceptedModel(params.model) }),
      workspaceRoot,
      sessionId: this.newSessionId(),
    });
    const session = new Session(stored, this.deps);
    session.script = this.defaultScript;
    session.scriptBudgets = this.defaultScriptBudgets;
    this.live.set(session.id, session);
    this.touch(session.id);
    return session;
  }

  /**
   * The profile a new session runs with: the one named, else the config's
   * default; -32602 naming it (and the known ones) when it cannot be used.
   */
  private agentFor(workspaceRoot: string, named: string | undefined): string | undefined {
    const { agents } = this.deps;
    const name = named ?? agents?.defaultAgent;
    if (name === undefined) return undefined;
    if (!agents)
      throw rpcErrors.invalidParams(`this daemon has no agent profiles (agent "${name}")`);
    try {
      return agents.resolve(workspaceRoot, name).name;
    } catch (error) {
      if (error instanceof AgentProfileError) throw rpcErrors.invalidParams(error.message);
      throw error;
    }
  }

  /** The session in memory, loading it from the store (a session of an earlier run) if needed. */
  get(sessionId: string): Session {
    const known = this.live.get(sessionId);
    if (known) {
      this.touch(sessionId);
      return known;
    }
    if (this.deleting.has(sessionId)) throw rpcErrors.sessionNotFound(sessionId);
    const stored = this.deps.store.getSession(sessionId);
    if (!stored) throw rpcErrors.sessionNotFound(sessionId);
    const session = new Session(stored, this.deps);
    this.live.set(sessionId, session);
    this.touch(sessionId);
    return session;
  }

  /** How many sessions are loaded in memory now. */
  get loadedCount(): number {
    return this.live.size;
  }

  /**
   * Drops from memory every session evictable for at least deps.idleEvictMs
   * (Session.evictable); get() loads it again, from the store, on next use.
   * Runs on a timer while sessions are loaded; returns the ids dropped.
   */
  evictIdle(): string[] {
    const { idleEvictMs } = this.deps;
    if (idleEvictMs === undefined) return [];
    const now = this.now();
    const evicted: string[] = [];
    for (const [sessionId, session] of this.live) {
      if (!session.evictable) {
        // Idle time counts from when it last was not evictable (a turn, a client).
        this.lastActive.set(sessionId, now);
        continue;
      }
      if (now - (this.lastActive.get(sessionId) ?? now) < idleEvictMs) continue;
      session.evict();
      this.live.delete(sessionId);
      this.lastActive.delete(sessionId);
      evicted.push(sessionId);
    }
    return evicted;
  }

  private touch(sessionId: string): void {
    this.lastActive.set(sessionId, this.now());
    const { idleEvictMs } = this.deps;
    if (idleEvictMs === undefined || this.sweep !== undefined) return;
    // Sweeps only while sessions are loaded; unref'd: it never keeps the daemon alive.
    const every = Math.max(10, Math.min(idleEvictMs / 2, 60_000));
    this.sweep = setInterval(() => {
      const evicted = this.evictIdle();
      if (evicted.length > 0)
        this.deps.log.debug(`${evicted.length} idle session(s) dropped from memory`);
      if (this.live.size > 0) return;
      clearInterval(this.sweep);
      this.sweep = undefined;
    }, every);
    this.sweep.unref();
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  list(params: ListSessionsParams): ResultOf<typeof Methods.SessionList> {
    let page;
    try {
      page = this.deps.store.listSessions({
        limit: params.limit,
        ...(params.cursor !== undefined && { cursor: params.cursor }),
        ...(params.workspaceRoot !== undefined && {
          workspaceRoot: resolve(params.workspaceRoot),
        }),
      });
    } catch (error) {
      if (error instanceof StoreError && error.code === 'invalid_cursor')
        throw rpcErrors.invalidParams(error.message);
      throw error;
    }
    return { ...page, sessions: page.sessions.map((info) => this.withLiveState(info)) };
  }

  /** Messages with each answer's tree, from the store; loading does not attach. */
  load(sessionId: string): ResultOf<typeof Methods.SessionLoad> {
    const loaded = this.deps.store.loadSession(sessionId);
    if (!loaded) throw rpcErrors.sessionNotFound(sessionId);
    // Read in the same tick as the messages: attaching with sinceSeq = lastSeq misses nothing.
    const lastSeq = this.deps.store.lastSeq(sessionId);
    return { ...loaded, session: this.withLiveState(loaded.session), lastSeq };
  }

  /**
   * Ends the session's turn for every attached client, tells them the
   * session is gone, detaches them, and deletes everything stored for it.
   */
  async delete(sessionId: string): Promise<void> {
    const session = this.live.get(sessionId);
    if (!session && !this.deps.store.getSession(sessionId))
      throw rpcErrors.sessionNotFound(sessionId);
    // Gone for every later request from here on, also while the turn stops.
    this.live.delete(sessionId);
    this.lastActive.delete(sessionId);
    this.deleting.add(sessionId);
    try {
      await session?.close();
      this.deps.store.deleteSession(sessionId);
    } finally {
      this.deleting.delete(sessionId);
    }
  }

  /**
   * `shutdown` on stdio: the process is about to exit, so running turns are
   * cancelled and committed as cancelled rather than left to come back
   * interrupted (lifecycle.md#lifecycle-shutdown-stdio-turns).
   */
  async stopRunningTurns(): Promise<void> {
    await Promise.all([...this.live.values()].map((session) => session.stopTurn()));
  }

  /** A disconnected client leaves every session; sessions and turns go on. */
  detachClient(clientId: string): void {
    for (const session of this.live.values()) session.detach(clientId);
  }

  /**
   * Ids that sort in creation order: session/list orders by updatedAt, then by
   * id, so sessions created within one millisecond still list newest first.
   */
  private newSessionId(): string {
    const now = Math.max(Date.now(), this.lastIdTime);
    this.idCounter = now === this.lastIdTime ? this.idCounter + 1 : 0;
    this.lastIdTime = now;
    const time = now.toString(16).padStart(12, '0');
    const counter = this.idCounter.toString(16).padStart(4, '0');
    return `ses_${time}${counter}_${randomUUID()}`;
  }

  /** `requires_action` and this process's running turns are known only here, not in the store. */
  private withLiveState(info: SessionInfo): SessionInfo {
    const session = this.live.get(info.sessionId);
    return session ? { ...info, state: session.state } : info;
  }
}

/** An absolute path of an existing directory, normalized; else -33009 InvalidWorkspaceRoot. */
export function checkWorkspaceRoot(path: string): string {
  if (!isAbsolute(path))
    throw rpcErrors.invalidWorkspaceRoot(`workspaceRoot must be an absolute path`);
  const normalized = resolve(path);
  let isDirectory = false;
  try {
    isDirectory = statSync(normalized).isDirectory();
  } catch {
    throw rpcErrors.invalidWorkspaceRoot(`workspaceRoot ${normalized} does not exist`);
  }
  if (!isDirectory)
    throw rpcErrors.invalidWorkspaceRoot(`workspaceRoot ${normalized} is not a directory`);
  return normalized;
}
