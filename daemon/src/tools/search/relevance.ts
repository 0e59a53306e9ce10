/**
 * How search_code orders the files the index found and which of their lines
 * it shows. What a model searching code usually wants first is where a
 * symbol is defined, then a file named after it, then the files that use the
 * terms most for their size. So, for each file, per term:
 * - defined: the term is part of a name that follows a definition keyword
 *   (`function`, `class`, `def`, `fn`, `type`, `const`...) on some line;
 * - named: the term is in the file's name;
 * - whole: the term occurs as a whole word somewhere (`helper42`, not only
 *   inside `helper4242`);
 * - frequency: bm25's saturating term frequency with length normalization
 *   (k1 1.2, b 0.75; no inverse document frequency: every file found holds
 *   every term, so it would weigh them all alike).
 * Definition and name outweigh the rest; frequency ranks within those tiers.
 */
import type { IndexHit } from './searchIndex.js';

export interface RankedFile extends IndexHit {
  score: number;
}

export interface MatchingLine {
  /** 1-based. */
  line: number;
  text: string;
}

const K1 = 1.2;
const B = 0.75;
const DEFINED_WEIGHT = 4;
const NAMED_WEIGHT = 2;
const WHOLE_WEIGHT = 1;
/** Occurrences counted per term and file: frequency saturates long before. */
const MAX_COUNTED = 32;
/** A definition keyword, then a name, ending where the term was found (a Go receiver allowed). */
const DEFINITION_BEFORE =
  /(?:^|[^\w$])(?:function\*?|class|interface|type|enum|struct|trait|impl|def|fn|func|const|let|var|val|module|namespace|macro|record|object)\s+(?:\([^)]*\)\s*)?[\w$.]*$/i;
const WORD_CHAR = /[\w$]/;
/** How far back on the line a definition keyword is looked for. */
const DEFINITION_REACH = 120;

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** The terms of one query, compiled once for all the files it ranks. */
export class QueryTerms {
  readonly lowered: readonly string[];
  private readonly each: readonly RegExp[];
  private readonly any: RegExp;

  constructor(readonly terms: readonly string[]) {
    this.lowered = terms.map((term) => term.toLowerCase());
    this.each = terms.map((term) => new RegExp(escapeRegExp(term), 'gi'));
    // Longest first, so a line is credited to the longest term found at a place.
    const alternatives = [...terms].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.any = new RegExp(alternatives.join('|'), 'gi');
  }

  /** Orders `files` best first (ties by path); a file missing a term is dropped. */
  rank(files: readonly IndexHit[]): RankedFile[] {
    if (files.length === 0) return [];
    const averageLength = files.reduce((sum, file) => sum + file.content.length, 0) / files.length;
    const ranked: RankedFile[] = [];
    for (const file of files) {
      const score = this.score(file, averageLength);
      if (score !== undefined) ranked.push({ ...file, score });
    }
    return ranked.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
  }

  private score(file: IndexHit, averageLength: number): number | undefined {
    const { content } = file;
    const name = file.path.slice(file.path.lastIndexOf('/') + 1).toLowerCase();
    const norm = K1 * (1 - B + (B * content.length) / Math.max(1, averageLength));
    let total = 0;
    for (let t = 0; t < this.each.length; t++) {
      const regex = this.each[t]!;
      regex.lastIndex = 0;
      let count = 0;
      let defined = false;
      let whole = false;
      for (let found = regex.exec(content); found; found = regex.exec(content)) {
        count += 1;
        whole ||=
          !WORD_CHAR.test(content.charAt(found.index - 1)) &&
          !WORD_CHAR.test(content.charAt(found.index + found[0].length));
        if (!defined) {
          const lineStart = content.lastIndexOf('\n', found.index) + 1;
          const before = content.slice(
            Math.max(lineStart, found.index - DEFINITION_REACH),
            found.index,
          );
          defined = DEFINITION_BEFORE.test(before);
        }
        if (count >= MAX_COUNTED) break;
      }
      // The index folds case a little differently from JavaScript: trust the text.
      if (count === 0) return undefined;
      total += (count * (K1 + 1)) / (count + norm);
      if (defined) total += DEFINED_WEIGHT;
      if (whole) total += WHOLE_WEIGHT;
      if (name.includes(this.lowered[t]!)) total += NAMED_WEIGHT;
    }
    return total / this.each.length;
  }

  /**
   * The first `max` lines holding a term, in file order. Found by searching
   * the text, not by splitting it: a large file costs only up to its last
   * line shown.
   */
  lines(content: string, max: number): MatchingLine[] {
    const out: MatchingLine[] = [];
    const regex = this.any;
    regex.lastIndex = 0;
    let line = 1;
    let counted = 0; // newlines counted up to here
    for (let found = regex.exec(content); found && out.length < max; found = regex.exec(content)) {
      for (let i = content.indexOf('\n', counted); i !== -1 && i < found.index;) {
        line += 1;
        counted = i + 1;
        i = content.indexOf('\n', counted);
      }
      const start = counted;
      let end = content.indexOf('\n', found.index);
      if (end === -1) end = content.length;
      out.push({ line, text: snippet(content.slice(start, end), found.index - start) });
      // Next match on a later line.
      regex.lastIndex = end;
    }
    return out;
  }
}

export const SNIPPET_CHARS = 200;

/** The line, trimmed; a long one cut to a window that shows the match at `at`. */
export function snippet(line: string, at: number): string {
  const text = line.trimEnd();
  const start = text.length - text.trimStart().length;
  if (text.length - start <= SNIPPET_CHARS) return text.slice(start);
  if (at - start < SNIPPET_CHARS - 40) return `${text.slice(start, start + SNIPPET_CHARS)}…`;
  const from = Math.max(start, at - 40);
  const to = from + SNIPPET_CHARS;
  return `…${text.slice(from, to)}${to < text.length ? '…' : ''}`;
}
