/**
 * How one session's workspace tools reach its files and run its commands:
 * the one seam between the tools and where the I/O happens. The default is
 * the daemon's own: the disk through safeFs.ts, judged by the stale-write
 * guard, and run_command spawned (sandboxed) by the daemon. A client that
 * owns the files (an ACP editor, see acp/editorWorkspaceIo.ts) installs its
 * own for the sessions it created, so unsaved buffers are read and writes
 * land in its buffers.
 *
 * Every implementation gets a path only after the tool confined it
 * (resolveInWorkspace): an absolute path inside the workspace, never one the
 * model wrote. Whatever it is, a failure is a WorkspaceIoError whose message
 * the model sees as the call's error; it never ends the turn.
 */
import type { Stats } from 'node:fs';
import type { ToolContext } from '../tool.js';
import { looksBinary, MAX_FILE_BYTES } from './fileTools.js';
import { withFile, writeFileConfined } from './safeFs.js';
import type { StaleWriteGuard } from './staleWriteGuard.js';

/** A file the tool has confined: where it really is, and how the model named it. */
export interface ConfinedFile {
  /** The session's workspace root. */
  readonly root: string;
  /** Absolute real path inside the workspace (resolveInWorkspace's `real`). */
  readonly real: string;
  /** The path as the model wrote it (for messages). */
  readonly requested: string;
}

/** A file's text; from the disk also its bytes and stats (the stale-write guard's baseline). */
export interface FileText {
  readonly text: string;
  readonly bytes?: Buffer;
  readonly stats?: Stats;
}

/** Refuses a call with a message for the model (guarded() turns it into the call's error). */
export class WorkspaceIoError extends Error {
  override name = 'WorkspaceIoError';
}

export interface WorkspaceFiles {
  /** The file's whole text, at most MAX_FILE_BYTES. */
  readText(file: ConfinedFile, signal: AbortSignal): Promise<FileText>;
  /** Why overwriting the file now must be refused (it changed since the agent saw it). */
  staleReason(file: ConfinedFile, signal: AbortSignal): Promise<string | undefined>;
  /** Creates or replaces the file's text (parent directories are created). */
  writeText(file: ConfinedFile, text: string, signal: AbortSignal): Promise<{ created: boolean }>;
  /** The agent has seen this content of the file: a read shown to it, or its own write. */
  saw(file: ConfinedFile, content: string | Buffer, stats?: Stats): void;
  /** The agent removed the file itself (apply_patch). */
  forget(file: ConfinedFile): void;
}

export interface CommandRequest {
  /** A `/bin/sh -c` command line. */
  command: string;
  /** Real path of a directory inside the workspace. */
  cwd: string;
  /** Real path of the workspace root. */
  workspaceRoot: string;
  timeoutMs: number;
}

/** How a command ended; run_command words it for the model (runCommand.ts). */
export interface CommandResult {
  exitCode: number | null;
  signal: string | null;
  /** It was stopped by the daemon: the timeout passed, or the turn was cancelled. */
  stopped?: 'timeout' | 'cancelled';
  /** It could not be started or followed: the result's first line ("failed to start: …"). */
  failure?: string;
  /** Its output (stdout and stderr interleaved), at most MAX_COMMAND_OUTPUT_BYTES, not redacted yet. */
  output: string;
  /** Output not kept: a byte count, or `earlier` when the runner dropped the start of it. */
  dropped: number | 'earlier';
  /** A line for the model about where it ran (no sandbox, an editor terminal). */
  note?: string;
}

export interface CommandRunner {
  /**
   * True when commands run in the daemon's sandbox when one is configured.
   * A runner that is not (an editor terminal) is not used while the sandbox
   * would confine the command: it would run outside it (runCommand.ts).
   */
  readonly honoursSandbox: boolean;
  /** Runs to the end; stops it at the timeout or when ctx.signal aborts. Never throws. */
  run(request: CommandRequest, ctx: ToolContext): Promise<CommandResult>;
}

/** A session's I/O; `commands` absent: run_command spawns the command itself (sandboxed). */
export interface WorkspaceIo {
  readonly files: WorkspaceFiles;
  readonly commands?: CommandRunner;
}

/** Builds a session's I/O for its workspace (the guard is the workspace's). */
export type WorkspaceIoFactory = (root: string, guard: StaleWriteGuard) => WorkspaceIo;

/** The daemon's own files: the disk, through safeFs.ts, judged by the stale-write guard. */
export function diskFiles(guard: StaleWriteGuard): WorkspaceFiles {
  return {
    readText: async (file) => readDiskText(file),
    staleReason: async (file) => guard.staleReason(file.real, file.requested),
    writeText: async (file, text) => writeFileConfined(file.root, file.real, file.requested, text),
    saw: (file, text, stats) => guard.saw(file.real, text, stats),
    forget: (file) => guard.forget(file.real),
  };
}

export const diskIo: WorkspaceIoFactory = (_root, guard) => ({ files: diskFiles(guard) });

/** The verified file's text; refuses directories, special files, big and binary files. */
export function readDiskText(file: ConfinedFile): FileText {
  const { requested } = file;
  const read = withFile(file.root, file.real, requested, (opened) => {
    const { stats } = opened;
    if (stats.isDirectory())
      throw new WorkspaceIoError(`${requested} is a directory; use list_dir`);
    if (!stats.isFile()) throw new WorkspaceIoError(`${requested} is not a regular file`);
    if (stats.size > MAX_FILE_BYTES)
      throw new WorkspaceIoError(
        `${requested} is ${stats.size} bytes; files up to ${MAX_FILE_BYTES} bytes can be opened`,
      );
    return { content: opened.read(), stats };
  });
  if (looksBinary(read.content))
    throw new WorkspaceIoError(`${requested} looks like a binary file`);
  return { text: read.content.toString('utf8'), bytes: read.content, stats: read.stats };
}
