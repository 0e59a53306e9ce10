/**
 * The context engine over long sessions (issue 18): requests never exceed
 * the window minus the output reserve, older tool results go out reduced
 * while the latest stay whole, earlier turns are summarized now and then
 * (compaction.test.ts has the details), and the
 * provider's reported usage corrects the engine's counts.
 */
import { strict as assert } from 'node:assert';
import { TRANSCRIPT_HEADER } from '../../../src/agent/context/compaction.js';
import { ScriptedProvider } from '../../../src/providers/scripted.js';
import type { ProviderMessage } from '../../../src/providers/provider.js';
import { removeScratchDirs } from '../../store/helpers.js';
import { runTurn, script } from '../harness.js';
import {
  MeasuringProvider,
  StoredSession,
  numberedText,
  reportTool,
  requestTokens,
} from './contextHarness.js';

const TURNS = 300;
const WINDOW = 20_000;
const RESERVE = 2_000;
const REPORT_CHARS = 6_000; // 1,500 tokens: under the offload threshold, so only reduction shrinks it

function toolResults(messages: readonly ProviderMessage[]): string[] {
  return messages.flatMap((m) => (m.role === 'tool' ? [m.content] : []));
}

describe('context engine: long sessions', function () {
  this.timeout(120_000);
  afterEach(removeScratchDirs);

  it(`a ${TURNS}-turn session with large tool results never sends a request over window - reserve`, async () => {
    const conversations: Record<string, unknown[]> = {};
    for (let i = 1; i <= TURNS; i++) {
      conversations[`question ${i}`] = [
        { toolCalls: [{ name: 'report', arguments: { n: i } }] },
        { text: `answer ${i}` },
      ];
    }
    conversations[TRANSCRIPT_HEADER] = [
      { text: 'Earlier: numbered questions, each with a report.' },
    ];
    const provider = new MeasuringProvider(
      new ScriptedProvider(script(conversations as Parameters<typeof script>[0]), {
        capabilities: { contextWindow: WINDOW, outputReserve: RESERVE },
      }),
    );
    const session = new StoredSession({ provider, tools: [reportTool(REPORT_CHARS)] });
    try {
      let compactions = 0;
      for (let i = 1; i <= TURNS; i++) {
        const result = await session.turn(`question ${i}`);
        assert.equal(result.stopReason, 'end_turn', `turn ${i}: ${result.error}`);
        compactions += result.tree.nodes.filter((node) => node.kind === 'compaction').length;
      }
      // A summary buys many turns: reduced tool results fill the window again only slowly.
      assert.ok(compactions >= 1 && compactions <= TURNS / 10, `${compactions} compactions`);
      assert.equal(provider.sizes.length, 2 * TURNS + compactions);
      const largest = Math.max(...provider.sizes);
      assert.ok(largest <= WINDOW - RESERVE, `largest request: ${largest} tokens`);
      // Without the engine the history alone would be far over the window.
      assert.ok(TURNS * (REPORT_CHARS / 4) > 20 * WINDOW);

      // The last request: this turn's result whole; earlier ones whole, or reduced once they
      // stopped fitting (how far depends on how long ago the last summary was made).
      const last = provider.last!;
      const results = toolResults(last.messages);
      assert.ok(results.length >= 3, `${results.length} tool results in the last request`);
      assert.equal(results.at(-1), numberedText(`report ${TURNS}`, REPORT_CHARS));
      for (const earlier of results.slice(0, -1)) {
        if (earlier.length === REPORT_CHARS) continue;
        assert.match(earlier, /\[reduced: \d+ tokens, full result kept as artifact art_[\w-]+\]$/);
        assert.ok(earlier.length < 1_000);
      }
      // Earlier turns went whole, into the summary: every tool result still answers a call it follows.
      const calls = new Set(
        last.messages
          .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))
          .map((c) => c.id),
      );
      for (const message of last.messages) {
        if (message.role === 'tool')
          assert.ok(calls.has(message.toolCallId), 'orphaned tool result');
      }
      assert.equal(last.messages[0]?.role, 'user');
      assert.match(last.messages[0]!.content, /^\[Summary of the \d+ earlier messages/);
      assert.ok(
        !last.messages.some((m) => m.content === 'question 1'),
        'the oldest turns were summarized',
      );

      // The store's messages are the full record: no reduced text in what session/load shows.
      const loaded = session.store.loadSession(session.sessionId)!;
      assert.equal(loaded.messages.length, 2 * TURNS);
      assert.ok(loaded.messages.every((m) => !m.content.includes('[reduced:')));
    } finally {
      session.close();
    }
  });

  it('the usage the provider reports corrects the counts: a model that counts double gets half as much', async () => {
    const calls = 30;
    const window = 24_000;
    const replies = [
      ...Array.from({ length: calls }, (_, n) => ({
        toolCalls: [{ name: 'report', arguments: { n } }],
      })),
      { text: 'done' },
    ];
    const measured = new MeasuringProvider(
      new ScriptedProvider(script({ '*': replies }), { capabilities: { contextWindow: window } }),
    );
    // This model's tokenizer yields twice the estimate, and says so in its usage.
    const doubling = {
      id: 'doubling',
      capabilities: measured.capabilities,
      async *stream(request: Parameters<MeasuringProvider['stream']>[0], signal: AbortSignal) {
        for await (const event of measured.stream(request, signal)) {
          if (event.type === 'usage') {
            yield {
              type: 'usage' as const,
              usage: { inputTokens: 2 * requestTokens(request), outputTokens: 1 },
            };
          } else yield event;
        }
      },
    };
    const run = await runTurn(script({}), {
      provider: doubling,
      tools: [reportTool(4_000)],
      budgets: { maxIterationsPerLevel: calls + 2, maxLlmCalls: calls + 2 },
    });
    assert.equal(run.result.stopReason, 'end_turn', run.result.error);
    const afterFirst = measured.sizes.slice(1);
    // Uncorrected, the tool results (30 x 1,000 tokens) would fill the window.
    assert.ok(
      afterFirst.every((size) => 2 * size <= window),
      `sizes: ${afterFirst.join(', ')}`,
    );
    assert.ok(Math.max(...afterFirst) > window / 4, 'the window was actually used');
    assert.ok(toolResults(measured.last!.messages).some((r) => r.includes('[reduced:')));
  });
});
