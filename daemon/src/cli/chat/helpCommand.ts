/**
 * `/help` at the `arbor chat` prompt, and Tab completion of `/` names: the
 * chat's own commands and the session's slash commands (commands/list,
 * commands.md). A slash command needs nothing here to run: the line goes to
 * chat/send as typed and the daemon expands it.
 */
import type { CommandInfo } from '@arbor/protocol';
import { commandCompletions, listCommands, type ArborClient } from '@arbor/protocol/client';

/** The chat's own commands; they win over a session command of the same name. */
export const BUILTIN_COMMANDS: readonly { name: string; help: string }[] = [
  { name: '/model', help: '<provider:model>  switch the session’s model' },
  { name: '/tools', help: 'list the tools a turn offers the model' },
  { name: '/diff', help: '[n]  show what a turn changed' },
  { name: '/undo', help: '[n]  put back what a turn changed' },
  { name: '/help', help: 'this list' },
  { name: '/exit', help: 'quit (also Ctrl-D)' },
];

export const HELP_COMMAND = '/help';

/** The session's commands and skills; none when they cannot be listed. */
export async function sessionCommands(
  client: ArborClient,
  sessionId: string,
): Promise<CommandInfo[]> {
  try {
    return await listCommands(client, sessionId);
  } catch {
    return [];
  }
}

export function helpLines(commands: readonly CommandInfo[]): string[] {
  const lines = ['chat commands:', ...BUILTIN_COMMANDS.map((c) => `  ${c.name}  ${c.help}`)];
  const runnable = commands.filter((c) => c.kind === 'command');
  if (runnable.length > 0) {
    lines.push('slash commands (sent to the agent, expanded by the daemon):');
    for (const c of runnable) {
      const hint = c.argumentHint ? ` ${c.argumentHint}` : '';
      const about = c.description ? `  ${c.description}` : '';
      lines.push(`  /${c.name}${hint}${about}  (${c.source})`);
    }
  }
  const skills = commands.filter((c) => c.kind === 'skill');
  if (skills.length > 0) {
    lines.push('skills (the agent reads them when a task calls for one):');
    for (const s of skills) lines.push(`  ${s.name}${s.description ? `  ${s.description}` : ''}`);
  }
  return lines;
}

/** Readline's completer for a line: `/` names that start with what is typed. */
export function completeLine(commands: readonly CommandInfo[], line: string): [string[], string] {
  if (!line.startsWith('/') || /\s/.test(line)) return [[], line];
  const builtins = BUILTIN_COMMANDS.map((c) => c.name).filter((name) => name.startsWith(line));
  const own = commandCompletions(commands, line).map((c) => `/${c.name}`);
  return [[...new Set([...builtins, ...own])], line];
}
