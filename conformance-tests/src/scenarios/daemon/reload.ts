/**
 * session/load keeps what the user saw (sessions.md#stored-parts): a scripted
 * turn writes text, calls a tool and writes again; the stored `parts` must be
 * the fold of the events this client received, and `cost` the cost/summary.
 */
import { isDeepStrictEqual } from 'node:util';
import { Methods, StoredTurnCost } from '@arbor/protocol';
import { TurnTranscript } from '@arbor/protocol/client';
import type { JsonObject } from '../../harness/connection.js';
import { specShape } from '../../harness/specShape.js';
import type { Scenario } from '../scenario.js';
import { type DaemonContext, describe } from './context.js';
import { scriptedSession, send, sessionEvents, waitTurnEnd } from './turns.js';

const PARTS = 'daemon.sessions.load-parts';
const COST = 'daemon.sessions.load-cost';

export const reloadFidelity: Scenario<DaemonContext> = {
  id: 'daemon-reload-fidelity',
  role: 'daemon',
  title:
    'a turn of text, a tool call and more text: session/load returns its parts in stream order and its cost/summary',
  checks: [PARTS, COST],
  async run(ctx) {
    const c = await ctx.connect();
    const sessionId = await scriptedSession(ctx, c, {
      '*': [
        {
          text: 'Let me look first. ',
          toolCalls: [{ id: 'conformance-reload-1', name: 'conformance_probe', arguments: {} }],
        },
        { text: 'That is all.' },
      ],
    });
    const turnId = await send(ctx, c.conn, sessionId, 'conformance: text around a tool call');
    await waitTurnEnd(ctx, c.conn, sessionId, turnId);

    // The fold the spec defines, over what this client received, in seq order.
    const live = new TurnTranscript();
    let sent: JsonObject | undefined;
    const ofTurn = sessionEvents(c.conn, sessionId)
      .filter((e) => e.params.turnId === turnId)
      .sort((a, b) => (a.params.seq as number) - (b.params.seq as number));
    for (const { method, params } of ofTurn) {
      if (method === Methods.TreeUpdate.method)
        live.nodes(params.nodes as { id: string; parentId: string | null }[]);
      else if (method === Methods.ChatChunk.method)
        live.text(params.nodeId as string, params.text as string);
      else if (method === Methods.CostSummary.method) sent = params;
    }

    const load = await c.conn.request(Methods.SessionLoad.method, { sessionId });
    const messages = (load?.result as JsonObject | undefined)?.messages;
    const answer = Array.isArray(messages)
      ? (messages as JsonObject[]).find((m) => m.turnId === turnId && m.role === 'assistant')
      : undefined;
    if (!answer) {
      ctx.recorder.fail(PARTS, `session/load has no answer of the turn: ${describe(load)}`);
      return;
    }

    if (answer.parts === undefined) ctx.recorder.skip(PARTS, 'the daemon returns no parts');
    else
      ctx.recorder.expect(
        PARTS,
        isDeepStrictEqual(answer.parts, live.parts),
        `session/load parts ${JSON.stringify(answer.parts).slice(0, 300)} are not the fold of the live events ${JSON.stringify(live.parts).slice(0, 300)}`,
      );

    if (answer.cost === undefined) ctx.recorder.skip(COST, 'the daemon returns no cost');
    else {
      const { sessionId: _s, seq: _q, turnId: _t, ...expected } = sent ?? {};
      ctx.recorder.expect(
        COST,
        sent !== undefined &&
          isDeepStrictEqual(
            specShape(StoredTurnCost, answer.cost),
            specShape(StoredTurnCost, expected),
          ),
        sent === undefined
          ? 'session/load has a cost for a turn that sent no cost/summary'
          : `session/load cost ${JSON.stringify(answer.cost).slice(0, 300)} is not the cost/summary sent ${JSON.stringify(expected).slice(0, 300)}`,
      );
    }
  },
};
