import assert from 'node:assert/strict';
import { FINAL_NODE_STATUSES, Methods, type NodeStatus } from '@arbor/protocol';
import { TRANSCRIPT_HEADER } from '../../src/agent/context/compaction.js';
import { nodes, runTurn, script, sleepTool, type Span, type TurnRun } from './harness.js';

const subtask = (title: string, instructions: string) => ({
  name: 'run_subtask',
  arguments: { title, instructions },
});

function assertBudgetStop(
  run: TurnRun,
  expected: { kind: string; limit: number; observed?: number },
): void {
  assert.equal(run.result.stopReason, 'budget_exceeded');
  const exceeded = run.sink.of(Methods.BudgetExceeded);
  assert.equal(exceeded.length, 1, 'budget/exceeded is sent once');
  assert.equal(exceeded[0]?.kind, expected.kind);
  assert.equal(exceeded[0]?.limit, expected.limit);
  if (expected.observed !== undefined) assert.equal(exceeded[0]?.observed, expected.observed);
  assert.ok((exceeded[0]?.observed as number) > expected.limit);
  // the partial tree is kept, every node final, and the turn still gets its cost summary
  for (const node of nodes(run))
    assert.ok(
      FINAL_NODE_STATUSES.includes(node.status as NodeStatus),
      `${node.id} is ${node.status}`,
    );
  assert.equal(nodes(run)[0]?.status, 'error');
  assert.equal(run.sink.of(Methods.CostSummary).length, 1);
}

describe('TurnBudget', () => {
  it('llm_calls: exceeding ends the turn, keeping partial text and tree', async () => {
    const run = await runTurn(
      script({
        '*': [
          { text: 'Looking at memory first.', toolCalls: [{ name: 'memory_list' }] },
          { text: 'never' },
        ],
      }),
      { budgets: { maxLlmCalls: 1 } },
    );
    assertBudgetStop(run, { kind: 'llm_calls', limit: 1, observed: 2 });
    assert.equal(run.result.text, 'Looking at memory first.');
    assert.deepEqual(
      nodes(run).map((n) => [n.name, n.status]),
      [
        ['turn', 'error'],
        ['memory_list', 'done'],
      ],
    );
  });

  it('tool_calls: the call over the limit is refused and the turn ends', async () => {
    const spans: Span[] = [];
    const calls = ['a', 'b', 'c'].map((id) => ({ name: 'sleep', arguments: { ms: 5000, id } }));
    const run = await runTurn(script({ '*': [{ toolCalls: calls }, { text: 'never' }] }), {
      tools: [sleepTool(spans)],
      budgets: { maxToolCalls: 2 },
    });
    assertBudgetStop(run, { kind: 'tool_calls', limit: 2, observed: 3 });
    assert.ok(run.elapsedMs < 1000, 'running siblings are stopped');
    const tools = nodes(run).filter((n) => n.kind === 'tool');
    assert.equal(tools.length, 3);
    assert.equal(tools[2]?.status, 'error');
    assert.equal(run.sink.of(Methods.BudgetExceeded)[0]?.nodeId, tools[2]?.id);
  });

  it('subtasks: one spawn too many ends the turn', async () => {
    const run = await runTurn(
      script({
        '*': [{ toolCalls: [subtask('a', 'job a'), subtask('b', 'job b')] }, { text: 'never' }],
        'job ': [{ delayMs: 200, text: 'x' }],
      }),
      { budgets: { maxSubtasks: 1 } },
    );
    assertBudgetStop(run, { kind: 'subtasks', limit: 1, observed: 2 });
    assert.equal(nodes(run).filter((n) => n.kind === 'subtask').length, 2);
  });

  it('wall_clock_ms: a long tool is stopped at the limit', async () => {
    const spans: Span[] = [];
    const run = await runTurn(
      script({
        '*': [{ toolCalls: [{ name: 'sleep', arguments: { ms: 10_000 } }] }, { text: 'never' }],
      }),
      {
        tools: [sleepTool(spans, { ignoreAbort: true })],
        budgets: { maxWallClockMs: 150 },
      },
    );
    assertBudgetStop(run, { kind: 'wall_clock_ms', limit: 150 });
    assert.ok(run.elapsedMs < 600, `returned after ${run.elapsedMs} ms`);
    assert.equal(nodes(run)[1]?.status, 'cancelled');
  });

  it('history_tokens: a request that cannot fit ends the turn before the call', async () => {
    const run = await runTurn(script({ '*': [{ text: 'never' }] }), {
      text: 'x'.repeat(4000),
      budgets: { maxHistoryTokens: 500 },
    });
    assertBudgetStop(run, { kind: 'history_tokens', limit: 500 });
    assert.equal(run.provider.requests.length, 0);
  });

  it('history_tokens: earlier turns the model cannot summarize are dropped, oldest first, before giving up', async () => {
    const old = 'y'.repeat(2000);
    const summarizer = { [TRANSCRIPT_HEADER]: [{ error: 'overloaded' }] };
    const run = await runTurn(script({ ...summarizer, '*': [{ text: 'fits' }] }), {
      history: [
        { role: 'user', content: old },
        { role: 'assistant', content: old },
        { role: 'user', content: 'recent question' },
        { role: 'assistant', content: 'recent answer' },
      ],
      budgets: { maxHistoryTokens: 1200 },
    });
    assert.equal(run.result.stopReason, 'end_turn');
    // The first request was the summary that failed.
    assert.equal(run.provider.requests.length, 2);
    assert.deepEqual(
      run.provider.requests[1]?.messages.map((m) => m.content),
      ['recent question', 'recent answer', 'hello'],
    );
  });

  it('is one budget for the whole turn: a limit hit inside a subtask ends every loop', async () => {
    const spans: Span[] = [];
    const run = await runTurn(
      script({
        '*': [
          { toolCalls: [subtask('slow', 'slow job'), subtask('greedy', 'greedy job')] },
          { text: 'never' },
        ],
        'slow job': [
          { toolCalls: [{ name: 'sleep', arguments: { ms: 5000 } }] },
          { text: 'never' },
        ],
        'greedy job': [
          { delayMs: 50, toolCalls: [{ name: 'memory_list' }] },
          { toolCalls: [{ name: 'memory_list' }] },
          { text: 'never' },
        ],
      }),
      { tools: [sleepTool(spans)], budgets: { maxLlmCalls: 4 } },
    );
    assertBudgetStop(run, { kind: 'llm_calls', limit: 4, observed: 5 });
    assert.ok(run.elapsedMs < 1000, 'the slow sibling was stopped');
    const statuses = Object.fromEntries(
      nodes(run)
        .filter((n) => n.kind === 'subtask')
        .map((n) => [n.title, n.status]),
    );
    // the node where the limit was hit is an error; its sibling was cancelled
    assert.deepEqual(statuses, { slow: 'cancelled', greedy: 'error' });
    assert.equal(
      run.sink.of(Methods.BudgetExceeded)[0]?.nodeId,
      nodes(run).find((n) => n.title === 'greedy')?.id,
    );
  });
});
