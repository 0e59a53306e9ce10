/**
 * The rule an "always allow" answer saves: the narrowest one that still
 * covers the calls a user means by "this" — the same program and
 * subcommand (`npm test:*`), the directory a file is in (`src/util/**`),
 * the same host. A call it cannot narrow safely (a compound or opaque
 * command line, an option right after the program) gets the exact call.
 */
import { posix } from 'node:path';
import { commandWords } from './commandWords.js';
import { PermissionRule } from './permissionRule.js';
import type { RuleSubject } from './ruleSubjects.js';

export function suggestRule(tool: string, subject: RuleSubject | undefined): string | undefined {
  const text = suggestion(tool, subject);
  if (text === undefined) return undefined;
  // Offer only what reads back as a rule that covers this very call.
  try {
    const rule = PermissionRule.parse(text, 'allow', 'remembered');
    return rule.text;
  } catch {
    return undefined;
  }
}

function suggestion(tool: string, subject: RuleSubject | undefined): string | undefined {
  if (subject === undefined) return tool;
  switch (subject.kind) {
    case 'command': {
      const { segments, opaque } = commandWords(subject.command);
      if (opaque || segments.length !== 1 || /[()\n]/.test(subject.command)) return undefined;
      const [program, next] = segments[0]!;
      if (tool === 'run_command' && next !== undefined && !next.startsWith('-')) {
        return `${tool}(${quoteWord(program!)} ${quoteWord(next)}:*)`;
      }
      return `${tool}(${subject.command.trim()})`;
    }
    case 'path': {
      const paths = subject.paths.map((p) => p.lexical);
      if (paths.length === 0 || paths.some((p) => p === undefined || p === '.')) return undefined;
      const dirs = [...new Set((paths as string[]).map((p) => posix.dirname(p)))];
      const common = commonDirectory(dirs);
      if (common !== '.') return `${tool}(${common}/**)`;
      const names = [...new Set(paths as string[])];
      return names.length === 1 ? `${tool}(${names[0]})` : `${tool}({${names.join(',')}})`;
    }
    case 'domain':
      return `${tool}(domain:${subject.host})`;
  }
}

function commonDirectory(dirs: readonly string[]): string {
  let common = dirs[0]!.split('/');
  for (const dir of dirs.slice(1)) {
    const parts = dir.split('/');
    let i = 0;
    while (i < common.length && common[i] === parts[i]) i++;
    common = common.slice(0, i);
  }
  return common.length === 0 ? '.' : common.join('/');
}

/** Words with spaces or quotes read back as one word. */
function quoteWord(word: string): string {
  return /^[A-Za-z0-9_@%+=,./:-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
