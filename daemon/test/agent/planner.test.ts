/**
 * The planner pre-pass of an agent profile (`planningEnabled`): a loop of its
 * own before the executor's first model call, on `planningModel` when set,
 * with read-only tools; its transcript never reaches the executor, which gets
 * the plan as one system note; clients get a `planner` node (a `tool` for v1
 * clients) and `plan/update`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods, type ModelCost } from '@arbor/protocol';
import { z } from 'zod';
import { AgentProfile, type NamedAgentProfile } from '../../src/agents/agentProfile.js';
import { PLANNER_HEADER } from '../../src/agent/planner/plannerPrompt.js';
import type { ProviderRequest } from '../../src/providers/provider.js';
import { ScriptedProvider } from '../../src/providers/scripted.js';
import { eventForClient, resultForClient } from '../../src/server/v1Events.js';
import { defineTool, type Tool } from '../../src/tools/tool.js';
import { RecordingProvider, TURN_ID, nodes, runTurn, script, type TurnRun } from './harness.js';

const FINDING = 'the bug is in parseDate (planner-only finding)';

function profile(fields: z.input<typeof AgentProfile>): NamedAgentProfile {
  return { name: 'planned', source: 'config', profile: AgentProfile.parse(fields) };
}

/** A read tool whose result only the planner should ever see. */
const peekTool = defineTool({
  name: 'peek',
  description: 'Reads something.',
  input: z.object({}),
  category: 'read',
  execute: () => FINDING,
}) as Tool;

const scribbleTool = defineTool({
  name: 'scribble',
  description: 'Writes something.',
  input: z.object({}),
  category: 'write',
  execute: () => 'written',
}) as Tool;

/** The planner looks around with peek, then plans; the executor calls peek itself, then answers. */
const PLANNED = script({
  [PLANNER_HEADER]: [
    { toolCalls: [{ name: 'peek', arguments: {} }], usage: { inputTokens: 7, outputTokens: 3 } },
    {
      text: 'Steps:\n1. Read parseDate in src/date.ts\n2. Fix the off-by-one\n3. Run the tests',
      usage: { inputTokens: 11, outputTokens: 5 },
    },
  ],
  'fix the date bug': [{ toolCalls: [{ name: 'peek', arguments: {} }] }, { text: 'Fixed.' }],
});

const isPlannerRequest = (request: ProviderRequest): boolean =>
  request.messages.some((m) => m.role === 'user' && String(m.content).startsWith(PLANNER_HEADER));

function planned(options: Parameters<typeof runTurn>[1] = {}): Promise<TurnRun> {
  return runTurn(PLANNED, {
    text: 'fix the date bug',
    tools: [peekTool, scribbleTool],
    profile: profile({ planningEnabled: true }),
    ...options,
  });
}

describe('agent: planner pre-pass', () => {
  it("runs before the executor's first call; its transcript never enters the executor's messages", async () => {
    const run = await planned();
    assert.equal(run.result.stopReason, 'end_turn', run.result.error);
    assert.equal(run.result.text, 'Fixed.');

    const requests = run.provider.requests;
    const planner = requests.filter(isPlannerRequest);
    const executor = requests.filter((r) => !isPlannerRequest(r));
    assert.equal(planner.length, 2, 'the planner made two calls (a tool call, then its plan)');
    assert.equal(executor.length, 2);
    assert.ok(
      requests.indexOf(planner[1]!) < requests.indexOf(executor[0]!),
      'the planner finished before the executor was first called',
    );
    // The planner's second call saw its own tool result.
    assert.ok(planner[1]!.messages.some((m) => m.role === 'tool' && m.content === FINDING));

    // The executor starts from the user's message alone: no planner message, call or result.
    assert.deepEqual(executor[0]!.messages, [{ role: 'user', content: 'fix the date bug' }]);
    const executorTools = executor[1]!.messages.filter((m) => m.role === 'tool');
    assert.equal(executorTools.length, 1, "only the executor's own peek");
    for (const request of executor) {
      for (const message of request.messages) {
        assert.ok(!String(message.content).includes(PLANNER_HEADER), 'no planner message');
        assert.ok(!String(message.content).includes('Steps:'), "no planner's answer");
      }
      // The plan, as one note in the system prompt.
      assert.match(request.system, /1\. Read parseDate in src\/date\.ts\n2\. Fix the off-by-one/);
      assert.ok(!request.system.includes(FINDING), "the planner's findings are not passed on");
    }
  });

  it('offers the planner only read-only tools, never run_subtask, todo_write or write tools', async () => {
    const run = await planned();
    const [first] = run.provider.requests.filter(isPlannerRequest);
    const offered = (first!.tools ?? []).map((tool) => tool.name);
    assert.ok(offered.includes('peek'));
    for (const name of ['scribble', 'run_subtask', 'memory_write', 'todo_write'])
      assert.ok(!offered.includes(name), `${name} is not offered to the planner`);
    const [executor] = run.provider.requests.filter((r) => !isPlannerRequest(r));
    const executorTools = (executor!.tools ?? []).map((tool) => tool.name);
    assert.ok(executorTools.includes('scribble') && executorTools.includes('run_subtask'));
  });

  it("uses the profile's planningInstructions as the planner's system prompt", async () => {
    const run = await planned({
      profile: profile({ planningEnabled: true, planningInstructions: 'Plan like a pirate.' }),
    });
    const [first] = run.provider.requests.filter(isPlannerRequest);
    assert.equal(first!.system, 'Plan like a pirate.');
  });

  it("gives the planner the workspace's instructions (AGENTS.md) after its own prompt", async () => {
    const ws = mkdtempSync(join(tmpdir(), 'arbor-planner-ws-'));
    writeFileSync(join(ws, 'AGENTS.md'), 'Never touch the generated files.');
    try {
      const run = await planned({
        workspaceRoot: ws,
        profile: profile({ planningEnabled: true, planningInstructions: 'Plan like a pirate.' }),
      });
      const [first] = run.provider.requests.filter(isPlannerRequest);
      assert.match(
        first!.system ?? '',
        /^Plan like a pirate\.\n\n[\s\S]*Never touch the generated files\./,
      );
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });

  it('shows a planner node with its usage before the executor’s first tool node, and sends plan/update', async () => {
    const run = await planned();
    const tree = nodes(run);
    const planner = tree.find((node) => node.kind === 'planner');
    assert.ok(planner, 'a planner node');
    assert.deepEqual([planner.parentId, planner.depth, planner.status], [TURN_ID, 0, 'done']);
    assert.deepEqual(planner['usage'], { inputTokens: 18, outputTokens: 8 });
    // Its tool call is its child; the executor's is the turn's.
    const peeks = tree.filter((node) => node.name === 'peek');
    assert.deepEqual(
      peeks.map((node) => [node.parentId, node.depth]),
      [
        [planner.id, 1],
        [TURN_ID, 0],
      ],
    );
    // Announced before the executor's first tool node.
    const announced = run.sink
      .of(Methods.TreeUpdate)
      .flatMap((update) => (update.nodes as { id: string }[]).map((node) => node.id));
    const executorPeek = peeks[1]!.id;
    assert.ok(announced.indexOf(planner.id) < announced.indexOf(executorPeek));

    const [plan, ...more] = run.sink.of(Methods.PlanUpdate);
    assert.equal(more.length, 0);
    const seqOfExecutorPeek = run.sink
      .of(Methods.TreeUpdate)
      .find((update) => (update.nodes as { id: string }[]).some((n) => n.id === executorPeek))?.seq;
    assert.ok((plan!.seq as number) < (seqOfExecutorPeek as number), 'the plan came first');
    assert.deepEqual(plan!.entries, [
      { id: 'plan-1', content: 'Read parseDate in src/date.ts', status: 'pending' },
      { id: 'plan-2', content: 'Fix the off-by-one', status: 'pending' },
      { id: 'plan-3', content: 'Run the tests', status: 'pending' },
    ]);
    // The planner's text is its plan, not an answer: it is not streamed.
    assert.equal(run.sink.textOf(planner.id), '');
    assert.equal(run.sink.textOf(TURN_ID), 'Fixed.');
  });

  it('runs no planner without planningEnabled', async () => {
    const run = await runTurn(PLANNED, {
      text: 'fix the date bug',
      tools: [peekTool],
      profile: profile({}),
    });
    assert.ok(!nodes(run).some((node) => node.kind === 'planner'));
    assert.equal(run.provider.requests.filter(isPlannerRequest).length, 0);
    assert.equal(run.sink.of(Methods.PlanUpdate).length, 0);
  });

  it('takes the answer of a planner stopped at its iteration limit as its plan', async () => {
    const looping = script({
      [PLANNER_HEADER]: [
        { toolCalls: [{ name: 'peek', arguments: {} }] },
        { toolCalls: [{ name: 'peek', arguments: {} }] },
        { text: '1. Stop peeking' },
      ],
      'fix the date bug': [{ text: 'Fixed.' }],
    });
    const run = await runTurn(looping, {
      text: 'fix the date bug',
      tools: [peekTool],
      budgets: { maxIterationsPerLevel: 3 },
      profile: profile({ planningEnabled: true }),
    });
    const [last] = run.provider.requests.filter(isPlannerRequest).slice(-1);
    assert.equal(last!.tools, undefined, 'the last planner call had no tools');
    assert.deepEqual(
      (run.sink.of(Methods.PlanUpdate)[0]?.entries as { content: string }[]).map((e) => e.content),
      ['Stop peeking'],
    );
  });

  it('a failing planner costs the turn its plan, not the turn', async () => {
    const run = await runTurn(
      script({
        [PLANNER_HEADER]: [{ error: 'planner model is down' }],
        'fix the date bug': [{ text: 'Fixed anyway.' }],
      }),
      { text: 'fix the date bug', profile: profile({ planningEnabled: true }) },
    );
    assert.equal(run.result.stopReason, 'end_turn', run.result.error);
    assert.equal(run.result.text, 'Fixed anyway.');
    const planner = nodes(run).find((node) => node.kind === 'planner');
    assert.deepEqual([planner?.status, planner?.['isError']], ['error', true]);
    assert.equal(run.sink.of(Methods.PlanUpdate).length, 0);
  });

  it('runs the planner on planningModel, the executor on its own model; both have a cost line', async () => {
    const openai = new RecordingProvider(new ScriptedProvider(PLANNED), 'openai');
    const anthropic = new RecordingProvider(new ScriptedProvider(PLANNED), 'anthropic');
    const run = await runTurn(PLANNED, {
      text: 'fix the date bug',
      tools: [peekTool],
      model: 'openai:gpt-exec',
      profile: profile({ planningEnabled: true, planningModel: 'anthropic:claude-plan' }),
      agent: {
        provider: undefined,
        providerFactories: { openai: () => openai, anthropic: () => anthropic },
        pricing: (_provider, model, usage) =>
          usage.inputTokens * (model === 'claude-plan' ? 0.25 : 0.5),
      },
    });
    assert.equal(run.result.stopReason, 'end_turn', run.result.error);
    assert.ok(anthropic.requests.length === 2 && anthropic.requests.every(isPlannerRequest));
    assert.deepEqual(
      anthropic.requests.map((r) => r.model),
      ['claude-plan', 'claude-plan'],
    );
    assert.ok(openai.requests.length === 2 && !openai.requests.some(isPlannerRequest));
    assert.deepEqual(
      openai.requests.map((r) => r.model),
      ['gpt-exec', 'gpt-exec'],
    );

    const planner = nodes(run).find((node) => node.kind === 'planner');
    assert.equal(planner?.['cost'], 18 * 0.25);
    const [summary] = run.sink.of(Methods.CostSummary);
    const byModel = (summary?.byModel ?? []) as ModelCost[];
    assert.deepEqual(
      byModel.map((line) => [line.provider, line.model, line.usage.inputTokens]).sort(),
      [
        ['anthropic', 'claude-plan', 18],
        ['openai', 'gpt-exec', 0],
      ],
    );
  });

  it('a v1 client gets a planner node as a tool node, live and in stored trees', () => {
    const node = {
      id: 'n1',
      parentId: 't1',
      kind: 'planner',
      name: 'plan',
      status: 'done',
      depth: 0,
    };
    const event = { seq: 3, method: Methods.TreeUpdate.method, params: { nodes: [node] } };
    const kindFor = (capabilities: object) =>
      (eventForClient(event, capabilities).params['nodes'] as { kind: string }[])[0]?.kind;
    assert.equal(kindFor({}), 'tool');
    assert.equal(kindFor({ openEnums: {} }), 'planner');
    assert.equal(resultForClient({ tree: { nodes: [node] } }, {}).tree.nodes[0]?.kind, 'tool');
  });
});
