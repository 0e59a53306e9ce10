/**
 * One WorkspaceCheckpoints per workspace root and data directory, shared by
 * every session working there, so their snapshots and restores queue behind
 * each other instead of racing on one shadow index. Reference-counted: the
 * last release closes it.
 */
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CheckpointsUnavailable } from './checkpointTypes.js';
import {
  WorkspaceCheckpoints,
  isUnavailable,
  type CheckpointsOptions,
} from './workspaceCheckpoints.js';

export interface CheckpointsLease {
  readonly checkpoints: WorkspaceCheckpoints;
  /** Gives the lease back; the second and later calls do nothing. */
  release(): void;
}

interface Entry {
  opening: Promise<WorkspaceCheckpoints | CheckpointsUnavailable>;
  refs: number;
}

const open = new Map<string, Entry>();

export async function acquireCheckpoints(
  workspaceRoot: string,
  dataDir: string,
  options: Pick<CheckpointsOptions, 'gitPath' | 'maxFileBytes'> = {},
): Promise<CheckpointsLease | CheckpointsUnavailable> {
  const root = await realpath(workspaceRoot).catch(() => resolve(workspaceRoot));
  const key = `${root}\0${resolve(dataDir)}`;
  let entry = open.get(key);
  if (!entry) {
    entry = {
      opening: WorkspaceCheckpoints.open({ workspaceRoot: root, dataDir, ...options }),
      refs: 0,
    };
    open.set(key, entry);
  }
  entry.refs++;
  const opened = await entry.opening;
  if (isUnavailable(opened)) {
    // Not kept: the next acquire tries again (git may have been installed since).
    if (open.get(key) === entry) open.delete(key);
    return opened;
  }
  let released = false;
  const held = entry;
  return {
    checkpoints: opened,
    release() {
      if (released) return;
      released = true;
      held.refs--;
      if (held.refs === 0 && open.get(key) === held) {
        open.delete(key);
        opened.close();
      }
    },
  };
}
