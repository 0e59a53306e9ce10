/**
 * The normative sentences of the written spec: every `<a id="…"></a>` anchor
 * whose sentence says MUST / MUST NOT / SHALL / REQUIRED (tier MUST) or
 * SHOULD / SHOULD NOT (tier SHOULD). Anchors on headings or on MAY sentences
 * are not requirements and are left out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SPEC_DIR = fileURLToPath(new URL('../../../protocol-spec/spec/', import.meta.url));

/** The page this generator writes; it cites anchors but states none. */
export const COVERAGE_PAGE = 'conformance-coverage.md';

export interface SpecAnchor {
  /** `file.md#anchor`, the form checks cite. */
  readonly ref: string;
  readonly tier: 'MUST' | 'SHOULD';
  /** The sentence, whitespace collapsed. */
  readonly text: string;
}

const ANCHOR = /<a id="([a-z0-9-]+)"><\/a>/g;
// A sentence ends at the next anchor, a blank line, a new list item or a heading.
const SENTENCE_END = /<a id="|\n\s*\n|\n\s*(?:[-*]|\d+\.)\s|\n#/;

function tierOf(text: string): SpecAnchor['tier'] | undefined {
  if (/\b(MUST|SHALL|REQUIRED)\b/.test(text)) return 'MUST';
  if (/\bSHOULD\b/.test(text)) return 'SHOULD';
  return undefined;
}

export function anchorsOf(file: string, markdown: string): SpecAnchor[] {
  const found: SpecAnchor[] = [];
  for (const m of markdown.matchAll(ANCHOR)) {
    const rest = markdown.slice(m.index + m[0].length);
    const end = rest.search(SENTENCE_END);
    const text = (end === -1 ? rest : rest.slice(0, end)).replace(/\s+/g, ' ').trim();
    const tier = tierOf(text);
    if (tier) found.push({ ref: `${file}#${m[1]}`, tier, text });
  }
  return found;
}

export function specAnchors(dir = SPEC_DIR): SpecAnchor[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== COVERAGE_PAGE)
    .sort()
    .flatMap((f) => anchorsOf(f, readFileSync(`${dir}${f}`, 'utf8')));
}

/** Every anchor of the spec, normative or not (section anchors that checks may cite). */
export function allAnchorRefs(dir = SPEC_DIR): Set<string> {
  const refs = new Set<string>();
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.md') && f !== COVERAGE_PAGE))
    for (const m of readFileSync(`${dir}${f}`, 'utf8').matchAll(ANCHOR)) refs.add(`${f}#${m[1]}`);
  return refs;
}
