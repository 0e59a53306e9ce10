/** Every failure of the checkpoint engine: a code to branch on and a message a user can read. */
export type CheckpointErrorCode =
  /** git exited non-zero. */
  | 'git-failed'
  /** A git call ran past its time limit and was killed. */
  | 'timeout'
  /** git printed more than its output limit. */
  | 'output-too-large'
  /** The disk holding the workspace or the data directory is full (ENOSPC). */
  | 'disk-full'
  /** A path is not a plain workspace-relative path, or leads outside the workspace. */
  | 'unsafe-path'
  /** Arguments that do not match their schema. */
  | 'invalid-request'
  /** An id that is not a checkpoint of this workspace. */
  | 'unknown-checkpoint'
  /** The instance was closed. */
  | 'closed';

export class CheckpointError extends Error {
  constructor(
    readonly code: CheckpointErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CheckpointError';
  }
}

const DISK_FULL = /no space left on device|ENOSPC|disk quota exceeded|EDQUOT/i;

/** Maps a Node fs error (or anything thrown) to a CheckpointError, keeping disk-full distinct. */
export function toCheckpointError(error: unknown, doing: string): CheckpointError {
  if (error instanceof CheckpointError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const text = error instanceof Error ? error.message : String(error);
  if (code === 'ENOSPC' || code === 'EDQUOT' || DISK_FULL.test(text)) {
    return new CheckpointError('disk-full', `${doing}: the disk is full (${text})`, {
      cause: error,
    });
  }
  return new CheckpointError('git-failed', `${doing}: ${text}`, { cause: error });
}

export function looksLikeDiskFull(text: string): boolean {
  return DISK_FULL.test(text);
}
