/**
 * Slash commands (commands.md, protocol 1.1), judged from outside: the suite
 * writes command files into the scenario's workspace (`.arbor/commands/`, the
 * place commands.md#commands-workspace-files fixes), lists them, and runs
 * them against a script whose keys are parts of the expansion only — the
 * scripted model answers by its first user message, so the reply tells what
 * the model got.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCodes, Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import type { DaemonContext, Initialized } from './context.js';
import { describe, requireDaemonCapability } from './context.js';
import { scriptedSession, send, sessionEvents, waitTurnEnd } from './turns.js';

const CAPABILITY = 'daemon.commands.capability';
const LIST = 'daemon.commands.list';
const EXPAND = 'daemon.commands.expand';
const STORED = 'daemon.commands.expand-stored';
const UNKNOWN = 'daemon.commands.unknown';
const CHANGED = 'daemon.commands.changed';
const UNKNOWN_SESSION = 'daemon.commands.list-unknown-session';

/** commands.md#commands-list-unique: commands before skills, each kind sorted by name, no name twice. */
function inListOrder(list: JsonObject[]): boolean {
  const key = (entry: JsonObject) =>
    `${entry.kind === 'command' ? 0 : 1}\u0000${String(entry.name)}`;
  return list.every((entry, i) => i === 0 || key(list[i - 1]!) < key(entry));
}

const EXPANSION = 'Conformance expansion of alpha, all: alpha "beta gamma"';
const SCRIPT: JsonObject = {
  [EXPANSION]: [{ text: 'EXPANDED' }],
  '/conformance-nothing here': [{ text: 'UNCHANGED' }],
  '*': [{ text: 'OTHER' }],
};

function writeCommand(ctx: DaemonContext, name: string, text: string): void {
  const dir = join(ctx.workspace, '.arbor', 'commands');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.md`), text);
}

/** The turn's streamed text. */
function turnText(c: Initialized, sessionId: string, turnId: string): string {
  return sessionEvents(c.conn, sessionId)
    .filter((e) => e.method === Methods.ChatChunk.method && e.params.turnId === turnId)
    .map((e) => String(e.params.text))
    .join('');
}

async function listCommands(c: Initialized, sessionId: string): Promise<JsonObject[] | undefined> {
  const listed = await c.conn.request(Methods.CommandsList.method, { sessionId });
  const commands = (listed?.result as JsonObject | undefined)?.commands;
  return Array.isArray(commands) ? (commands as JsonObject[]) : undefined;
}

export const commands: Scenario<DaemonContext> = {
  id: 'daemon-commands',
  role: 'daemon',
  title:
    'slash commands: listed from .arbor/commands, expanded for the model, announced when added',
  checks: [CAPABILITY, LIST, UNKNOWN_SESSION, EXPAND, STORED, UNKNOWN, CHANGED],
  async run(ctx) {
    const c = await ctx.connect();
    // Served exactly when advertised (a daemon without the method answers -32601).
    const advertised = c.init.capabilities.commands !== undefined;
    const unasked = await c.conn.request(Methods.CommandsList.method, {
      sessionId: 'ses_conformance_probe',
    });
    const served = unasked?.error?.code !== -32601;
    ctx.recorder.expect(
      CAPABILITY,
      advertised === served,
      advertised
        ? `the daemon advertises capabilities.commands, but commands/list got ${describe(unasked)}`
        : `the daemon serves commands/list (${describe(unasked)}) without advertising capabilities.commands`,
    );
    requireDaemonCapability(c.init, 'commands');
    writeCommand(
      ctx,
      'conformance-expand',
      '---\ndescription: Conformance probe\nargument-hint: <first> [rest]\n---\nConformance expansion of $1, all: $ARGUMENTS',
    );
    const sessionId = await scriptedSession(ctx, c, SCRIPT);

    const listed = await listCommands(c, sessionId);
    const probe = listed?.find((entry) => entry.name === 'conformance-expand');
    ctx.recorder.expect(
      LIST,
      listed !== undefined &&
        inListOrder(listed) &&
        probe?.kind === 'command' &&
        probe.source === 'workspace' &&
        probe.description === 'Conformance probe' &&
        probe.argumentHint === '<first> [rest]',
      `commands/list gave ${listed ? JSON.stringify(listed).slice(0, 300) : 'no list'}; expected conformance-expand (command, workspace, its description and argument-hint)`,
    );

    const unknownSession = await c.conn.request(Methods.CommandsList.method, {
      sessionId: 'ses_conformance_unknown',
    });
    ctx.recorder.expect(
      UNKNOWN_SESSION,
      unknownSession?.error?.code === ErrorCodes.SessionNotFound,
      `commands/list for an unknown session got ${describe(unknownSession)}, expected error -33004`,
    );

    const typed = '/conformance-expand alpha "beta gamma"';
    const expandTurn = await send(ctx, c.conn, sessionId, typed);
    await waitTurnEnd(ctx, c.conn, sessionId, expandTurn);
    const expanded = turnText(c, sessionId, expandTurn);
    ctx.recorder.expect(
      EXPAND,
      expanded === 'EXPANDED',
      `the model answered ${JSON.stringify(expanded)}: it did not get ${JSON.stringify(EXPANSION)} as the user message`,
    );
    const loaded = await c.conn.request(Methods.SessionLoad.method, { sessionId });
    const messages = ((loaded?.result as JsonObject | undefined)?.messages ?? []) as JsonObject[];
    const stored = messages.find((m) => m.turnId === expandTurn && m.role === 'user')?.content;
    ctx.recorder.expect(
      STORED,
      stored === typed,
      `session/load's user message of the turn is ${JSON.stringify(stored)} (${describe(loaded).slice(0, 60)}), expected the text as sent ${JSON.stringify(typed)}`,
    );

    const unknownText = '/conformance-nothing here';
    const unknown = await c.conn.request(Methods.ChatSend.method, { sessionId, text: unknownText });
    const unknownTurn = (unknown?.result as JsonObject | undefined)?.turnId;
    if (typeof unknownTurn !== 'string') {
      ctx.recorder.fail(
        UNKNOWN,
        `chat/send ${JSON.stringify(unknownText)} got ${describe(unknown)}`,
      );
    } else {
      await waitTurnEnd(ctx, c.conn, sessionId, unknownTurn);
      const reply = turnText(c, sessionId, unknownTurn);
      ctx.recorder.expect(
        UNKNOWN,
        reply === 'UNCHANGED',
        `the model answered ${JSON.stringify(reply)}: it did not get ${JSON.stringify(unknownText)} unchanged`,
      );
    }

    writeCommand(ctx, 'conformance-added', 'Added later.');
    const before = sessionEvents(c.conn, sessionId).length;
    const changedTurn = await send(ctx, c.conn, sessionId, 'conformance plain turn');
    await waitTurnEnd(ctx, c.conn, sessionId, changedTurn);
    const after = sessionEvents(c.conn, sessionId).slice(before);
    const changed = after.findIndex((e) => e.method === Methods.CommandsChanged.method);
    const running = after.findIndex(
      (e) => e.method === Methods.SessionState.method && e.params.turnId === changedTurn,
    );
    const list = changed < 0 ? undefined : (after[changed]!.params.commands as JsonObject[]);
    ctx.recorder.expect(
      CHANGED,
      changed >= 0 &&
        changed < running &&
        (list ?? []).some((entry) => entry.name === 'conformance-added'),
      changed < 0
        ? 'no commands/changed after .arbor/commands/conformance-added.md was written and a turn started'
        : `commands/changed came ${changed < running ? '' : 'after session/state running '}with ${JSON.stringify(list).slice(0, 200)}`,
    );
  },
};
