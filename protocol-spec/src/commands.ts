/**
 * Commands and skills (protocol 1.1): `commands/list` names a session's slash
 * commands (prompt templates a user runs as `/name arguments` in chat/send)
 * and skills (folders the model reads on demand); `commands/changed` tells
 * attached clients when that set changed.
 */
import { z } from 'zod';
import { SessionId, message, sessionEvent } from './base.js';
import { notification, request } from './descriptor.js';

/** A command name: segments of letters, digits, `_`, `-`, `.`; `:` joins a subdirectory namespace. */
export const CommandName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}(:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}){0,3}$/,
    'command names are segments of letters, digits, _ . - joined by :',
  );

export const CommandSource = z
  .enum(['workspace', 'user'])
  .describe("workspace: the session's workspace .arbor/ folder; user: the user's own folder");
export type CommandSource = z.infer<typeof CommandSource>;

export const CommandKind = z
  .enum(['command', 'skill'])
  .describe(
    'command: a prompt template the user runs as /name; skill: instructions the model reads on demand',
  );
export type CommandKind = z.infer<typeof CommandKind>;

export const CommandInfo = message({
  name: CommandName.describe('What the user types after / (command) or the model names (skill)'),
  kind: CommandKind,
  source: CommandSource,
  description: z.string().max(1024).optional().describe('From the file’s frontmatter'),
  argumentHint: z
    .string()
    .max(200)
    .optional()
    .describe('What arguments a command takes, e.g. "<file> [focus]"'),
}).describe('A slash command or a skill of a session');
export type CommandInfo = z.infer<typeof CommandInfo>;

const CommandList = z
  .array(CommandInfo)
  .max(1000)
  .describe('Commands first, then skills, each sorted by name; names are unique per kind');

export const CommandsListParams = message({ sessionId: SessionId });
export const CommandsListResult = message({ commands: CommandList });
export type CommandsListResult = z.infer<typeof CommandsListResult>;

export const CommandsList = request({
  method: 'commands/list',
  direction: 'clientToDaemon',
  params: CommandsListParams,
  result: CommandsListResult,
  capability: 'daemon.commands',
  summary: "Lists a session's slash commands and skills, as read from their folders now.",
  specRef: 'commands.md#commands-list',
});

export const CommandsChangedParams = message({ ...sessionEvent, commands: CommandList });
export type CommandsChangedParams = z.infer<typeof CommandsChangedParams>;

export const CommandsChanged = notification({
  method: 'commands/changed',
  direction: 'daemonToClient',
  params: CommandsChangedParams,
  // Sent only by a daemon advertising capabilities.commands; a client that does not know it ignores it.
  summary: "The session's commands or skills changed; carries the whole new list.",
  specRef: 'commands.md#commands-changed',
});
