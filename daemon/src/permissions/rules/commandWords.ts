/**
 * A command line as permission rules see it: the simple commands it runs, as
 * words, split at the shell's control operators by shell-quote. Rules never
 * guess at what the shell would expand: a line with a substitution or a
 * redirection is `opaque`, which no allow rule matches.
 */
import { parse } from 'shell-quote';

export interface CommandWords {
  /** Each simple command of the line (split at `&&`, `||`, `;`, `|`, `&`), as words. */
  segments: string[][];
  /** Holds a substitution (`$(…)`, backticks), a subshell or a redirection. */
  opaque: boolean;
}

const CONTROL = new Set(['&&', '||', ';', '|', '&', ';;', '|&']);

export function commandWords(command: string): CommandWords {
  let opaque = /`|\$\(|\$\{|<\(|>\(/.test(command);
  const segments: string[][] = [[]];
  // Variables stay as written: a rule compares what the user would read.
  for (const token of parse(command, (name) => `$${name}`)) {
    if (typeof token === 'string') segments.at(-1)!.push(token);
    else if ('op' in token && token.op === 'glob') segments.at(-1)!.push(token.pattern);
    else if ('op' in token && CONTROL.has(token.op)) segments.push([]);
    else opaque = true; // redirections, parentheses, comments
  }
  return { segments: segments.filter((words) => words.length > 0), opaque };
}

/** `KEY=value` words before the program name. */
export function withoutAssignments(words: readonly string[]): string[] {
  let start = 0;
  while (start < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[start]!)) start++;
  return words.slice(start);
}
