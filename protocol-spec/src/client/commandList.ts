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

export { commandCompletions, invokedCommand } from './commandMatch.js';
