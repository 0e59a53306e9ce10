/**
 * The terminal's bottom block, redrawn in place (a TTY only): streamed text
 * scrolls above it, the live tree / plan / approval prompt stay below.
 *
 * Text is committed row by row (wrapped to the width, at a space when one is
 * near), so the block always starts on a fresh row and its height is known:
 * every block line is cut to the width and never wraps. The cursor rests at
 * the end of the block's last line.
 */
import { truncateVisible, visibleWidth } from './terminalStyle.js';

export interface ScreenStream {
  write(text: string): boolean;
  columns?: number;
  rows?: number;
}

const ERASE_DOWN = '\u001b[J';
const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';

export class LiveScreen {
  readonly #out: ScreenStream;
  /** Streamed text not yet ending a row; shown as the block's first line. */
  #partial = '';
  #block: string[] = [];
  #drawnRows = 0;
  #cursorHidden = false;

  constructor(out: ScreenStream) {
    this.#out = out;
  }

  /** Usable columns; a terminal that reports no size (0) counts as 80. */
  get #width(): number {
    return Math.max(20, (this.#out.columns || 80) - 1);
  }

  /** A block taller than the screen could not be redrawn in place: keep its head and its tail. */
  #fit(lines: string[]): string[] {
    const max = Math.max(6, (this.#out.rows || 40) - 2);
    if (lines.length <= max) return lines;
    const head = lines.slice(0, 2);
    const tail = lines.slice(lines.length - (max - 3));
    return [...head, `  … ${lines.length - head.length - tail.length} more`, ...tail];
  }

  /** Streamed text: whole rows scroll up, the rest waits in the block's first line. */
  text(text: string): void {
    this.#partial += text;
    const rows: string[] = [];
    for (;;) {
      const newline = this.#partial.indexOf('\n');
      const candidate = newline === -1 ? this.#partial : this.#partial.slice(0, newline);
      if (visibleWidth(candidate) > this.#width) {
        const chars = [...candidate].slice(0, this.#width).join('');
        const space = chars.lastIndexOf(' ');
        const cut = space > this.#width / 2 ? space : chars.length;
        rows.push(chars.slice(0, cut));
        this.#partial = this.#partial.slice(cut).replace(/^ /, '');
        continue;
      }
      if (newline === -1) break;
      rows.push(candidate);
      this.#partial = this.#partial.slice(newline + 1);
    }
    this.#redraw(rows);
  }

  /** Permanent lines above the block (ends a partial text row first). */
  print(lines: readonly string[]): void {
    const rows: string[] = [];
    if (this.#partial !== '') {
      rows.push(this.#partial);
      this.#partial = '';
    }
    this.#redraw([...rows, ...lines]);
  }

  /** Replaces the live block. */
  setBlock(lines: readonly string[]): void {
    this.#block = [...lines];
    this.#redraw([]);
  }

  /** Erases the block and leaves the cursor on a fresh row; the screen can be used again. */
  clear(): void {
    this.#block = [];
    this.print([]);
    this.#showCursor();
  }

  #redraw(committed: readonly string[]): void {
    let out = '';
    if (this.#drawnRows > 0) {
      out += '\r';
      if (this.#drawnRows > 1) out += `\u001b[${this.#drawnRows - 1}A`;
      out += ERASE_DOWN;
    }
    for (const row of committed) out += `${row}\n`;
    const lines = this.#fit([...(this.#partial === '' ? [] : [this.#partial]), ...this.#block]).map(
      (line) => truncateVisible(line, this.#width),
    );
    if (lines.length > 0 && !this.#cursorHidden) {
      out = HIDE_CURSOR + out;
      this.#cursorHidden = true;
    }
    out += lines.join('\n');
    this.#drawnRows = lines.length;
    if (out !== '') this.#out.write(out);
  }

  #showCursor(): void {
    if (!this.#cursorHidden) return;
    this.#cursorHidden = false;
    this.#out.write(SHOW_CURSOR);
  }
}
