/**
 * run_subtasks (subtasks.md#run-subtasks, protocol 1.1), judged from outside:
 * the suite writes a profile that allows three parallel subagents into the
 * scenario's workspace and runs one turn whose scripted model makes four
 * run_subtasks calls, one a reply: one over the cap, one of three delayed
 * jobs under a `parallel` budget of 2, one with a job whose tool_names names
 * run_subtasks, one with a structured job that answers in text. What the
 * caller got is seen as each call node's resultPreview, kept short enough
 * that the whole JSON array fits in it.
 */
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort } from '../scenario.js';
import { profileSession, writeAgentProfiles } from './agentSessions.js';
import { requireDaemonCapability, type DaemonContext } from './context.js';
import { sessionEvents, send, waitTurnEnd } from './turns.js';
import { FINAL_STATUSES } from './turnEnd.js';

const CAP = 'daemon.agents.parallel-cap';
const ENTRIES = 'daemon.agents.parallel-entries';
const TOOL_NAMES = 'daemon.agents.parallel-tool-names';
const SCHEMA = 'daemon.agents.parallel-schema';
const CONCURRENT = 'daemon.agents.parallel-concurrent';

const PROFILE = 'conformance-parallel';
const ROOT = 'conformance-parallel: run the jobs';
const DELAY_MS = 400;
const N_SCHEMA = {
  type: 'object',
  properties: { n: { type: 'number' } },
  required: ['n'],
  additionalProperties: false,
};

const text = (t: string, delayMs?: number): JsonObject => ({
  text: t,
  ...(delayMs && { delayMs }),
});
const jobs = (id: string, list: JsonObject[]): JsonObject => ({
  toolCalls: [{ id, name: 'run_subtasks', arguments: { jobs: list } }],
});

/** Keyed by each job's task (its only user message); the root's key is the turn's text. */
const CONVERSATIONS: Record<string, JsonObject[]> = {
  [ROOT]: [
    jobs(
      'cps-over',
      [1, 2, 3, 4].map((n) => ({ task: `cps-over-cap-job-${n}` })),
    ),
    jobs('cps-three', [
      { task: 'cps-alpha-answers' },
      { task: 'cps-delta-counts', output_schema: N_SCHEMA },
      { task: 'cps-eta-answers' },
    ]),
    jobs('cps-names', [
      { task: 'cps-beta-names-run-subtasks', tool_names: ['run_subtasks'] },
      { task: 'cps-epsilon-answers' },
    ]),
    jobs('cps-schema', [
      { task: 'cps-gamma-answers-in-text', output_schema: N_SCHEMA },
      { task: 'cps-zeta-answers' },
    ]),
    text('conformance-parallel: done.'),
  ],
  'cps-over-cap-job': [text('cps: a job of a call over the cap ran')],
  'cps-alpha-answers': [text('alpha', DELAY_MS)],
  'cps-delta-counts': [
    { toolCalls: [{ name: 'finish_subtask', arguments: { n: 7 } }], delayMs: DELAY_MS },
  ],
  'cps-eta-answers': [text('eta', DELAY_MS)],
  // If it ran, a memory_list node under the job would show it.
  'cps-beta-names-run-subtasks': [
    { toolCalls: [{ name: 'memory_list', arguments: {} }] },
    text('beta'),
  ],
  'cps-epsilon-answers': [text('epsilon')],
  'cps-gamma-answers-in-text': [text('gamma has no structured answer')],
  'cps-zeta-answers': [text('zeta')],
};

type Node = JsonObject & { id: string; status?: string; parentId?: string | null };

const brief = (node: Node | undefined): string =>
  node === undefined
    ? 'no node'
    : JSON.stringify({
        status: node.status,
        isError: node.isError,
        resultPreview: node.resultPreview,
      }).slice(0, 600);

/** The call's result as JSON, or undefined when the preview is not a whole JSON array. */
function entriesOf(node: Node | undefined): JsonObject[] | undefined {
  if (typeof node?.resultPreview !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(node.resultPreview);
    return Array.isArray(parsed) ? (parsed as JsonObject[]) : undefined;
  } catch {
    return undefined;
  }
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export const parallelSubtasks: Scenario<DaemonContext> = {
  id: 'daemon-parallel-subtasks',
  role: 'daemon',
  title:
    'run_subtasks under a profile that allows parallel subagents: the job cap, one entry per job in order, refused tool_names, output_schema per job, jobs run concurrently within the parallel budget',
  checks: [CAP, ENTRIES, TOOL_NAMES, SCHEMA, CONCURRENT],
  async run(ctx) {
    const c = await ctx.connect('controller');
    requireDaemonCapability(c.init, 'testing.scriptedProvider');
    requireDaemonCapability(c.init, 'agents');
    writeAgentProfiles(ctx, {
      [PROFILE]: { allowParallelSubagents: true, maxParallelSubagents: 3 },
    });
    const sessionId = await profileSession(c, ctx, {
      mode: 'auto',
      agent: PROFILE,
      conversations: CONVERSATIONS,
      budgets: { parallel: 2 },
    });
    const turnId = await send(ctx, c.conn, sessionId, ROOT);
    await waitTurnEnd(ctx, c.conn, sessionId, turnId, 30_000);

    const upserts = sessionEvents(c.conn, sessionId)
      .filter((e) => e.method === Methods.TreeUpdate.method)
      .flatMap((e) => (Array.isArray(e.params.nodes) ? (e.params.nodes as Node[]) : []));
    const tree = new Map<string, Node>();
    for (const node of upserts) tree.set(node.id, { ...tree.get(node.id), ...node });
    const nodes = [...tree.values()];
    const children = (node: Node | undefined): Node[] =>
      node === undefined ? [] : nodes.filter((n) => n.parentId === node.id);
    // The model makes the calls one a reply, so their nodes come in the script's order.
    const calls = nodes.filter((n) => n.name === 'run_subtasks');
    if (calls.length !== 4)
      throw new Abort(
        `expected 4 run_subtasks nodes, one a reply, got ${calls.length} (nodes: ${JSON.stringify(nodes.map((n) => [n.id, n.name])).slice(0, 400)})`,
      );
    const [over, three, names, schema] = calls as Node[];

    // subtasks.md#subtasks-parallel-cap
    const overJobs = children(over);
    ctx.recorder.expect(
      CAP,
      (over!.status === 'error' || over!.isError === true) && overJobs.length === 0,
      `a call of 4 jobs under maxParallelSubagents 3: ${brief(over)}, with ${overJobs.length} child node(s) (expected an error result and no job run)`,
    );

    // subtasks.md#subtasks-parallel-entries
    const threeEntries = entriesOf(three);
    const expected = [
      { ok: true, result: 'alpha' },
      { ok: true, result: { n: 7 } },
      { ok: true, result: 'eta' },
    ];
    ctx.recorder.expect(
      ENTRIES,
      same(threeEntries, expected),
      `three jobs answering "alpha", {"n":7} (through finish_subtask) and "eta": ${brief(three)} (expected the result ${JSON.stringify(expected)})`,
    );

    // subtasks.md#subtasks-parallel-tool-names
    const [beta, epsilon] = children(names);
    const namesEntries = entriesOf(names);
    const refusedFirst =
      typeof names!.resultPreview === 'string' &&
      /^\s*\[\s*\{\s*"ok"\s*:\s*false\s*,/.test(names!.resultPreview);
    const siblingOk =
      namesEntries === undefined
        ? // The refusal may run past the preview: the sibling's node speaks for it.
          epsilon?.status === 'done'
        : same(namesEntries[1], { ok: true, result: 'epsilon' });
    ctx.recorder.expect(
      TOOL_NAMES,
      refusedFirst && siblingOk && beta !== undefined && children(beta).length === 0,
      `jobs [tool_names ["run_subtasks"], a plain job answering "epsilon"]: ${brief(names)}; the first job's node has ${children(beta).length} child node(s) (expected none: it must not run); the second job's node: ${brief(epsilon)}`,
    );

    // subtasks.md#subtasks-parallel-schema
    const schemaEntries = entriesOf(schema);
    ctx.recorder.expect(
      SCHEMA,
      schemaEntries?.length === 2 &&
        schemaEntries[0]?.ok === false &&
        typeof schemaEntries[0]?.error === 'string' &&
        same(schemaEntries[1], { ok: true, result: 'zeta' }) &&
        (threeEntries === undefined
          ? // A result that is no JSON array is parallel-entries' to judge; the job's node speaks here.
            children(three)[1]?.status === 'done'
          : same(threeEntries[1], { ok: true, result: { n: 7 } })),
      `jobs [output_schema, answered in text; a plain job answering "zeta"]: ${brief(schema)}; a structured job that called finish_subtask({"n":7}) got ${JSON.stringify(threeEntries?.[1])} (expected {"ok":false,"error":…} then {"ok":true,"result":"zeta"}, and {"ok":true,"result":{"n":7}})`,
    );

    // subtasks.md#subtasks-parallel-concurrent: three delayed jobs under a parallel budget of 2.
    const jobNodes = children(three);
    const jobIds = new Set(jobNodes.map((n) => n.id));
    const running = new Set<string>();
    let most = 0;
    for (const node of upserts) {
      if (!jobIds.has(node.id)) continue;
      if (node.status === 'running') running.add(node.id);
      else if (FINAL_STATUSES.has(String(node.status))) running.delete(node.id);
      most = Math.max(most, running.size);
    }
    ctx.recorder.expect(
      CONCURRENT,
      jobNodes.length === 3 &&
        jobNodes.every((n) => n.kind === 'subtask' && n.depth === three!.depth) &&
        most === 2,
      `three jobs of ${DELAY_MS} ms each under a parallel budget of 2: ${jobNodes.length} child node(s) of the call (${JSON.stringify(jobNodes.map((n) => ({ kind: n.kind, depth: n.depth })))}, expected 3 subtask nodes at the call's depth ${String(three!.depth)}); at most ${most} running at once (expected 2)`,
    );
  },
};
