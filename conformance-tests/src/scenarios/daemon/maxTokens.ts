/**
 * A model reply cut off at its output-token limit (turns.md#max-tokens,
 * protocol 1.1), scripted with `"stop": "max_tokens"`: the turn ends with
 * stopReason max_tokens for a client with `capabilities.openEnums`, keeps the
 * text, runs none of the reply's tool calls; a v1 client gets end_turn.
 */
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import type { DaemonContext, Initialized } from './context.js';
import { TURN_END_CHECKS, checkTurnEnd } from './turnEnd.js';
import { scriptedSession, send, sessionEvents, waitTurnEnd, type Event } from './turns.js';

const CUT_OFF_TEXT = 'The release notes, in full: first,';

/** The cut-off reply calls a tool; a daemon that runs it announces a tool node. */
const CUT_OFF_SCRIPT: JsonObject = {
  '*': [
    {
      text: CUT_OFF_TEXT,
      toolCalls: [{ id: 'cut-off-call', name: 'list_dir', arguments: {} }],
      usage: { inputTokens: 30, outputTokens: 64 },
      stop: 'max_tokens',
    },
    { text: 'A reply a cut-off turn never reaches.' },
  ],
};

interface CutOffTurn {
  idle: JsonObject;
  events: Event[];
}

async function cutOffTurn(ctx: DaemonContext, c: Initialized): Promise<CutOffTurn> {
  const sessionId = await scriptedSession(ctx, c, CUT_OFF_SCRIPT);
  const turnId = await send(ctx, c.conn, sessionId, 'Write out the release notes in full.');
  const idle = await waitTurnEnd(ctx, c.conn, sessionId, turnId);
  const events = sessionEvents(c.conn, sessionId).filter((e) => e.params.turnId === turnId);
  checkTurnEnd(ctx.recorder, sessionEvents(c.conn, sessionId), turnId);
  return { idle, events };
}

export const maxTokens: Scenario<DaemonContext> = {
  id: 'daemon-max-tokens',
  role: 'daemon',
  title:
    'a reply cut off at the output-token limit ends the turn with max_tokens (end_turn for a v1 client), its text kept and its tool calls not run',
  checks: [
    'daemon.turns.max-tokens-ends-turn',
    'daemon.versioning.new-values-gated',
    ...TURN_END_CHECKS,
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const modern = await ctx.connect('open-enums', { capabilities: { openEnums: {} } });
    const { idle, events } = await cutOffTurn(ctx, modern);
    const text = events
      .filter((e) => e.method === Methods.ChatChunk.method)
      .map((e) => String(e.params.text))
      .join('');
    const toolNodes = events
      .filter((e) => e.method === Methods.TreeUpdate.method)
      .flatMap((e) => (e.params.nodes as JsonObject[] | undefined) ?? [])
      .filter((node) => node.kind !== 'turn');
    const problems = [
      ...(idle.stopReason === 'max_tokens'
        ? []
        : [
            `the turn ended with stopReason ${JSON.stringify(idle.stopReason)}, expected max_tokens`,
          ]),
      ...(text === CUT_OFF_TEXT
        ? []
        : [
            `its text is ${JSON.stringify(text)}, expected the cut-off reply's ${JSON.stringify(CUT_OFF_TEXT)}`,
          ]),
      ...(toolNodes.length === 0
        ? []
        : [`the cut-off reply's tool call got a node (${String(toolNodes[0]!.name)}): it ran`]),
    ];
    r.expect('daemon.turns.max-tokens-ends-turn', problems.length === 0, problems.join('; '));

    const v1 = await ctx.connect('v1');
    const old = await cutOffTurn(ctx, v1);
    r.expect(
      'daemon.versioning.new-values-gated',
      old.idle.stopReason === 'end_turn',
      `a client without capabilities.openEnums got stopReason ${JSON.stringify(old.idle.stopReason)}, expected the v1 stand-in end_turn`,
    );
  },
};
