/**
 * What a background process wrote (stdout and stderr interleaved, decoded),
 * kept as its last `capacity` characters. Positions count every character
 * ever written, so a reader's cursor stays valid while the start of the
 * output is dropped; a read from before what is kept says how much is gone.
 */
export interface OutputWindow {
  /** Position of the first character returned: at least `since`, or where kept output begins. */
  start: number;
  /** Position after the last character returned: the next read's `since`. */
  end: number;
  text: string;
}

export class OutputRing {
  private readonly chunks: string[] = [];
  private kept = 0;
  /** Characters written since the start, kept or not. */
  private written = 0;

  constructor(private readonly capacity: number) {}

  /** Position after the last character written so far. */
  get total(): number {
    return this.written;
  }

  /** Position of the oldest character still kept. */
  get first(): number {
    return this.written - this.kept;
  }

  append(text: string): void {
    if (text === '') return;
    this.chunks.push(text);
    this.kept += text.length;
    this.written += text.length;
    while (this.kept > this.capacity) {
      const oldest = this.chunks[0]!;
      const excess = this.kept - this.capacity;
      if (oldest.length <= excess) {
        this.chunks.shift();
        this.kept -= oldest.length;
      } else {
        this.chunks[0] = oldest.slice(excess);
        this.kept -= excess;
      }
    }
  }

  /** At most `max` characters from `since` (clamped to what is kept and written). */
  read(since: number, max: number): OutputWindow {
    const start = Math.min(Math.max(since, this.first), this.written);
    const end = Math.min(start + max, this.written);
    let skip = start - this.first;
    let text = '';
    for (const chunk of this.chunks) {
      if (text.length >= end - start) break;
      if (skip >= chunk.length) {
        skip -= chunk.length;
        continue;
      }
      text += chunk.slice(skip, skip + (end - start - text.length));
      skip = 0;
    }
    return { start, end, text };
  }
}
