/**
 * cost/summary's `context` (cost.md#context-use, protocol 1.1): when a
 * daemon says how full the model's window is, the tokens are the root loop's
 * last model call's input plus output, as the script reports them, not the
 * whole turn's.
 */
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import type { DaemonContext } from './context.js';
import { TURN_END_CHECKS, checkTurnEnd } from './turnEnd.js';
import { scriptedSession, send, sessionEvents, waitTurnEnd } from './turns.js';

const CHECK = 'daemon.cost.context-last-call';
const FIRST = { inputTokens: 120, outputTokens: 15 };
const LAST = { inputTokens: 300, outputTokens: 42 };

const SCRIPT: JsonObject = {
  '*': [
    {
      text: 'Listing the memory first.',
      toolCalls: [{ id: 'context-use-call', name: 'memory_list', arguments: {} }],
      usage: FIRST,
    },
    { text: 'Nothing stored yet.', usage: LAST },
  ],
};

export const contextUse: Scenario<DaemonContext> = {
  id: 'daemon-context-use',
  role: 'daemon',
  title:
    "cost/summary's context counts the root loop's last model call (input + output), not the turn's total",
  checks: [CHECK, ...TURN_END_CHECKS],
  async run(ctx) {
    const c = await ctx.connect();
    const sessionId = await scriptedSession(ctx, c, SCRIPT);
    const turnId = await send(ctx, c.conn, sessionId, 'What is in the memory?');
    await waitTurnEnd(ctx, c.conn, sessionId, turnId);
    const events = sessionEvents(c.conn, sessionId);
    checkTurnEnd(ctx.recorder, events, turnId, 2);
    const summary = events.find(
      (e) => e.method === Methods.CostSummary.method && e.params.turnId === turnId,
    )?.params;
    const context = summary?.context as JsonObject | undefined;
    if (context === undefined) {
      ctx.recorder.skip(CHECK, 'the daemon sends no context in cost/summary (optional)');
      return;
    }
    const expected = LAST.inputTokens + LAST.outputTokens;
    ctx.recorder.expect(
      CHECK,
      context.tokens === expected,
      `context.tokens is ${JSON.stringify(context.tokens)}; the root loop's last call reported ${LAST.inputTokens} in + ${LAST.outputTokens} out = ${expected}`,
    );
  },
};
