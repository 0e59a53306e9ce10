/**
 * How the text of several model calls of one loop reads as one answer
 * (turns.md#turns-text-joined): the root loop answers with text, calls a tool,
 * then answers with more text. The daemon joins the later text to the earlier
 * with a blank line, sent as part of the later answer's first chunk, and
 * stores the answer joined the same way, so the streamed and stored text are
 * equal. Its text is not ASCII, so the chunk checks of every turn's end
 * (TURN_END_CHECKS) see a surrogate pair too.
 */
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import type { DaemonContext } from './context.js';
import { TURN_END_CHECKS, checkTurnEnd } from './turnEnd.js';
import { scriptedSession, send, sessionEvents, waitTurnEnd } from './turns.js';

// Not ASCII: a daemon counting Content-Length in characters is caught (daemon.wire.frames).
const FIRST = 'Looking at the directory first — naïve café 🌳.';
const SECOND = 'Found what I needed.';
const JOINED = `${FIRST}\n\n${SECOND}`;

const SCRIPT: JsonObject = {
  '*': [
    { text: FIRST, toolCalls: [{ id: 'join-call', name: 'list_dir', arguments: {} }] },
    { text: SECOND },
  ],
};

export const textJoined: Scenario<DaemonContext> = {
  id: 'daemon-text-joined',
  role: 'daemon',
  title: 'text, a tool call, more text: streamed and stored joined by a blank line',
  checks: ['daemon.turns.text-joined', ...TURN_END_CHECKS],
  async run(ctx) {
    const check = 'daemon.turns.text-joined';
    const c = await ctx.connect('text-join');
    const sessionId = await scriptedSession(ctx, c, SCRIPT);
    const turnId = await send(ctx, c.conn, sessionId, 'Look, then answer.');
    await waitTurnEnd(ctx, c.conn, sessionId, turnId);
    checkTurnEnd(ctx.recorder, sessionEvents(c.conn, sessionId), turnId, 2);
    const events = sessionEvents(c.conn, sessionId).filter((e) => e.params.turnId === turnId);
    const nodes = events
      .filter((e) => e.method === Methods.TreeUpdate.method)
      .flatMap((e) => (e.params.nodes as JsonObject[] | undefined) ?? []);
    const root = nodes.find((n) => n.kind === 'turn')?.id;
    const toolShown = events.findIndex(
      (e) =>
        e.method === Methods.TreeUpdate.method &&
        ((e.params.nodes as JsonObject[] | undefined) ?? []).some((n) => n.kind === 'tool'),
    );
    const chunks = events
      .map((e, i) => ({ i, params: e.params, method: e.method }))
      .filter((e) => e.method === Methods.ChatChunk.method && e.params.nodeId === root);
    const streamed = chunks.map((e) => String(e.params.text)).join('');
    const afterTool = chunks.find((e) => e.i > toolShown);
    const loaded = await c.conn.request(Methods.SessionLoad.method, { sessionId });
    const messages = ((loaded?.result as JsonObject | undefined)?.messages ?? []) as JsonObject[];
    const stored = messages.find((m) => m.turnId === turnId && m.role === 'assistant')?.content;
    const problems = [
      ...(streamed === JOINED
        ? []
        : [
            `the turn node's chunks read ${JSON.stringify(streamed)}, expected ${JSON.stringify(JOINED)}`,
          ]),
      ...(toolShown < 0 ||
      afterTool === undefined ||
      String(afterTool.params.text).startsWith('\n\n')
        ? []
        : [
            `the first chunk after the tool call is ${JSON.stringify(afterTool.params.text)}: the blank line does not begin the later answer's first chunk`,
          ]),
      ...(stored === JOINED
        ? []
        : [
            `session/load stores the answer as ${JSON.stringify(stored)}, expected ${JSON.stringify(JOINED)}`,
          ]),
    ];
    ctx.recorder.expect(check, problems.length === 0, problems.join('; '));
  },
};

/** A path longer than a preview may be, in code points (é is one code point, two UTF-8 bytes). */
const LONG_PATH = `conformance-${'é'.repeat(600)}.txt`;

/**
 * A call whose arguments (and error result) are longer than a preview may be:
 * the schema (maxLength 500 code points) judges tree.md#tree-preview-limit.
 */
export const longPreview: Scenario<DaemonContext> = {
  id: 'daemon-long-preview',
  role: 'daemon',
  title: 'a tool call with 600-character arguments: its previews are cut to 500 code points',
  checks: [...TURN_END_CHECKS],
  async run(ctx) {
    const c = await ctx.connect('long-preview');
    const script: JsonObject = {
      '*': [
        { toolCalls: [{ id: 'long-1', name: 'read_file', arguments: { path: LONG_PATH } }] },
        { text: 'It is not there.' },
      ],
    };
    const sessionId = await scriptedSession(ctx, c, script);
    const turnId = await send(ctx, c.conn, sessionId, 'Read the file with the long name.');
    await waitTurnEnd(ctx, c.conn, sessionId, turnId);
    checkTurnEnd(ctx.recorder, sessionEvents(c.conn, sessionId), turnId, 2);
  },
};
