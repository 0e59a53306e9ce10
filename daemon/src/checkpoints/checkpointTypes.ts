/**
 * What the checkpoint engine hands across to the turn loop and the protocol:
 * zod schemas are the runtime truth, the types are inferred from them.
 */
import { z } from 'zod';

/** A checkpoint id: the full hex id of a commit in the shadow repository. */
export const CheckpointId = z
  .string()
  .regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'a full checkpoint id');
export type CheckpointId = z.infer<typeof CheckpointId>;

/** One file that differs between two checkpoints. */
export const FileChange = z.object({
  /** Workspace-relative, forward slashes. */
  path: z.string(),
  status: z.enum(['added', 'modified', 'deleted']),
  /** Lines added / removed (0 for binary files and mode-only changes). */
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  binary: z.boolean().optional(),
  /** Only the executable bit (or file ↔ symlink) changed, or it changed too. */
  modeChanged: z.boolean().optional(),
  /**
   * The file was over the size cap in one of the two checkpoints, so its
   * content there was not recorded: it cannot be diffed or restored.
   */
  tooLarge: z.boolean().optional(),
});
export type FileChange = z.infer<typeof FileChange>;

export const RestoreRequest = z.object({
  /** Workspace-relative file paths (forward slashes). */
  paths: z.array(z.string().min(1)).min(1),
  /** The checkpoint the workspace is expected to match now (after the agent's last turn). */
  expected: CheckpointId,
  /** Restore even the paths someone else changed since `expected`. */
  force: z.boolean().optional(),
});
export type RestoreRequest = z.infer<typeof RestoreRequest>;

export const RestoreFailure = z.object({ path: z.string(), reason: z.string() });
export type RestoreFailure = z.infer<typeof RestoreFailure>;

export const RestoreResult = z.discriminatedUnion('ok', [
  /** Some paths changed since `expected` and `force` was not set: nothing was changed. */
  z.object({ ok: z.literal(false), conflicts: z.array(z.string()) }),
  z.object({
    ok: z.literal(true),
    /** Paths now as they were at the target checkpoint. */
    restored: z.array(z.string()),
    /** Paths that had changed since `expected` (restored anyway: `force`). */
    conflicts: z.array(z.string()),
    /** Paths left alone because a checkpoint has no content for them (over the size cap). */
    skipped: z.array(z.string()),
    /** Paths that could not be written; the others were restored. */
    failed: z.array(RestoreFailure),
  }),
]);
export type RestoreResult = z.infer<typeof RestoreResult>;

export const DiffResult = z.object({ patch: z.string(), truncated: z.boolean() });
export type DiffResult = z.infer<typeof DiffResult>;

/** What `snapshot` recorded beyond the commit id. */
export interface SnapshotReport {
  id: CheckpointId;
  /** Files left out because they are over the size cap (workspace-relative). */
  skipped: string[];
}

/** Checkpoints cannot work for this workspace; `reason` is written for the user. */
export interface CheckpointsUnavailable {
  readonly unavailable: true;
  readonly reason: string;
}
