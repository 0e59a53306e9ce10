/**
 * The plan survives a reload (sessions.md#sessions-load-plan, protocol 1.1):
 * after turns whose tool calls sent `plan/update`, `session/load` returns the
 * entries of the last one. The script calls `todo_write`, the plan tool the
 * spec's built-in tools name; a daemon that sent no `plan/update` has no plan
 * to return, and the check is skipped.
 */
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import type { DaemonContext } from './context.js';
import { describe } from './context.js';
import { scriptedSession, send, sessionEvents, waitTurnEnd } from './turns.js';

const CHECK = 'daemon.sessions.load-plan';
const FIRST = [
  { id: '1', content: 'Read the failing test', status: 'in_progress' },
  { id: '2', content: 'Fix the parser', status: 'pending' },
];
const LAST = [
  { id: '1', content: 'Read the failing test', status: 'completed' },
  { id: '2', content: 'Fix the parser', status: 'in_progress' },
];
const plan = (id: string, todos: JsonObject[]) => ({
  toolCalls: [{ id, name: 'todo_write', arguments: { todos } }],
});

const SCRIPT: JsonObject = {
  'conformance plan 1': [plan('plan-call-1', FIRST), { text: 'Planned.' }],
  'conformance plan 2': [plan('plan-call-2', LAST), { text: 'Progressing.' }],
};

export const loadPlan: Scenario<DaemonContext> = {
  id: 'daemon-load-plan',
  role: 'daemon',
  title: "session/load returns the plan of the session's last plan/update",
  checks: [CHECK],
  async run(ctx) {
    const c = await ctx.connect();
    const sessionId = await scriptedSession(ctx, c, SCRIPT);
    for (const text of ['conformance plan 1', 'conformance plan 2']) {
      const turnId = await send(ctx, c.conn, sessionId, text);
      await waitTurnEnd(ctx, c.conn, sessionId, turnId);
    }
    const updates = sessionEvents(c.conn, sessionId).filter(
      (e) => e.method === Methods.PlanUpdate.method,
    );
    const last = updates.at(-1)?.params.entries;
    if (last === undefined) {
      ctx.recorder.skip(CHECK, 'the daemon sent no plan/update (it has no todo_write tool)');
      return;
    }
    const loaded = await c.conn.request(Methods.SessionLoad.method, { sessionId });
    const got = (loaded?.result as JsonObject | undefined)?.plan;
    ctx.recorder.expect(
      CHECK,
      JSON.stringify(got) === JSON.stringify(last),
      got === undefined
        ? `session/load returned no plan; the last plan/update had ${JSON.stringify(last)} (${describe(loaded).slice(0, 80)})`
        : `session/load returned plan ${JSON.stringify(got)}; the last plan/update had ${JSON.stringify(last)}`,
    );
  },
};
