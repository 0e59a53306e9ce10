/**
 * One session's workspace as its tools see it: the root, the stale-write
 * guard, and where its I/O happens (workspaceIo.ts; the disk by default).
 */
import { realRoot } from './confinement.js';
import { StaleWriteGuard } from './staleWriteGuard.js';
import { diskIo, type WorkspaceIo, type WorkspaceIoFactory } from './workspaceIo.js';

export interface Workspace {
  /** The session's workspaceRoot (absolute). */
  readonly root: string;
  readonly guard: StaleWriteGuard;
  readonly io: WorkspaceIo;
}

export function openWorkspace(
  root: string,
  options: {
    watch?: boolean;
    log?: (message: string) => void;
    /** Default: the disk, and commands spawned by the daemon. */
    io?: WorkspaceIoFactory;
    /** Keeps what the agent has seen so far (the same session, its I/O replaced). */
    guard?: StaleWriteGuard;
  } = {},
): Workspace {
  const guard =
    options.guard ??
    new StaleWriteGuard(realRoot(root), {
      watch: options.watch ?? true,
      ...(options.log && { log: options.log }),
    });
  return { root, guard, io: (options.io ?? diskIo)(root, guard) };
}
