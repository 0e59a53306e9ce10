/**
 * The session's slash commands as ACP's `available_commands_update`: the
 * editor offers them when the user types `/`, and sends the chosen one back
 * as prompt text (`/name arguments`), which the bridge passes to chat/send
 * unchanged for the daemon to expand (commands.md#commands-expand). Skills
 * are left out: the model runs them, not the user.
 */
import type { CommandInfo } from '@arbor/protocol';
import { listCommands, type ArborClient, type SessionView } from '@arbor/protocol/client';
import type { SessionUpdate } from '@agentclientprotocol/sdk';

export function availableCommandsUpdate(commands: readonly CommandInfo[]): SessionUpdate {
  return {
    sessionUpdate: 'available_commands_update',
    availableCommands: commands
      .filter((entry) => entry.kind === 'command')
      .map((entry) => ({
        name: entry.name,
        // ACP requires a description; a command file without one says where it is from.
        description: entry.description ?? `${entry.source} command`,
        ...(entry.argumentHint === undefined ? {} : { input: { hint: entry.argumentHint } }),
      })),
  };
}

/**
 * Sends each new list as an update; an editor starts with none, so an empty
 * list is news only after a non-empty one.
 */
export function commandsAnnouncer(
  send: (update: SessionUpdate) => void,
): (commands: readonly CommandInfo[]) => void {
  let shown = false;
  return (commands) => {
    const update = availableCommandsUpdate(commands);
    const any =
      update.sessionUpdate === 'available_commands_update' && update.availableCommands.length > 0;
    if (!any && !shown) return;
    shown = any;
    send(update);
  };
}

/**
 * Lists the session's commands into its view, whose `commands` event sends
 * the update; later changes come as commands/changed through the same event.
 */
export async function seedCommands(
  arbor: ArborClient,
  view: SessionView,
  log: (message: string) => void,
): Promise<void> {
  try {
    view.seedCommands(await listCommands(arbor, view.sessionId));
  } catch (error) {
    log(`commands/list failed, no slash commands offered: ${String(error)}`);
  }
}
