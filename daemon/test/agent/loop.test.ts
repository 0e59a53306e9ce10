import assert from 'node:assert/strict';
import { Methods } from '@arbor/protocol';
import {
  TURN_ID,
  bigTool,
  maxConcurrency,
  nodes,
  runTurn,
  script,
  sleepTool,
  throwTool,
  toolMessages,
  type Span,
} from './harness.js';

describe('agent loop', () => {
  it('answers directly without tools: chunks on the turn node, end_turn, one LLM call', async () => {
    const run = await runTurn(
      script({
        hello: [
          {
            text: 'Hi there, how can I help you today?',
            usage: { inputTokens: 10, outputTokens: 7 },
          },
        ],
      }),
    );
    assert.equal(run.result.stopReason, 'end_turn');
    assert.equal(run.result.text, 'Hi there, how can I help you today?');
    assert.equal(run.sink.textOf(TURN_ID), run.result.text);
    assert.deepEqual(run.result.usage, { inputTokens: 10, outputTokens: 7 });
    assert.equal(run.provider.requests.length, 1);
    assert.ok((run.provider.requests[0]?.tools?.length ?? 0) > 0, 'tools are offered');
    assert.deepEqual(
      nodes(run).map((n) => [n.kind, n.status]),
      [['turn', 'done']],
    );
    const cost = run.sink.of(Methods.CostSummary);
    assert.equal(cost.length, 1);
    // the scripted provider is accounted as scripted/scripted at cost 0 (spec appendix)
    assert.equal(cost[0]?.cost, 0);
    assert.deepEqual(cost[0]?.byModel, [
      {
        provider: 'scripted',
        model: 'scripted',
        calls: 1,
        usage: { inputTokens: 10, outputTokens: 7 },
        cost: 0,
      },
    ]);
    // cost/summary is the last event of the turn
    assert.equal(run.sink.events.at(-1)?.method, Methods.CostSummary.method);
  });

  it('tool arguments nested 200,000 levels deep: a clear error result the model sees, the turn goes on', async () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const run = await runTurn(
      script({
        hello: [
          { toolCalls: [{ id: 'c1', name: 'big', arguments: { value: deep } }] },
          { text: 'Sorry, let me try that again.' },
        ],
      }),
      { tools: [bigTool] },
    );
    assert.equal(run.result.stopReason, 'end_turn');
    assert.equal(run.result.text, 'Sorry, let me try that again.');
    const [result] = toolMessages(run.provider.requests[1]!);
    assert.equal(result?.isError, true);
    assert.match(result!.content, /nest deeper than 64 levels/);
    const node = nodes(run).find((n) => n.name === 'big');
    assert.equal(node?.status, 'error');
  });

  it('coalesces streamed text into few chat/chunk notifications', async () => {
    const long = 'word '.repeat(200).trim();
    const run = await runTurn(script({ '*': [{ text: long }] }));
    const chunks = run.sink.of(Methods.ChatChunk);
    assert.equal(run.sink.textOf(TURN_ID), long);
    assert.ok(chunks.length < 5, `expected coalesced chunks, got ${chunks.length}`);
  });

  it('runs parallel-safe tools concurrently (timestamps overlap)', async () => {
    const spans: Span[] = [];
    const calls = ['a', 'b', 'c', 'd'].map((id) => ({ name: 'sleep', arguments: { ms: 150, id } }));
    const run = await runTurn(script({ '*': [{ toolCalls: calls }, { text: 'done' }] }), {
      tools: [sleepTool(spans)],
    });
    assert.equal(run.result.stopReason, 'end_turn');
    assert.equal(spans.length, 4);
    const latestStart = Math.max(...spans.map((s) => s.start));
    const earliestEnd = Math.min(...spans.map((s) => s.end));
    assert.ok(latestStart < earliestEnd, 'all four were running at the same time');
    assert.ok(run.elapsedMs < 450, `took ${run.elapsedMs} ms`);
  });

  it('queues the surplus beyond maxParallel', async () => {
    const spans: Span[] = [];
    const calls = ['a', 'b', 'c', 'd'].map((id) => ({ name: 'sleep', arguments: { ms: 100, id } }));
    await runTurn(script({ '*': [{ toolCalls: calls }, { text: 'done' }] }), {
      tools: [sleepTool(spans)],
      budgets: { maxParallel: 2 },
    });
    assert.equal(maxConcurrency(spans), 2);
  });

  it('runs tools sharing a lock one at a time, in emitted order', async () => {
    const spans: Span[] = [];
    const calls = ['1', '2', '3'].map((id) => ({ name: 'locked', arguments: { ms: 40, id } }));
    const run = await runTurn(script({ '*': [{ toolCalls: calls }, { text: 'done' }] }), {
      tools: [sleepTool(spans, { name: 'locked', lock: 'fs' })],
    });
    assert.equal(run.result.stopReason, 'end_turn');
    assert.deepEqual(
      spans.map((s) => s.id),
      ['1', '2', '3'],
    );
    for (let i = 1; i < spans.length; i++)
      assert.ok(spans[i]!.start >= spans[i - 1]!.end, 'no overlap');
  });

  it('turns a throwing tool into an error result and leaves its siblings intact', async () => {
    const spans: Span[] = [];
    const run = await runTurn(
      script({
        '*': [
          {
            toolCalls: [
              { name: 'sleep', arguments: { ms: 20, id: 'x' } },
              { name: 'explode' },
              { name: 'sleep', arguments: { ms: 20, id: 'y' } },
            ],
          },
          { text: 'recovered' },
        ],
      }),
      { tools: [sleepTool(spans), throwTool] },
    );
    assert.equal(run.result.stopReason, 'end_turn');
    assert.equal(run.result.text, 'recovered');
    const results = toolMessages(run.provider.requests[1]!);
    assert.deepEqual(
      results.map((r) => [r.name, r.isError]),
      [
        ['sleep', false],
        ['explode', true],
        ['sleep', false],
      ],
    );
    assert.match(results[1]!.content, /kaboom/);
    assert.deepEqual(
      nodes(run)
        .filter((n) => n.kind === 'tool')
        .map((n) => n.status),
      ['done', 'error', 'done'],
    );
  });

  it('answers an unknown tool or invalid arguments with an error result the model can correct', async () => {
    const spans: Span[] = [];
    const run = await runTurn(
      script({
        '*': [
          { toolCalls: [{ name: 'no_such_tool' }, { name: 'sleep', arguments: { ms: 'soon' } }] },
          { toolCalls: [{ name: 'sleep', arguments: { ms: 1 } }] },
          { text: 'ok' },
        ],
      }),
      { tools: [sleepTool(spans)] },
    );
    assert.equal(run.result.stopReason, 'end_turn');
    const [unknown, invalid] = toolMessages(run.provider.requests[1]!);
    assert.equal(unknown?.isError, true);
    assert.match(unknown!.content, /Unknown tool "no_such_tool"/);
    assert.equal(invalid?.isError, true);
    assert.match(invalid!.content, /Invalid arguments for sleep/);
    assert.equal(spans.length, 1);
  });

  it('truncates a result over maxToolResultBytes with a marker', async () => {
    const run = await runTurn(
      script({
        '*': [{ toolCalls: [{ name: 'big', arguments: { bytes: 5000 } }] }, { text: 'ok' }],
      }),
      {
        tools: [bigTool],
        budgets: { maxToolResultBytes: 1000 },
      },
    );
    const [result] = toolMessages(run.provider.requests[1]!);
    assert.ok(Buffer.byteLength(result!.content) <= 1000);
    assert.match(result!.content, /^x+\n\[… truncated: \d+ of 5000 bytes shown\]$/);
    assert.ok(((nodes(run)[1]?.resultPreview as string) ?? '').length <= 500);
  });

  it('on iteration overflow makes the last call without tools and stops with max_iterations', async () => {
    const spans: Span[] = [];
    const again = { toolCalls: [{ name: 'sleep', arguments: { ms: 1 } }] };
    const run = await runTurn(
      script({ '*': [again, again, { text: 'Final answer.', ...again }] }),
      {
        tools: [sleepTool(spans)],
        budgets: { maxIterationsPerLevel: 3 },
      },
    );
    assert.equal(run.result.stopReason, 'max_iterations');
    assert.equal(run.provider.requests.length, 3);
    assert.ok((run.provider.requests[1]?.tools?.length ?? 0) > 0);
    assert.equal(run.provider.requests[2]?.tools, undefined, 'the last call offers no tools');
    assert.equal(spans.length, 2, 'tool calls of the last reply are not run');
    assert.match(run.result.text, /Final answer\.$/);
  });

  it('degrades to plain chat when the provider has no tool support', async () => {
    const run = await runTurn(
      script({ '*': [{ text: 'plain', toolCalls: [{ name: 'memory_list' }] }] }),
      {
        capabilities: { tools: false },
      },
    );
    assert.equal(run.result.stopReason, 'end_turn');
    assert.equal(run.provider.requests[0]?.tools, undefined);
    assert.equal(nodes(run).length, 1);
  });

  it('runs one tool per model turn when the provider has no parallel tool calls', async () => {
    const spans: Span[] = [];
    const run = await runTurn(
      script({
        '*': [
          {
            toolCalls: [
              { name: 'sleep', arguments: { ms: 1, id: 'a' } },
              { name: 'sleep', arguments: { ms: 1, id: 'b' } },
            ],
          },
          { text: 'ok' },
        ],
      }),
      { tools: [sleepTool(spans)], capabilities: { parallelToolCalls: false } },
    );
    assert.equal(run.provider.requests[0]?.parallelToolCalls, false);
    assert.deepEqual(
      spans.map((s) => s.id),
      ['a'],
    );
    const results = toolMessages(run.provider.requests[1]!);
    assert.equal(results.length, 2, 'every call is answered');
    assert.equal(results[1]?.isError, true);
  });

  it('ends with stopReason error when the provider fails, keeping a valid tree', async () => {
    const run = await runTurn(script({ '*': [{ error: 'model overloaded' }] }));
    assert.equal(run.result.stopReason, 'error');
    assert.equal(run.result.error, 'model overloaded');
    assert.equal(nodes(run)[0]?.status, 'error');
  });

  it('treats running out of script replies as a provider error', async () => {
    const run = await runTurn(script({ '*': [{ toolCalls: [{ name: 'memory_list' }] }] }));
    assert.equal(run.result.stopReason, 'error');
    assert.match(run.result.error ?? '', /ran out of replies/);
  });
});

describe('tool result truncation', () => {
  it('cuts at a code-point boundary and stays within the byte limit, marker included', async () => {
    const { truncateResult } = await import('../../src/agent/toolResult.js');
    const text = '😀'.repeat(1000);
    const cut = truncateResult(text, 301);
    assert.ok(Buffer.byteLength(cut) <= 301);
    assert.ok(!cut.includes('\uFFFD'));
    assert.match(cut, /^(😀)+\n\[… truncated: \d+ of 4000 bytes shown\]$/u);
    assert.equal(truncateResult('short', 301), 'short');
  });
});
