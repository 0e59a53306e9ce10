/**
 * SessionCheckpoints: the one seam the session and the turn loop call for
 * undo (checkpoints.md). A turn's TurnCheckpoint snapshots the workspace
 * before the turn's first call that may change it and again when the turn
 * ends; the files that differ become the turn node's `changes` and are
 * recorded, so `checkpoint/restore` can put them back and `checkpoint/diff`
 * show them. Checkpoints never fail a turn: when they cannot be taken (no
 * git, a full disk) the turn goes on without undo and the log says why.
 */
import {
  MAX_DIFF_CHARS,
  MAX_TURN_CHANGE_FILES,
  type CheckpointDiffResult,
  type CheckpointRestoreResult,
  type TurnChanges,
} from '@arbor/protocol';
import { homedir } from 'node:os';
import { parse, resolve } from 'node:path';
import { rpcErrors } from '../rpcError.js';
import type { SessionCheckpointStore } from '../store/index.js';
import { acquireCheckpoints, type CheckpointsLease } from './checkpointRegistry.js';
import type { FileChange } from './checkpointTypes.js';
import { isUnavailable, type WorkspaceCheckpoints } from './workspaceCheckpoints.js';

export interface SessionCheckpointsOptions {
  sessionId: string;
  workspaceRoot: string;
  dataDir: string;
  store: SessionCheckpointStore;
  log: (level: 'info' | 'warn', message: string) => void;
  /** The git binary (tests); default: `git` on PATH. */
  gitPath?: string;
}

/** What the turn loop calls: before a change, and when the turn ends. */
export interface TurnCheckpoint {
  /** Before a call that may change the workspace runs; the first one snapshots it. Never throws. */
  beforeChange(): Promise<void>;
  /** The turn ended: what it changed, recorded for restore; undefined when nothing (or unknown). Never throws. */
  finish(): Promise<TurnChanges | undefined>;
}

export class SessionCheckpoints {
  private lease: Promise<CheckpointsLease | { unavailable: true; reason: string }> | undefined;
  private disposed = false;

  constructor(private readonly options: SessionCheckpointsOptions) {}

  forTurn(turnId: string): TurnCheckpoint {
    let before: Promise<string | undefined> | undefined;
    return {
      beforeChange: async () => {
        before ??= this.snapshot(`before turn ${turnId}`);
        await before;
      },
      finish: async () => {
        const beforeId = await before;
        if (beforeId === undefined) return undefined;
        try {
          const engine = await this.engine();
          const afterId = (await engine.snapshot(`after turn ${turnId}`)).id;
          const changed = await engine.changes(beforeId, afterId);
          if (changed.length === 0) return undefined;
          let restorable = true;
          try {
            this.options.store.saveTurn({
              turnId,
              beforeId,
              afterId,
              paths: changed.map((file) => file.path),
            });
          } catch (error) {
            restorable = false;
            this.warn(`the checkpoints of turn ${turnId} were not stored`, error);
          }
          return turnChanges(changed, restorable);
        } catch (error) {
          this.warn(`what turn ${turnId} changed is unknown`, error);
          return undefined;
        }
      },
    };
  }

  /** checkpoint/restore: the files the session's turns changed, from `turnId` on, back to before it. */
  async restore(turnId: string, force: boolean): Promise<CheckpointRestoreResult> {
    const turns = this.options.store.turns();
    const from = turns.findIndex((turn) => turn.turnId === turnId);
    if (from < 0) throw rpcErrors.checkpointUnavailable(noCheckpoint(turnId));
    const engine = await this.engineOrUnavailable();
    const later = turns.slice(from);
    const paths = [...new Set(later.flatMap((turn) => turn.paths))];
    const expected = this.options.store.head() ?? later[later.length - 1]!.afterId;
    const result = await engine.restore(turns[from]!.beforeId, { paths, expected, force });
    if (!result.ok) throw rpcErrors.checkpointConflict(result.conflicts);
    // The restored workspace is what the next restore expects to find.
    this.options.store.setHead((await engine.snapshot(`restored to before turn ${turnId}`)).id);
    return {
      restored: result.restored,
      ...(result.conflicts.length > 0 && { overwritten: result.conflicts }),
      ...(result.failed.length + result.skipped.length > 0 && {
        failed: [
          ...result.failed,
          ...result.skipped.map((path) => ({
            path,
            reason: 'larger than the checkpoint size limit, never recorded',
          })),
        ],
      }),
    };
  }

  /** checkpoint/diff: what the turn changed, as a unified diff. */
  async diff(turnId: string, path: string | undefined): Promise<CheckpointDiffResult> {
    const turn = this.options.store.turns().find((t) => t.turnId === turnId);
    if (turn === undefined) throw rpcErrors.checkpointUnavailable(noCheckpoint(turnId));
    const engine = await this.engineOrUnavailable();
    const { patch, truncated } = await engine.diff(turn.beforeId, turn.afterId, {
      ...(path !== undefined && { paths: [path] }),
      maxBytes: MAX_DIFF_CHARS,
    });
    const diff = patch.length > MAX_DIFF_CHARS ? patch.slice(0, MAX_DIFF_CHARS) : patch;
    return { diff, truncated: truncated || diff.length < patch.length };
  }

  dispose(): void {
    this.disposed = true;
    void this.lease?.then((lease) => {
      if (!isUnavailable(lease)) lease.release();
    });
  }

  private async snapshot(label: string): Promise<string | undefined> {
    try {
      return (await (await this.engine()).snapshot(label)).id;
    } catch (error) {
      this.warn(`no checkpoint (${label}); the turn cannot be undone`, error);
      return undefined;
    }
  }

  private async engineOrUnavailable(): Promise<WorkspaceCheckpoints> {
    try {
      return await this.engine();
    } catch (error) {
      throw rpcErrors.checkpointUnavailable(error instanceof Error ? error.message : String(error));
    }
  }

  private async engine(): Promise<WorkspaceCheckpoints> {
    if (this.disposed) throw new Error('the session is closed');
    const { workspaceRoot, dataDir, gitPath } = this.options;
    if (tooBroad(workspaceRoot)) {
      // Snapshotting a whole home directory would copy the user's every file into the data dir.
      throw new Error(
        `checkpoints are off for ${workspaceRoot}: a home or root directory is too large to snapshot; open a project folder`,
      );
    }
    this.lease ??= acquireCheckpoints(workspaceRoot, dataDir, gitPath ? { gitPath } : {});
    const lease = await this.lease;
    if (isUnavailable(lease)) {
      // Tried again on the next turn: git may be installed by then.
      this.lease = undefined;
      throw new Error(`checkpoints are unavailable: ${lease.reason}`);
    }
    return lease.checkpoints;
  }

  private warn(what: string, error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.options.log('warn', `session ${this.options.sessionId}: ${what}: ${reason}`);
  }
}

function tooBroad(workspaceRoot: string): boolean {
  const root = resolve(workspaceRoot);
  return root === parse(root).root || root === resolve(homedir());
}

function noCheckpoint(turnId: string): string {
  return `turn ${turnId} has no checkpoint: it changed no workspace files, or no checkpoint could be taken`;
}

function turnChanges(changed: readonly FileChange[], restorable: boolean): TurnChanges {
  const files = changed.slice(0, MAX_TURN_CHANGE_FILES).map((file) => ({
    path: file.path,
    status: file.status,
    added: file.added,
    removed: file.removed,
    ...(file.binary && { binary: true }),
  }));
  const omitted = changed.length - files.length;
  return { files, ...(omitted > 0 && { omitted }), restorable };
}
