/**
 * Slash-command text (commands.md#commands-expand): `/name arguments` in a
 * chat/send text runs the session's command `name`; its template gets the
 * arguments as `$ARGUMENTS` (all of them) and `$1`..`$9` (whitespace-split,
 * quotes group). A template that uses neither gets the arguments appended,
 * so nothing the user typed is silently dropped.
 */
const INVOCATION = /^\/([A-Za-z0-9][A-Za-z0-9_.:-]*)(?:[ \t]+([\s\S]*))?$/;

export interface Invocation {
  readonly name: string;
  readonly args: string;
}

/** The command a text invokes, or undefined when it is not `/name ...`. */
export function parseInvocation(text: string): Invocation | undefined {
  const match = INVOCATION.exec(text.trimEnd());
  if (match === null) return undefined;
  return { name: match[1]!, args: (match[2] ?? '').trim() };
}

/** Splits arguments on whitespace; "double" or 'single' quotes keep spaces in one. */
export function splitArguments(args: string): string[] {
  const out: string[] = [];
  for (const match of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    out.push(match[1] ?? match[2] ?? match[3]!);
  }
  return out;
}

const PLACEHOLDER = /\$ARGUMENTS|\$([1-9])/g;

export function expandTemplate(template: string, args: string): string {
  const positional = splitArguments(args);
  let used = false;
  const expanded = template.replace(PLACEHOLDER, (_whole, digit: string | undefined) => {
    used = true;
    return digit === undefined ? args : (positional[Number(digit) - 1] ?? '');
  });
  if (used || args.length === 0) return expanded;
  return `${expanded.trimEnd()}\n\nARGUMENTS: ${args}`;
}
