/** One session's workspace as its tools see it: the root and the stale-write guard. */
import { realRoot } from './confinement.js';
import { StaleWriteGuard } from './staleWriteGuard.js';

export interface Workspace {
  /** The session's workspaceRoot (absolute). */
  readonly root: string;
  readonly guard: StaleWriteGuard;
}

export function openWorkspace(
  root: string,
  options: { watch?: boolean; log?: (message: string) => void } = {},
): Workspace {
  return {
    root,
    guard: new StaleWriteGuard(realRoot(root), {
      watch: options.watch ?? true,
      ...(options.log && { log: options.log }),
    }),
  };
}
