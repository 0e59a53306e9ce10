/**
 * Reading one workspace instructions file (AGENTS.md, .arbor/instructions.md):
 * confined like every workspace file tool — a path or a symbolic link leading
 * out of the workspace is never read — bounded in size, and read again only
 * when the file changes (its size, modification time or inode).
 */
import { relative, sep } from 'node:path';
import { FileCache } from '../../config/workspaceSettings.js';
import { resolveInWorkspace, realRoot } from '../../tools/workspace/confinement.js';
import { withFile } from '../../tools/workspace/safeFs.js';

/** Most characters of one file the model gets; the rest is cut with a note. */
export const MAX_INSTRUCTIONS_CHARS = 32_000;
/** A UTF-8 character takes at most 4 bytes: this many always hold MAX_INSTRUCTIONS_CHARS + 1. */
const MAX_READ_BYTES = (MAX_INSTRUCTIONS_CHARS + 1) * 4;

export interface InstructionsText {
  /** Relative to the workspace root, `/`-separated. */
  path: string;
  /** What the model gets, at most MAX_INSTRUCTIONS_CHARS. */
  text: string;
  truncated: boolean;
}

/** Why a file that is there was not given to the model: said once in the daemon's log. */
export type InstructionsRead = InstructionsText | { path: string; refused: string };

export class InstructionsFiles {
  private readonly cache = new FileCache<InstructionsRead>();

  /**
   * The file at `path` (relative to `root`), or undefined when there is none.
   * A file reached through a link out of the workspace, a directory, or one
   * that cannot be read is `refused`.
   */
  read(root: string, path: string): InstructionsRead | undefined {
    try {
      realRoot(root);
    } catch {
      return undefined; // no workspace on disk: nothing to read
    }
    let real: string;
    try {
      const resolved = resolveInWorkspace(root, path);
      if (!resolved.exists) return undefined;
      real = resolved.real;
    } catch (error) {
      return { path, refused: (error as Error).message };
    }
    // Keyed by the real path: a link inside the workspace and its target share one read.
    return this.cache.read(real, () => readConfined(root, real, path));
  }

  /** `absolute` (a real path inside `root`) as an instructions path: relative, `/`-separated. */
  static relativePath(root: string, absolute: string): string {
    return relative(realRoot(root), absolute).split(sep).join('/');
  }
}

function readConfined(root: string, real: string, path: string): InstructionsRead {
  try {
    return withFile(root, real, path, (file) => {
      if (!file.stats.isFile()) return { path, refused: 'not a regular file' };
      const bytes = file.readStart(MAX_READ_BYTES);
      // A cut in the middle of a character decodes to U+FFFD, then falls beyond the cut below.
      const decoded = bytes.toString('utf8');
      const chars = [...decoded];
      const truncated = chars.length > MAX_INSTRUCTIONS_CHARS || file.stats.size > bytes.length;
      const text = truncated ? chars.slice(0, MAX_INSTRUCTIONS_CHARS).join('') : decoded;
      return { path, text, truncated };
    });
  } catch (error) {
    return { path, refused: (error as Error).message };
  }
}
