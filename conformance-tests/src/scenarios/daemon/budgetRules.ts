/**
 * The turn budget's rules (budgets.md) with limits the suite sets through
 * setScript `budgets`: one budget shared by every loop, limits checked before
 * the operation, results truncated with a marker, the kinds that never end a
 * turn, and the limits a daemon advertises. The suite's client tools make
 * "the call ran" exact (a `tool/execute`) and carry the long result.
 */
import { Methods } from '@arbor/protocol';
import type { Connection, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { type DaemonContext, describe, requireDaemonCapability } from './context.js';
import { TURN_END_CHECKS, checkTurnEnd } from './turnEnd.js';
import { requireScriptBasics } from './scriptBasics.js';
import { scriptedSession, send, sessionEvents, waitTurnEnd } from './turns.js';

const TOOL = {
  name: 'conformance_budget_read',
  description: 'A read-category client tool of the conformance suite.',
  inputSchema: { type: 'object', properties: { marker: { type: 'string' } } },
  category: 'read',
};
/** The long result: what a cut to RESULT_LIMIT bytes keeps is all `a`. */
const RESULT_LIMIT = 200;
const LONG_RESULT = 'a'.repeat(RESULT_LIMIT) + 'Z'.repeat(1000 - RESULT_LIMIT);
/** Above this advertised tool_calls limit, one reply calling past it costs too much. */
const MAX_ADVERTISED = 1000;

const call = (name: string, args: JsonObject = {}): JsonObject => ({ name, arguments: args });
const calls = (...toolCalls: JsonObject[]): JsonObject => ({ toolCalls });
const read = (marker: string): JsonObject => call(TOOL.name, { marker });
const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 300) ?? 'missing';

interface Ended {
  turnId: string;
  stopReason: unknown;
  /** The turn's budget/exceeded notices. */
  notices: JsonObject[];
  nodes: JsonObject[];
  text: Map<string, string>;
  streamed: string;
}

async function runTurn(
  ctx: DaemonContext,
  conn: Connection,
  sessionId: string,
  conversations: JsonObject,
  budgets: JsonObject,
  message: string,
): Promise<Ended> {
  const set = await conn.request(Methods.SetScript.method, {
    sessionId,
    script: { version: 1, conversations },
    budgets,
  });
  if (!set || set.error)
    ctx.recorder.fail('daemon.testing.set-budgets', `setScript with budgets got ${describe(set)}`);
  const turnId = await send(ctx, conn, sessionId, message);
  const idle = await waitTurnEnd(ctx, conn, sessionId, turnId, 30_000);
  const events = sessionEvents(conn, sessionId).filter((e) => e.params.turnId === turnId);
  checkTurnEnd(ctx.recorder, sessionEvents(conn, sessionId), turnId);
  const nodes = new Map<string, JsonObject>();
  const text = new Map<string, string>();
  for (const e of events) {
    if (e.method === Methods.TreeUpdate.method)
      for (const node of (e.params.nodes ?? []) as JsonObject[])
        nodes.set(String(node.id), { ...nodes.get(String(node.id)), ...node });
    if (e.method === Methods.ChatChunk.method)
      text.set(
        String(e.params.nodeId),
        (text.get(String(e.params.nodeId)) ?? '') + String(e.params.text),
      );
  }
  return {
    turnId,
    stopReason: idle.stopReason,
    notices: events.filter((e) => e.method === Methods.BudgetExceeded.method).map((e) => e.params),
    nodes: [...nodes.values()],
    text,
    streamed: [...text.values()].join(''),
  };
}

const PARTIAL = 'cbudget: the text before the budget ran out.';

/** budgets-partial-kept: what was sent of a turn ended by a budget is in session/load too. */
async function checkPartialKept(
  ctx: DaemonContext,
  conn: Connection,
  sessionId: string,
  ended: Ended,
): Promise<void> {
  const check = 'daemon.budget.partial-kept';
  if (ended.stopReason !== 'budget_exceeded') return; // daemon.budget.checked-before's to judge
  const load = await conn.request(Methods.SessionLoad.method, { sessionId });
  const messages = (load?.result as JsonObject | undefined)?.messages;
  const answer = Array.isArray(messages)
    ? (messages as JsonObject[]).find((m) => m.turnId === ended.turnId && m.role === 'assistant')
    : undefined;
  const stored = new Set(
    (((answer?.tree as JsonObject | undefined)?.nodes ?? []) as JsonObject[]).map((n) => n.id),
  );
  const missing = ended.nodes.filter((n) => !stored.has(n.id)).map((n) => String(n.id));
  ctx.recorder.expect(
    check,
    ended.streamed.includes(PARTIAL) &&
      typeof answer?.content === 'string' &&
      answer.content.includes(PARTIAL) &&
      missing.length === 0,
    `a turn ended by tool_calls after streaming ${JSON.stringify(PARTIAL)} and ${ended.nodes.length} node(s): ${ended.streamed.includes(PARTIAL) ? '' : 'the text never streamed; '}session/load gives ${answer ? `content ${JSON.stringify(answer.content)?.slice(0, 200)}, tree without ${missing.join(', ') || 'nothing'}` : `no answer of the turn (${describe(load)})`}`,
  );
}

export const budgetRules: Scenario<DaemonContext> = {
  id: 'daemon-budget-rules',
  role: 'daemon',
  title:
    'setScript budgets: one budget for every loop of a turn, limits checked before the call, tool_result_bytes truncation with a marker, limits that never end a turn, the advertised limits',
  checks: [
    'daemon.budget.advertised',
    'daemon.budget.one-per-turn',
    'daemon.budget.checked-before',
    'daemon.budget.partial-kept',
    'daemon.budget.truncation-marker',
    'daemon.budget.truncation-continues',
    'daemon.budget.non-ending',
    'daemon.testing.no-tools-call',
    'daemon.testing.set-budgets',
    ...TURN_END_CHECKS,
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const c = await ctx.connect('caller', {
      capabilities: { approvals: {}, clientTools: {} },
      tools: [TOOL],
    });
    requireDaemonCapability(c.init, 'clientTools');
    const executed: string[] = [];
    c.conn.handle(Methods.ToolExecute.method, (params) => {
      const marker = String((((params as JsonObject).args ?? {}) as JsonObject).marker);
      executed.push(marker);
      return { content: marker === 'long' ? LONG_RESULT : `conformance: ran ${marker}` };
    });
    const sessionId = await scriptedSession(ctx, c, {}, 'auto', 'editor');
    await requireScriptBasics(ctx, c.conn, sessionId);
    const ran = (prefix: string): string[] => executed.filter((m) => m.startsWith(prefix));
    const listed = await c.conn.request(Methods.ToolsList.method, { sessionId });
    const tools = (listed?.result as JsonObject | undefined)?.tools;
    // Without tools/list the spawning turns show whether run_subtask exists.
    const subtasks =
      !Array.isArray(tools) || tools.some((t) => (t as JsonObject).name === 'run_subtask');

    // budgets-advertised: no script budgets, one reply calling one tool past the advertised tool_calls.
    const limits = ((c.init.capabilities.budgets ?? {}) as JsonObject).limits as
      JsonObject | undefined;
    const toolCalls = limits?.tool_calls;
    if (typeof toolCalls !== 'number')
      r.skip(
        'daemon.budget.advertised',
        'the daemon advertises no capabilities.budgets.limits.tool_calls',
      );
    else if (toolCalls > MAX_ADVERTISED)
      r.skip(
        'daemon.budget.advertised',
        `the advertised tool_calls limit ${toolCalls} is above the ${MAX_ADVERTISED} calls the suite makes in one reply`,
      );
    else {
      const many = Array.from({ length: toolCalls + 1 }, (_, i) => read(`adv-${i}`));
      const set = await c.conn.request(Methods.SetScript.method, {
        sessionId,
        script: {
          version: 1,
          conversations: { 'cbudget-advertised': [calls(...many), { text: 'conformance: done.' }] },
        },
      });
      if (!set || set.error) r.fail('daemon.budget.advertised', `setScript got ${describe(set)}`);
      const turnId = await send(ctx, c.conn, sessionId, 'cbudget-advertised');
      const idle = await waitTurnEnd(ctx, c.conn, sessionId, turnId, 60_000);
      checkTurnEnd(r, sessionEvents(c.conn, sessionId), turnId);
      const notice = sessionEvents(c.conn, sessionId).find(
        (e) => e.method === Methods.BudgetExceeded.method && e.params.turnId === turnId,
      )?.params;
      r.expect(
        'daemon.budget.advertised',
        // How many ran is daemon.budget.checked-before's to judge.
        idle.stopReason === 'budget_exceeded' &&
          (notice === undefined || notice.kind === 'tool_calls'),
        `advertised limits ${show(limits)}: a reply with ${toolCalls + 1} tool calls ran ${ran('adv-').length} and ended ${String(idle.stopReason)} after ${show(notice)} (expected budget_exceeded by tool_calls)`,
      );
    }

    // budgets-one-per-turn: 2 model calls of the root, 4 of its subtask, each within llm_calls 4.
    if (subtasks) {
      const shared = await runTurn(
        ctx,
        c.conn,
        sessionId,
        {
          'cbudget-root-shared': [
            calls(
              call('run_subtask', {
                title: 'Shared',
                instructions: 'cbudget-subtask-of-the-shared-budget',
              }),
            ),
            { text: 'conformance: the caller is done.' },
          ],
          'cbudget-subtask-of-the-shared-budget': [
            calls(call('memory_list')),
            calls(call('memory_list')),
            calls(call('memory_list')),
            { text: 'conformance: the subtask is done.' },
          ],
        },
        { llm_calls: 4 },
        'cbudget-root-shared',
      );
      const spawned = shared.nodes.some((n) => n.kind === 'subtask');
      if (!spawned) r.skip('daemon.budget.one-per-turn', 'a run_subtask call made no subtask node');
      else
        r.expect(
          'daemon.budget.one-per-turn',
          // Whether budget/exceeded came is daemon.budget.exceeded-notified's to judge.
          shared.stopReason === 'budget_exceeded' &&
            (shared.notices.length === 0 || shared.notices.some((n) => n.kind === 'llm_calls')),
          `with budgets {llm_calls: 4}, a root loop of 2 model calls and its subtask of 4 (6 in the turn) ended ${String(shared.stopReason)}, budget/exceeded ${show(shared.notices)} (expected budget_exceeded by llm_calls)`,
        );
    } else r.skip('daemon.budget.one-per-turn', 'the daemon offers no run_subtask (tools/list)');

    // budgets-checked-before: tool_calls 2 and four calls; subtasks 1 and three spawns.
    const four = await runTurn(
      ctx,
      c.conn,
      sessionId,
      {
        'cbudget-root-tools': [
          {
            text: PARTIAL,
            toolCalls: [read('before-1'), read('before-2'), read('before-3'), read('before-4')],
          },
          { text: 'conformance: done.' },
        ],
      },
      { tool_calls: 2 },
      'cbudget-root-tools',
    );
    await checkPartialKept(ctx, c.conn, sessionId, four);
    const problems = [
      (four.stopReason !== 'budget_exceeded' || ran('before-').length > 2) &&
        `with budgets {tool_calls: 2} a reply of 4 tool calls ran ${ran('before-').length} (${ran('before-').join(', ')}) and the turn ended ${String(four.stopReason)} (expected at most 2, budget_exceeded)`,
    ];
    if (subtasks) {
      const spawns = await runTurn(
        ctx,
        c.conn,
        sessionId,
        {
          'cbudget-root-spawns': [
            calls(
              ...['one', 'two', 'three'].map((n) =>
                call('run_subtask', { title: n, instructions: `cbudget-spawned-subtask-${n}` }),
              ),
            ),
            { text: 'conformance: done.' },
          ],
          ...Object.fromEntries(
            ['one', 'two', 'three'].map((n) => [
              `cbudget-spawned-subtask-${n}`,
              [{ text: `conformance: subtask ${n} ran.` }],
            ]),
          ),
        },
        { subtasks: 1 },
        'cbudget-root-spawns',
      );
      const loops = ['one', 'two', 'three'].filter((n) =>
        spawns.streamed.includes(`subtask ${n} ran`),
      );
      if (spawns.stopReason !== 'budget_exceeded' || loops.length > 1)
        problems.push(
          `with budgets {subtasks: 1} three run_subtask calls ran ${loops.length} subtask loop(s) and the turn ended ${String(spawns.stopReason)} (expected at most 1, budget_exceeded)`,
        );
    }
    r.expect(
      'daemon.budget.checked-before',
      problems.every((p) => !p),
      problems.filter(Boolean).join('; '),
    );

    // budgets-truncation-*: a 1000-byte result under tool_result_bytes 200 (and parallel 1).
    const after = 'conformance: the model read the cut result.';
    const cut = await runTurn(
      ctx,
      c.conn,
      sessionId,
      {
        'cbudget-root-truncate': [calls(read('long'), read('short')), { text: after }],
      },
      { tool_result_bytes: RESULT_LIMIT, parallel: 1 },
      'cbudget-root-truncate',
    );
    const long = cut.nodes.find(
      (n) => n.name === TOOL.name && String(n.argsPreview ?? '').includes('long'),
    );
    const previewed = typeof long?.resultPreview === 'string' ? long.resultPreview : undefined;
    const short = cut.nodes.find(
      (n) => n.name === TOOL.name && String(n.argsPreview ?? '').includes('short'),
    );
    if (
      short !== undefined &&
      !String(short.resultPreview ?? '').includes('conformance: ran short')
    )
      r.skip(
        'daemon.budget.truncation-marker',
        `a short result is not the call's resultPreview either (${show(short)}): daemon.client-tools.result-to-model's to judge`,
      );
    else if (previewed === undefined)
      r.skip(
        'daemon.budget.truncation-marker',
        `the daemon gave no resultPreview (optional, tree.md#node) for the long result: ${show(long)}`,
      );
    else
      r.expect(
        'daemon.budget.truncation-marker',
        !previewed.includes('Z') &&
          (previewed.match(/a/g) ?? []).length <= RESULT_LIMIT &&
          /truncat/i.test(previewed) &&
          previewed.includes('1000'),
        `a 1000-byte result (${RESULT_LIMIT} a then Z) under budgets {tool_result_bytes: ${RESULT_LIMIT}}: resultPreview ${JSON.stringify(previewed)} (expected at most ${RESULT_LIMIT} bytes of it and a marker saying it was truncated from 1000 bytes)`,
      );
    r.expect(
      'daemon.budget.truncation-continues',
      cut.streamed.includes(after),
      `after a truncated result the turn ended ${String(cut.stopReason)}${cut.streamed.includes(after) ? '' : " without the model's next reply"} (expected the model to go on and the turn to end end_turn)`,
    );

    // budgets-non-ending-notice: iterations 2 under a model that keeps calling tools.
    const capped = await runTurn(
      ctx,
      c.conn,
      sessionId,
      {
        'cbudget-root-iterations': [
          calls(read('iteration-1')),
          calls(read('iteration-2')),
          { text: 'conformance: done.' },
        ],
      },
      { iterations: 2 },
      'cbudget-root-iterations',
    );
    r.expect(
      'daemon.budget.non-ending',
      cut.stopReason !== 'budget_exceeded' &&
        ran('short').length === 1 &&
        capped.stopReason !== 'budget_exceeded',
      `turns that reached tool_result_bytes and parallel 1 (two calls: ${ran('short').length === 1 ? 'both ran' : 'not both ran'}) ended ${String(cut.stopReason)}; one that reached iterations 2 ended ${String(capped.stopReason)} (budget_exceeded is only for the turn-ending kinds)`,
    );
    r.expect(
      'daemon.testing.no-tools-call',
      ran('iteration-1').length === 1 && ran('iteration-2').length === 0,
      `with budgets {iterations: 2} the tool call of the first model call ${ran('iteration-1').length ? 'ran' : 'did not run'}, and the one of the last (tool-less) call ${ran('iteration-2').length ? 'ran' : 'was dropped'} (expected run, then dropped)`,
    );
  },
};
