/** Workspace checkpoints: snapshot before a turn, list and diff its changes, restore to before it. */
export { CheckpointError, type CheckpointErrorCode } from './checkpointError.js';
export { acquireCheckpoints, type CheckpointsLease } from './checkpointRegistry.js';
export {
  CheckpointId,
  DiffResult,
  FileChange,
  RestoreFailure,
  RestoreRequest,
  RestoreResult,
  type CheckpointsUnavailable,
  type SnapshotReport,
} from './checkpointTypes.js';
export {
  DEFAULT_MAX_FILE_BYTES,
  WorkspaceCheckpoints,
  isUnavailable,
  shadowDirFor,
  type CheckpointsOptions,
} from './workspaceCheckpoints.js';
