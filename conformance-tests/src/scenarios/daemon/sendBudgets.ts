/**
 * `chat/send` budgets (budgets.md#turn-budgets, protocol 1.1): a client may
 * lower a limit for one turn, never raise it. The scenario gives the script a
 * known limit (setScript `budgets`, which stands instead of the daemon's), so
 * "higher than the daemon's own" is known exactly, whatever its defaults.
 */
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort, Skip } from '../scenario.js';
import { type DaemonContext, describe, requireDaemonCapability } from './context.js';
import { scriptedSession, sessionEvents, waitTurnEnd } from './turns.js';

/** The limit setScript gives the turns; chat/send then asks for LOWER, HIGHER, or nothing. */
const SCRIPT_LIMIT = 3;
const LOWER = 2;
const HIGHER = 50;

export const sendBudgets: Scenario<DaemonContext> = {
  id: 'daemon-send-budgets',
  role: 'daemon',
  title: `chat/send budgets under a script limit of ${SCRIPT_LIMIT} model calls: {llm_calls: ${LOWER}} lowers it for that turn only, {llm_calls: ${HIGHER}} changes nothing`,
  checks: ['daemon.budget.send-lowers'],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect();
    requireDaemonCapability(c.init, 'budgets');
    // A model that never stops calling tools: only the llm_calls limit ends its turns.
    const endless = Array.from({ length: 20 }, (_, i) => ({
      toolCalls: [{ id: `conformance-endless-${i}`, name: 'conformance_probe', arguments: { i } }],
    }));
    const sessionId = await scriptedSession(ctx, c, { '*': endless }, 'auto', 'thread', {
      llm_calls: SCRIPT_LIMIT,
    });
    /** Runs one turn; how many model calls it made (each made one tool call) and how it ended. */
    const run = async (asked: number | undefined): Promise<{ calls: number; stop: unknown }> => {
      const response = await c.conn.request(Methods.ChatSend.method, {
        sessionId,
        text: `conformance: budgets ${String(asked)}`,
        ...(asked !== undefined && { budgets: { llm_calls: asked } }),
      });
      const turnId = (response?.result as JsonObject | undefined)?.turnId;
      if (typeof turnId !== 'string') {
        r.fail('daemon.budget.send-lowers', `chat/send with budgets got ${describe(response)}`);
        throw new Abort('no turn');
      }
      const end = await waitTurnEnd(ctx, c.conn, sessionId, turnId);
      const calls = new Set(
        sessionEvents(c.conn, sessionId)
          .filter((e) => e.method === Methods.TreeUpdate.method && e.params.turnId === turnId)
          .flatMap((e) => (e.params.nodes ?? []) as JsonObject[])
          .filter((n) => n.kind === 'tool')
          .map((n) => String(n.id)),
      ).size;
      return { calls, stop: end.stopReason };
    };
    const ended = (got: { calls: number; stop: unknown }, limit: number): boolean =>
      got.stop === 'budget_exceeded' && got.calls === limit;
    // Without budgets the script's limit holds, or setScript is broken (daemon.testing.set-budgets).
    if (!ended(await run(undefined), SCRIPT_LIMIT))
      throw new Skip(`the setScript limit {llm_calls: ${SCRIPT_LIMIT}} does not hold`);
    const problems: string[] = [];
    for (const [asked, expected] of [
      [LOWER, LOWER],
      [HIGHER, SCRIPT_LIMIT],
      [undefined, SCRIPT_LIMIT],
    ] as const) {
      const got = await run(asked);
      if (!ended(got, expected))
        problems.push(
          `chat/send ${asked === undefined ? 'without budgets (after a turn with them)' : `with {llm_calls: ${asked}}`} ended ${String(got.stop)} after ${got.calls} model call(s), expected budget_exceeded after ${expected}`,
        );
    }
    r.expect('daemon.budget.send-lowers', problems.length === 0, problems.join('; '));
  },
};
