/**
 * The frontmatter of a command or skill file: a `---` block of `key: value`
 * lines at the very start, as Claude Code's command files and Agent Skills
 * write it. Only flat string values are read (quotes stripped); anything
 * else in the block is ignored rather than refused, so a file written for
 * another tool still works here.
 */
export interface Frontmatter {
  readonly fields: ReadonlyMap<string, string>;
  /** The file without its frontmatter block. */
  readonly body: string;
}

const BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const FIELD = /^([A-Za-z][A-Za-z0-9_-]*)[ \t]*:[ \t]*(.*)$/;

export function parseFrontmatter(text: string): Frontmatter {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const match = BLOCK.exec(source);
  if (match === null) return { fields: new Map(), body: source };
  const fields = new Map<string, string>();
  for (const line of match[1]!.split(/\r?\n/)) {
    const field = FIELD.exec(line);
    if (field === null) continue;
    const value = unquote(field[2]!.trim());
    if (value.length > 0) fields.set(field[1]!, value);
  }
  return { fields, body: source.slice(match[0].length) };
}

function unquote(value: string): string {
  const quoted = /^(["'])(.*)\1$/.exec(value);
  return quoted ? quoted[2]! : value;
}
