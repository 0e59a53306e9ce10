/**
 * run_subtasks (agent profile `allowParallelSubagents`): 1..maxParallelSubagents
 * jobs per call, run concurrently as subtasks under the call's node, each
 * result checked on its own and returned as one JSON array of
 * `{ok: true, result} | {ok: false, error}` entries.
 */
import assert from 'node:assert/strict';
import { z } from 'zod';
import { AgentProfile, type NamedAgentProfile } from '../../src/agents/agentProfile.js';
import type { ProviderRequest } from '../../src/providers/provider.js';
import {
  maxConcurrency,
  nodes,
  runTurn,
  script,
  sleepTool,
  toolMessages,
  type Span,
  type TurnRun,
} from './harness.js';

function profile(fields: z.input<typeof AgentProfile>): NamedAgentProfile {
  return { name: 'fanout', source: 'config', profile: AgentProfile.parse(fields) };
}

const PARALLEL = profile({ allowParallelSubagents: true, maxParallelSubagents: 3 });

const fanOut = (jobs: Record<string, unknown>[]) => ({ name: 'run_subtasks', arguments: { jobs } });

const NAME_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
  additionalProperties: false,
};

/** The run_subtasks result the root loop got back, parsed. */
function entriesOf(run: TurnRun): { content: unknown; isError?: boolean } {
  const last = run.provider.requests.filter((r) => r.messages[0]?.content === 'go').at(-1);
  const [result] = toolMessages(last!).filter((m) => m.name === 'run_subtasks');
  assert.ok(result, 'the root got a run_subtasks result');
  return { content: JSON.parse(result.content) as unknown, isError: result.isError };
}

const asked = (run: TurnRun, task: string): ProviderRequest[] =>
  run.provider.requests.filter((r) => String(r.messages[0]?.content).startsWith(task));

describe('agent: run_subtasks (parallel subagents)', () => {
  it('is offered only when the profile allows it, with the cap in its schema', async () => {
    const turn = script({ go: [{ text: 'ok' }] });
    const without = await runTurn(turn, { text: 'go', profile: profile({}) });
    const names = (run: TurnRun) => (run.provider.requests[0]!.tools ?? []).map((t) => t.name);
    assert.ok(!names(without).includes('run_subtasks'));

    const withIt = await runTurn(turn, { text: 'go', profile: PARALLEL });
    const tool = withIt.provider.requests[0]!.tools!.find((t) => t.name === 'run_subtasks');
    assert.ok(tool, 'run_subtasks is offered');
    const jobs = (tool.inputSchema as { properties: { jobs: { maxItems: number } } }).properties
      .jobs;
    assert.equal(jobs.maxItems, 3);
  });

  it('runs every job as a subtask under the call node and returns one entry per job, in order', async () => {
    const run = await runTurn(
      script({
        go: [
          {
            toolCalls: [
              fanOut([
                { task: 'job alpha', additional_context: 'alpha context' },
                { task: 'job beta', system_prompt: 'You are terse.' },
              ]),
            ],
          },
          { text: 'done' },
        ],
        'job alpha': [{ text: 'alpha result' }],
        'job beta': [{ text: 'beta result' }],
      }),
      { text: 'go', profile: PARALLEL },
    );
    assert.equal(run.result.stopReason, 'end_turn', run.result.error);
    assert.deepEqual(entriesOf(run), {
      content: [
        { ok: true, result: 'alpha result' },
        { ok: true, result: 'beta result' },
      ],
      isError: false,
    });
    const [alpha] = asked(run, 'job alpha');
    assert.deepEqual(alpha!.messages, [
      { role: 'user', content: 'job alpha\n\nContext:\nalpha context' },
    ]);
    const [beta] = asked(run, 'job beta');
    assert.match(beta!.system, /You are terse\.$/);
    assert.ok(!alpha!.system.includes('You are terse.'), 'framing is per job');
    assert.ok(
      !(alpha!.tools ?? []).some((t) => t.name === 'run_subtasks'),
      'a job does not fan out again',
    );

    const tree = nodes(run);
    const call = tree.find((node) => node.name === 'run_subtasks');
    const jobs = tree.filter((node) => node.parentId === call?.id);
    assert.deepEqual(
      jobs.map((node) => [node.kind, node.name, node.title, node.depth, node.status]),
      [
        ['subtask', 'run_subtask', 'Job 1: job alpha', 0, 'done'],
        ['subtask', 'run_subtask', 'Job 2: job beta', 0, 'done'],
      ],
    );
    assert.equal(call?.status, 'done');
  });

  it('rejects a call over maxParallelSubagents as a whole: nothing runs', async () => {
    const run = await runTurn(
      script({
        go: [
          {
            toolCalls: [fanOut(['one', 'two', 'three', 'four'].map((n) => ({ task: `job ${n}` })))],
          },
          { text: 'done' },
        ],
        'job ': [{ text: 'ran' }],
      }),
      { text: 'go', profile: PARALLEL },
    );
    const last = run.provider.requests.at(-1)!;
    const [result] = toolMessages(last);
    assert.equal(result?.isError, true);
    assert.match(result!.content, /at most 3 jobs; this call has 4\. Nothing ran/);
    assert.equal(asked(run, 'job ').length, 0, 'no job called the model');
    assert.ok(!nodes(run).some((node) => node.kind === 'subtask'), 'no subtask node');
  });

  it('makes a job whose tool_names are not child-safe tools an error entry; its siblings still run', async () => {
    const run = await runTurn(
      script({
        go: [
          {
            toolCalls: [
              fanOut([
                { task: 'job greedy', tool_names: ['memory_read', 'run_subtasks', 'rm_rf'] },
                { task: 'job modest', tool_names: ['memory_read'] },
              ]),
            ],
          },
          { text: 'done' },
        ],
        'job greedy': [{ text: 'should not run' }],
        'job modest': [{ text: 'modest result' }],
      }),
      { text: 'go', profile: PARALLEL },
    );
    const { content, isError } = entriesOf(run);
    const [greedy, modest] = content as { ok: boolean; error?: string; result?: unknown }[];
    assert.equal(greedy?.ok, false);
    assert.match(greedy!.error!, /run_subtasks, rm_rf are not/);
    assert.deepEqual(modest, { ok: true, result: 'modest result' });
    assert.equal(isError, false);
    assert.equal(asked(run, 'job greedy').length, 0, 'the refused job never ran');
    const [modestRequest] = asked(run, 'job modest');
    assert.deepEqual((modestRequest!.tools ?? []).map((t) => t.name).sort(), [
      'memory_list',
      'memory_read',
      'memory_write',
    ]);
    const refused = nodes(run).find((node) => node.title === 'Job 1: job greedy');
    assert.deepEqual([refused?.status, refused?.['isError']], ['error', true]);
  });

  it("checks each result against the job's output_schema: one failure is that job's error entry", async () => {
    const run = await runTurn(
      script({
        go: [
          {
            toolCalls: [
              fanOut([
                { task: 'job sloppy', output_schema: NAME_SCHEMA },
                { task: 'job exact', output_schema: NAME_SCHEMA },
                { task: 'job plain' },
              ]),
            ],
          },
          { text: 'done' },
        ],
        // Answers in text instead of finish_subtask: the schema is not satisfied.
        'job sloppy': [{ text: 'the name is Ada' }],
        'job exact': [
          { toolCalls: [{ name: 'finish_subtask', arguments: { name: 'Grace' } }] },
          { text: 'unused' },
        ],
        'job plain': [{ text: 'plain result' }],
      }),
      { text: 'go', profile: PARALLEL },
    );
    const { content, isError } = entriesOf(run);
    const [sloppy, exact, plain] = content as { ok: boolean; error?: string; result?: unknown }[];
    assert.equal(sloppy?.ok, false);
    assert.match(sloppy!.error!, /schema_not_satisfied/);
    assert.deepEqual(exact, { ok: true, result: { name: 'Grace' } });
    assert.deepEqual(plain, { ok: true, result: 'plain result' });
    assert.equal(isError, false);
  });

  it('is an error result when every job failed', async () => {
    const run = await runTurn(
      script({
        go: [{ toolCalls: [fanOut([{ task: 'job broken' }])] }, { text: 'done' }],
        'job broken': [{ error: 'model down' }],
      }),
      { text: 'go', profile: PARALLEL },
    );
    const { content, isError } = entriesOf(run);
    assert.equal(isError, true);
    assert.match((content as { error: string }[])[0]!.error, /The subtask failed: .*model down/);
  });

  for (const maxParallel of [2, 3]) {
    it(`runs the jobs concurrently, at most the parallel budget (${maxParallel}) at once`, async () => {
      const spans: Span[] = [];
      const jobs = ['a', 'b', 'c'].map((id) => ({ task: `job sleeper ${id}` }));
      const conversations: Record<string, unknown> = {
        go: [{ toolCalls: [fanOut(jobs)] }, { text: 'done' }],
      };
      for (const id of ['a', 'b', 'c']) {
        conversations[`job sleeper ${id}`] = [
          { toolCalls: [{ name: 'sleep', arguments: { ms: 150, id } }] },
          { text: `slept ${id}` },
        ];
      }
      const run = await runTurn(script(conversations as never), {
        text: 'go',
        tools: [sleepTool(spans)],
        budgets: { maxParallel },
        profile: PARALLEL,
      });
      assert.equal(run.result.stopReason, 'end_turn', run.result.error);
      assert.equal(spans.length, 3);
      assert.equal(maxConcurrency(spans), maxParallel);
      assert.deepEqual(
        (entriesOf(run).content as { result: string }[]).map((entry) => entry.result),
        ['slept a', 'slept b', 'slept c'],
      );
    });
  }

  it('counts every job against the subtasks budget', async () => {
    const run = await runTurn(
      script({
        go: [{ toolCalls: [fanOut([{ task: 'job one' }, { task: 'job two' }])] }, { text: 'done' }],
        'job ': [{ text: 'ran' }],
      }),
      { text: 'go', profile: PARALLEL, budgets: { maxSubtasks: 1, maxParallel: 1 } },
    );
    assert.equal(run.result.stopReason, 'budget_exceeded');
    const jobs = nodes(run).filter((node) => node.kind === 'subtask');
    // The second job's spawn went over: that job is the error, the rest of the turn stopped.
    assert.deepEqual(
      jobs.map((node) => [node.title, node.status]),
      [
        ['Job 1: job one', 'done'],
        ['Job 2: job two', 'error'],
      ],
    );
  });
});
