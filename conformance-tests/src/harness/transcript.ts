/** A record of every frame on every connection of one scenario, in order. */

export type Direction = 'harness→impl' | 'impl→harness' | 'note';

export interface TranscriptEntry {
  /** Milliseconds since the scenario started. */
  t: number;
  connection: string;
  direction: Direction;
  kind: 'frame' | 'junk' | 'stderr' | 'event';
  /** The frame's content (truncated when very long). */
  text: string;
  /** Bytes of the content part, for frames. */
  bytes?: number;
}

const MAX_TEXT = 4000;

export class Transcript {
  readonly entries: TranscriptEntry[] = [];
  private readonly start = Date.now();

  add(entry: Omit<TranscriptEntry, 't'>): void {
    const text =
      entry.text.length > MAX_TEXT
        ? `${entry.text.slice(0, MAX_TEXT)}… (${entry.text.length} chars)`
        : entry.text;
    this.entries.push({ ...entry, text, t: Date.now() - this.start });
  }

  note(connection: string, text: string): void {
    this.add({ connection, direction: 'note', kind: 'event', text });
  }

  /** One line per entry: `+12ms conn → {...}`. */
  render(): string {
    const arrow: Record<Direction, string> = {
      'harness→impl': '-->',
      'impl→harness': '<--',
      note: '   ',
    };
    return this.entries
      .map(
        (e) =>
          `+${String(e.t).padStart(5)}ms ${e.connection.padEnd(10)} ${arrow[e.direction]} ${e.kind === 'frame' ? '' : `[${e.kind}] `}${e.text}`,
      )
      .join('\n');
  }
}
