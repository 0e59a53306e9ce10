/**
 * Every live session of the daemon (in memory; the store persists them later).
 * Creates, finds, lists (newest first, paged), deletes, and detaches a client
 * from all of its sessions when its connection goes away.
 */
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { ParamsOf, Script, SessionInfo } from '@arbor/protocol';
import { Methods } from '@arbor/protocol';
import { rpcErrors } from '../rpcError.js';
import { Session, type SessionDeps } from './session.js';

export type NewSessionParams = ParamsOf<typeof Methods.SessionNew>;
export type ListSessionsParams = ParamsOf<typeof Methods.SessionList>;

export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private nextOrdinal = 1;
  /** Script set by `_arbor/testing/setScript` without a sessionId. */
  defaultScript: Script | undefined;

  constructor(private readonly deps: SessionDeps) {}

  create(params: NewSessionParams): Session {
    const workspaceRoot = checkWorkspaceRoot(params.workspaceRoot);
    const createdAt = new Date().toISOString();
    const info: SessionInfo = {
      sessionId: `ses_${randomUUID()}`,
      workspaceRoot,
      title: params.title ?? '',
      permissionMode: params.permissionMode,
      chatContext: params.chatContext,
      ...(params.model !== undefined && { model: params.model }),
      state: 'idle',
      createdAt,
      updatedAt: createdAt,
    };
    const session = new Session(info, this.nextOrdinal++, this.deps);
    session.script = this.defaultScript;
    this.sessions.set(session.id, session);
    return session;
  }

  get(sessionId: string): Session {
    const session = this.sessions.get(sessionId);
    if (!session) throw rpcErrors.sessionNotFound(sessionId);
    return session;
  }

  list(params: ListSessionsParams): { sessions: SessionInfo[]; nextCursor?: string } {
    const before = params.cursor === undefined ? Infinity : decodeCursor(params.cursor);
    const root = params.workspaceRoot === undefined ? undefined : resolve(params.workspaceRoot);
    const matching = [...this.sessions.values()]
      .filter(
        (s) => s.ordinal < before && (root === undefined || s.describe().workspaceRoot === root),
      )
      .sort((a, b) => b.ordinal - a.ordinal);
    const page = matching.slice(0, params.limit);
    const last = page[page.length - 1];
    return {
      sessions: page.map((s) => s.describe()),
      ...(matching.length > page.length && last && { nextCursor: encodeCursor(last.ordinal) }),
    };
  }

  delete(sessionId: string): void {
    this.get(sessionId).dispose();
    this.sessions.delete(sessionId);
  }

  /** A disconnected client leaves every session; sessions and turns go on. */
  detachClient(clientId: string): void {
    for (const session of this.sessions.values()) session.detach(clientId);
  }
}

function checkWorkspaceRoot(path: string): string {
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

/** Cursors are opaque to clients; inside they hold the last ordinal served. */
function encodeCursor(ordinal: number): string {
  return Buffer.from(`o:${ordinal}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const match = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw rpcErrors.invalidParams('invalid cursor');
  return Number(match[1]);
}
