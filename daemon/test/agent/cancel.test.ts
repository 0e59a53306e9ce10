import assert from 'node:assert/strict';
import { Methods } from '@arbor/protocol';
import type { Provider, ProviderEvent, ProviderRequest } from '../../src/providers/provider.js';
import { TURN_ID, nodes, runTurn, script, sleep, sleepTool, type Span } from './harness.js';

/** Streams one delta, then hangs without looking at its signal: only the loop's own abort can end it. */
class HangingProvider implements Provider {
  readonly id = 'hanging';
  readonly capabilities = { tools: true, parallelToolCalls: true, contextWindow: 100_000 };
  async *stream(_request: ProviderRequest, _signal: AbortSignal): AsyncIterable<ProviderEvent> {
    yield { type: 'text', text: 'Partial ans' };
    await sleep(60_000);
    yield { type: 'text', text: 'wer' };
  }
}

describe('cancellation', () => {
  it('mid-stream: returns promptly with stopReason cancelled and the partial text', async () => {
    const controller = new AbortController();
    let cancelledAt = 0;
    const run = await runTurn(script({}), {
      provider: new HangingProvider(),
      signal: controller.signal,
      onEvent: (event) => {
        if (event.method === Methods.ChatChunk.method && cancelledAt === 0) {
          cancelledAt = performance.now();
          controller.abort();
        }
      },
    });
    assert.equal(run.result.stopReason, 'cancelled');
    assert.equal(run.result.text, 'Partial ans');
    assert.equal(nodes(run)[0]?.status, 'cancelled');
    assert.ok(performance.now() - cancelledAt < 100, 'prompt');
    assert.equal(run.sink.of(Methods.BudgetExceeded).length, 0);
    // a provider that knows no price: cost is unknown (null), never 0
    const [summary] = run.sink.of(Methods.CostSummary);
    assert.equal(summary?.cost, null);
    assert.deepEqual(summary?.byModel, [
      {
        provider: 'hanging',
        model: 'scripted:test',
        calls: 1,
        usage: { inputTokens: 0, outputTokens: 0 },
        cost: null,
      },
    ]);
  });

  it('while the provider waits (delayMs): returns promptly', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const run = await runTurn(script({ '*': [{ delayMs: 10_000, text: 'late' }] }), {
      signal: controller.signal,
    });
    assert.equal(run.result.stopReason, 'cancelled');
    assert.ok(run.elapsedMs < 500, `took ${run.elapsedMs} ms`);
  });

  for (const ignoreAbort of [false, true]) {
    it(`mid-tool (tool ${ignoreAbort ? 'ignores' : 'honours'} its signal): running nodes end cancelled`, async () => {
      const controller = new AbortController();
      const spans: Span[] = [];
      const run = await runTurn(
        script({
          '*': [
            {
              toolCalls: [
                { name: 'sleep', arguments: { ms: 10_000 } },
                { name: 'run_subtask', arguments: { title: 't', instructions: 'nested job' } },
              ],
            },
          ],
          'nested job': [{ toolCalls: [{ name: 'sleep', arguments: { ms: 10_000 } }] }],
        }),
        {
          tools: [sleepTool(spans, { ignoreAbort })],
          signal: controller.signal,
          onEvent: (event, sink) => {
            const running = sink
              .of(Methods.TreeUpdate)
              .flatMap((p) => p.nodes as { name: string; depth: number; status: string }[]);
            if (
              event.method === Methods.TreeUpdate.method &&
              running.some((n) => n.name === 'sleep' && n.depth === 1 && n.status === 'running')
            ) {
              setTimeout(() => controller.abort(), 20);
            }
          },
        },
      );
      assert.equal(run.result.stopReason, 'cancelled');
      assert.ok(run.elapsedMs < 1000, `took ${run.elapsedMs} ms`);
      assert.deepEqual(
        nodes(run).map((n) => [n.kind, n.status]),
        [
          ['turn', 'cancelled'],
          ['tool', 'cancelled'],
          ['subtask', 'cancelled'],
          ['tool', 'cancelled'],
        ],
      );
      assert.equal(spans.length, 0);
      assert.equal(run.result.error, undefined, 'a cancel is not a crash');
    });
  }

  it('a signal aborted before the turn starts ends it at once', async () => {
    const controller = new AbortController();
    controller.abort();
    const run = await runTurn(script({ '*': [{ text: 'never' }] }), { signal: controller.signal });
    assert.equal(run.result.stopReason, 'cancelled');
    assert.equal(run.provider.requests.length, 0);
    assert.equal(run.sink.textOf(TURN_ID), '');
  });
});
