/**
 * What an agent profile (TurnRequest.agent) changes in a turn, seen from the
 * model's side (the scripted provider's requests) and in the turn's events:
 * instructions in the root and subtask prompts, only its tools offered, its
 * budgets lowering the daemon's and never raising them, MCP progress hidden.
 */
import assert from 'node:assert/strict';
import { Methods } from '@arbor/protocol';
import { z } from 'zod';
import { AgentProfile, type NamedAgentProfile } from '../../src/agents/agentProfile.js';
import { defineTool, type Tool } from '../../src/tools/tool.js';
import { runTurn, script, sleepTool, toolMessages, type Span } from '../agent/harness.js';

function agent(fields: z.input<typeof AgentProfile>, name = 'tester'): NamedAgentProfile {
  return { name, source: 'config', profile: AgentProfile.parse(fields) };
}

/** A tool that reports progress while it runs, named as an MCP server's tool would be. */
function progressTool(name: string): Tool {
  return defineTool({
    name,
    description: 'Reports progress.',
    input: z.object({}),
    category: 'read',
    execute: (_args, ctx) => {
      ctx.progress?.({ progress: 1, total: 2 });
      return 'ok';
    },
  }) as Tool;
}

describe('agent profiles in a turn', () => {
  it('instructions reach the system prompt of the root loop and of its subtasks', async () => {
    const run = await runTurn(
      script({
        hello: [
          {
            toolCalls: [
              { name: 'run_subtask', arguments: { title: 'Look', instructions: 'look around' } },
            ],
          },
          { text: 'done' },
        ],
        'look around': [{ text: 'seen' }],
      }),
      { profile: agent({ instructions: 'Always answer in haiku.' }, 'poet') },
    );
    assert.equal(run.result.stopReason, 'end_turn');
    const [root, child] = [
      run.provider.requests[0]!,
      run.provider.requests.find((r) => r.messages[0]?.content === 'look around')!,
    ];
    assert.match(root.system, /agent "poet"/);
    assert.match(root.system, /Always answer in haiku\./);
    assert.match(child.system, /subtask/);
    assert.match(child.system, /Always answer in haiku\./);

    const plain = await runTurn(script({ hello: [{ text: 'hi' }] }));
    assert.doesNotMatch(plain.provider.requests[0]!.system, /haiku/);
  });

  it('only the profile’s tools are offered; a call to another is answered as an unknown tool and never runs', async () => {
    const spans: Span[] = [];
    const run = await runTurn(
      script({
        hello: [
          { toolCalls: [{ name: 'blocked', arguments: { ms: 1, id: 'x' } }] },
          { text: 'done' },
        ],
      }),
      {
        tools: [sleepTool(spans), sleepTool(spans, { name: 'blocked' })],
        profile: agent({ tools: ['sleep', 'memory_*'] }),
      },
    );
    const offered = (run.provider.requests[0]!.tools ?? []).map((tool) => tool.name).sort();
    assert.deepEqual(offered, ['memory_list', 'memory_read', 'memory_write', 'sleep']);
    const [answer] = toolMessages(run.provider.requests[1]!);
    assert.match(answer!.content, /Unknown tool "blocked"/);
    assert.deepEqual(spans, [], 'the refused tool did not run');
  });

  it('budgets lower the daemon’s limits and cannot raise them', async () => {
    const spans: Span[] = [];
    const calls = ['a', 'b', 'c'].map((id) => ({ name: 'sleep', arguments: { ms: 1, id } }));
    const threeCalls = script({ hello: [{ toolCalls: calls }, { text: 'done' }] });

    const lowered = await runTurn(threeCalls, {
      tools: [sleepTool(spans)],
      profile: agent({ budgets: { maxToolCalls: 2 } }),
    });
    assert.equal(lowered.result.stopReason, 'budget_exceeded');
    assert.equal(lowered.sink.of(Methods.BudgetExceeded)[0]?.limit, 2);

    const raised = await runTurn(threeCalls, {
      tools: [sleepTool(spans)],
      budgets: { maxToolCalls: 2 },
      profile: agent({ budgets: { maxToolCalls: 100 } }),
    });
    assert.equal(raised.result.stopReason, 'budget_exceeded', 'the daemon’s 2 still holds');
    assert.equal(raised.sink.of(Methods.BudgetExceeded)[0]?.limit, 2);

    const unlimited = await runTurn(threeCalls, { tools: [sleepTool(spans)] });
    assert.equal(unlimited.result.stopReason, 'end_turn');
  });

  it('emitMcpProgress: false hides MCP tools’ progress and keeps other tools’', async () => {
    const calls = [
      { name: 'mcp__srv__slow', arguments: {} },
      { name: 'local_slow', arguments: {} },
    ];
    const progressOf = async (emitMcpProgress: boolean) => {
      const run = await runTurn(script({ hello: [{ toolCalls: calls }, { text: 'done' }] }), {
        tools: [progressTool('mcp__srv__slow'), progressTool('local_slow')],
        profile: agent({ emitMcpProgress }),
      });
      const names = new Map<string, string>();
      const withProgress = new Set<string>();
      for (const update of run.sink.of(Methods.TreeUpdate)) {
        for (const node of update['nodes'] as { id: string; name?: string; progress?: unknown }[]) {
          if (node.name) names.set(node.id, node.name);
          if (node.progress) withProgress.add(node.id);
        }
      }
      return [...withProgress].map((id) => names.get(id)).sort();
    };
    assert.deepEqual(await progressOf(true), ['local_slow', 'mcp__srv__slow']);
    assert.deepEqual(await progressOf(false), ['local_slow']);
  });
});
