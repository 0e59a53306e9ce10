/** Which commands a composer's text completes or runs: no wire, no schemas (client/view.ts). */
import type { CommandInfo } from '../commands.js';

/**
 * The commands that complete `typed` (the composer's text so far, starting
 * with `/`, before any space): names starting with what follows the `/`.
 * Skills are left out; the model, not the user, runs them.
 */
export function commandCompletions(commands: readonly CommandInfo[], typed: string): CommandInfo[] {
  if (!typed.startsWith('/') || /\s/.test(typed)) return [];
  const prefix = typed.slice(1);
  return commands.filter((entry) => entry.kind === 'command' && entry.name.startsWith(prefix));
}

/** The command a text runs (`/name` then nothing or whitespace), or undefined. */
export function invokedCommand(
  commands: readonly CommandInfo[],
  text: string,
): CommandInfo | undefined {
  const name = /^\/(\S+)/.exec(text)?.[1];
  return name === undefined
    ? undefined
    : commands.find((entry) => entry.kind === 'command' && entry.name === name);
}
