/** ANSI colours, on a terminal only: NO_COLOR (any value) or a pipe gets plain text. */

export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

/** https://no-color.org: a set, non-empty NO_COLOR disables colour. FORCE_COLOR=0 as well. */
export function wantsColor(
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  if (env['FORCE_COLOR'] === '0') return false;
  return stream.isTTY === true && env['TERM'] !== 'dumb';
}

export function createStyle(enabled: boolean): Style {
  const wrap = (open: number, close: number) => (text: string) =>
    enabled && text !== '' ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    magenta: wrap(35, 39),
  };
}

// eslint-disable-next-line no-control-regex -- terminal escapes are what this matches
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
/** Sticky: matches an escape exactly at lastIndex. */
// eslint-disable-next-line no-control-regex -- terminal escapes are what this matches
const ANSI_AT = /\u001b\[[0-9;?]*[A-Za-z]/y;

/** The text without escape sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** Columns a string takes: code points outside escapes (wide glyphs counted as one). */
export function visibleWidth(text: string): number {
  return [...stripAnsi(text)].length;
}

/** Cuts to `width` visible columns, keeping escapes, with an ellipsis when cut. */
export function truncateVisible(text: string, width: number): string {
  if (width <= 0) return '';
  if (visibleWidth(text) <= width) return text;
  let out = '';
  let seen = 0;
  let index = 0;
  while (index < text.length) {
    ANSI_AT.lastIndex = index;
    const escape = ANSI_AT.exec(text);
    if (escape) {
      out += escape[0];
      index += escape[0].length;
      continue;
    }
    const char = String.fromCodePoint(text.codePointAt(index)!);
    if (seen === width - 1) {
      out += '…';
      break;
    }
    out += char;
    seen++;
    index += char.length;
  }
  // Close any colour left open by the cut.
  // eslint-disable-next-line no-control-regex -- terminal escapes are what this matches
  return /\u001b\[/.test(out) ? `${out}\u001b[0m` : out;
}
