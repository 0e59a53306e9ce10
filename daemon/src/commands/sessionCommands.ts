/**
 * A session's view of its commands and skills: reads them when asked
 * (commands/list, a turn's start), expands a `/name` text, and tells the
 * session's clients with commands/changed whenever a read finds a set that
 * differs from the last one they were told or answered
 * (commands.md#commands-changed). No watcher: the set matters when a user is
 * about to pick a command or a turn is about to run, and both read it.
 */
import type { CommandInfo } from '@arbor/protocol';
import { findCommand, listOf, type CommandCatalogue, type CommandSet } from './commandCatalogue.js';
import { expandTemplate, parseInvocation } from './expandCommand.js';

export interface TurnCommandInput {
  /** What the model gets as the user message: the expansion, or the text as typed. */
  readonly modelText: string;
  /** The skills the system prompt names. */
  readonly skills: readonly CommandInfo[];
}

export class SessionCommands {
  /** The list as last answered or announced; undefined until the first read. */
  private known: string | undefined;

  constructor(
    private readonly catalogue: CommandCatalogue,
    private readonly workspaceRoot: () => string,
    private readonly announce: (commands: CommandInfo[]) => void,
  ) {}

  list(): CommandInfo[] {
    return this.observe(this.catalogue.read(this.workspaceRoot()));
  }

  /** `/name args` of a command the session has becomes its expansion; any other text is kept. */
  forTurn(text: string): TurnCommandInput {
    const set = this.catalogue.read(this.workspaceRoot());
    const list = this.observe(set);
    const invocation = parseInvocation(text);
    const command = invocation && findCommand(set, invocation.name);
    return {
      modelText: command ? expandTemplate(command.template, invocation.args) : text,
      skills: list.filter((entry) => entry.kind === 'skill'),
    };
  }

  private observe(set: CommandSet): CommandInfo[] {
    const list = listOf(set);
    const key = JSON.stringify(list);
    if (this.known !== undefined && key !== this.known) this.announce(list);
    this.known = key;
    return list;
  }
}
