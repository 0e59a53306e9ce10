/**
 * A few MiB of the data dir's disk set aside in a file. When the disk fills
 * up mid-turn, deleting it gives the store room for what must still be
 * written — the turn's end, its idle event, the committed answer — so a full
 * disk ends one turn with a clear reason instead of leaving it half-stored;
 * it is set aside again at the next turn once space is back.
 */
import { closeSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs';

/** Room for a turn's end, its last events and its answer without the text; small, as every data dir holds one. */
export const RESERVE_BYTES = 512 * 1024;
/**
 * Room kept back for a turn's last events (its final tree, cost and idle) once
 * the reserve itself is spent: without them a client would wait for the end of
 * a turn that can no longer be stored, hence never sent.
 */
export const LAST_WORDS_BYTES = 128 * 1024;
const BLOCK = Buffer.alloc(64 * 1024);

export class DiskReserve {
  constructor(
    readonly path: string,
    private readonly bytes = RESERVE_BYTES,
  ) {}

  /** Sets the reserve aside if it is missing; false when there is no room for it yet. */
  ensure(): boolean {
    if (statSync(this.path, { throwIfNoEntry: false })?.size === this.bytes) return true;
    let fd: number | undefined;
    try {
      fd = openSync(this.path, 'w', 0o600);
      // Written, not truncated to size: a sparse file would hold no blocks to give back.
      for (let written = 0; written < this.bytes; written += BLOCK.length) writeSync(fd, BLOCK);
      return true;
    } catch {
      this.release();
      return false;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** Gives the space back to the disk; false when there was none set aside. */
  release(): boolean {
    try {
      unlinkSync(this.path);
      return true;
    } catch {
      return false;
    }
  }
}
