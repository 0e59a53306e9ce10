/**
 * Checkpoints (protocol 1.1): before a turn first changes the workspace the
 * daemon snapshots it; when the turn ends its node lists the files the turn
 * changed. A controller can look at a turn's diff and put the workspace back
 * as it was before any turn of the session.
 */
import { z } from 'zod';
import { NonNegativeInt, SessionId, TurnId, message } from './base.js';
import { request } from './descriptor.js';

/** Most files a turn node lists; the rest is counted in `omitted`. */
export const MAX_TURN_CHANGE_FILES = 200;
/** Longest diff text `checkpoint/diff` returns, in characters. */
export const MAX_DIFF_CHARS = 1_000_000;

const WorkspacePath = z
  .string()
  .min(1)
  .max(4096)
  .describe('Workspace-relative, with forward slashes');

export const FileChangeStatus = z.enum(['added', 'modified', 'deleted']);
export type FileChangeStatus = z.infer<typeof FileChangeStatus>;

export const TurnFileChange = message({
  path: WorkspacePath,
  status: FileChangeStatus,
  added: NonNegativeInt.describe('Lines added (0 for binary files)'),
  removed: NonNegativeInt.describe('Lines removed (0 for binary files)'),
  binary: z.boolean().optional(),
});
export type TurnFileChange = z.infer<typeof TurnFileChange>;

export const TurnChanges = message({
  files: z.array(TurnFileChange).max(MAX_TURN_CHANGE_FILES),
  omitted: NonNegativeInt.optional().describe('Changed files not listed (more than 200)'),
  restorable: z
    .boolean()
    .describe('checkpoint/restore can put the workspace back to before this turn'),
}).describe(
  'The workspace files a turn changed, whichever tool changed them, from the snapshots before and after it (protocol 1.1)',
);
export type TurnChanges = z.infer<typeof TurnChanges>;

// checkpoint/restore
export const CheckpointRestoreParams = message({
  sessionId: SessionId,
  turnId: TurnId.describe('Restore the workspace to how it was before this turn'),
  force: z
    .boolean()
    .default(false)
    .describe('Also overwrite files that changed since the session last changed them'),
});
export const CheckpointRestoreResult = message({
  restored: z.array(WorkspacePath).describe('Files now as they were before the turn'),
  overwritten: z
    .array(WorkspacePath)
    .optional()
    .describe('With force: restored files that someone else had changed since'),
  failed: z
    .array(message({ path: WorkspacePath, reason: z.string() }))
    .optional()
    .describe('Files that could not be restored; the others were'),
});
export type CheckpointRestoreResult = z.infer<typeof CheckpointRestoreResult>;

export const CheckpointRestore = request({
  method: 'checkpoint/restore',
  direction: 'clientToDaemon',
  params: CheckpointRestoreParams,
  result: CheckpointRestoreResult,
  capability: 'daemon.checkpoints',
  summary:
    'Puts the files the session’s turns changed, from this turn on, back as they were before it.',
  specRef: 'checkpoints.md#checkpoint-restore',
});

// checkpoint/diff
export const CheckpointDiffParams = message({
  sessionId: SessionId,
  turnId: TurnId,
  path: WorkspacePath.optional().describe('Only this file; absent: every file the turn changed'),
});
export const CheckpointDiffResult = message({
  diff: z.string().max(MAX_DIFF_CHARS).describe('A unified diff (git format), before → after'),
  truncated: z.boolean().describe('The diff was cut at 1,000,000 characters'),
});
export type CheckpointDiffResult = z.infer<typeof CheckpointDiffResult>;

export const CheckpointDiff = request({
  method: 'checkpoint/diff',
  direction: 'clientToDaemon',
  params: CheckpointDiffParams,
  result: CheckpointDiffResult,
  capability: 'daemon.checkpoints',
  summary: 'The changes a turn made to the workspace, as a unified diff.',
  specRef: 'checkpoints.md#checkpoint-diff',
});
