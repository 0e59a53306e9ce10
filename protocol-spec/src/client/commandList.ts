/**
 * Slash commands in a client (commands.md): list a session's commands and
 * skills, offer completions for what the user is typing, and tell whether a
 * text runs a command. Running one needs nothing more: the client sends the
 * text as typed (`/name arguments`) with chat/send and the daemon expands it.
 * The live list is SessionView.commands (seeded from `commands/list`, replaced
 * by each `commands/changed`).
 */
import type { CommandInfo } from '../commands.js';
import { Methods } from '../methods.js';
import type { ArborClient } from './arborClient.js';

/** The session's commands and skills; empty when the daemon does not advertise capabilities.commands. */
export async function listCommands(client: ArborClient, sessionId: string): Promise<CommandInfo[]> {
  const capability = Methods.CommandsList.capability;
  if (capability && !client.hasCapability(capability)) return [];
  const { commands } = await client.request(Methods.CommandsList, { sessionId });
  return commands;
}

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
