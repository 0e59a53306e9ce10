/**
 * Glob patterns (for glob and grep's include) and .gitignore rules, as
 * regular expressions over `/`-separated relative paths. Ignore files shape
 * search results only; they are not a security boundary.
 */
import { resolveInWorkspace } from './confinement.js';
import { withFile } from './safeFs.js';

function escapeChar(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

/** `*` within a segment, `**` across segments, `?`, `[...]`, `{a,b}`. */
export function globToRegExp(pattern: string, options: { anchored?: boolean } = {}): RegExp {
  let out = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        const slashAfter = pattern[i + 2] === '/';
        const atSegmentStart = i === 0 || pattern[i - 1] === '/';
        if (atSegmentStart && slashAfter) {
          out += '(?:.*/)?';
          i += 2;
        } else {
          out += '.*';
          i += 1;
        }
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) out += '\\[';
      else {
        let body = pattern.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (body.startsWith('!')) body = '^' + body.slice(1);
        out += `[${body}]`;
        i = end;
      }
    } else if (c === '{') {
      braces += 1;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces -= 1;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else if (c === '\\' && i + 1 < pattern.length) out += escapeChar(pattern[++i]!);
    else out += escapeChar(c);
  }
  out += ')'.repeat(braces);
  return new RegExp(options.anchored === false ? `(?:^|/)${out}$` : `^${out}$`);
}

interface IgnoreRule {
  /** Directory of the .gitignore, relative to the root ('' for the root). */
  base: string;
  regex: RegExp;
  negate: boolean;
  directoryOnly: boolean;
}

/** The rules of one .gitignore file. */
export function parseGitignore(text: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
    let directoryOnly = false;
    if (line.endsWith('/')) {
      directoryOnly = true;
      line = line.slice(0, -1);
    }
    if (line === '') continue;
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    const regex = anchored ? globToRegExp(line) : globToRegExp(line, { anchored: false });
    rules.push({ base, regex, negate, directoryOnly });
  }
  return rules;
}

/** .gitignore rules collected while walking down a tree; deeper and later rules win. */
export class IgnoreStack {
  constructor(private readonly rules: readonly IgnoreRule[] = []) {}

  /** The stack for the children of `dir` (relative), reading `dir/.gitignore` if present. */
  enter(rootReal: string, dir: string): IgnoreStack {
    let text: string | undefined;
    try {
      const path = dir === '' ? '.gitignore' : `${dir}/.gitignore`;
      const { real } = resolveInWorkspace(rootReal, path);
      text = withFile(rootReal, real, path, (file) =>
        file.stats.isFile() ? file.read().toString('utf8') : undefined,
      );
    } catch {
      return this;
    }
    if (text === undefined) return this;
    return new IgnoreStack([...this.rules, ...parseGitignore(text, dir)]);
  }

  ignores(relativePath: string, isDirectory: boolean): boolean {
    let ignored = false;
    for (const rule of this.rules) {
      if (rule.directoryOnly && !isDirectory) continue;
      let path = relativePath;
      if (rule.base !== '') {
        if (!path.startsWith(rule.base + '/')) continue;
        path = path.slice(rule.base.length + 1);
      }
      if (rule.regex.test(path)) ignored = !rule.negate;
    }
    return ignored;
  }
}
