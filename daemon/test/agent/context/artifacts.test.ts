/**
 * Offloaded tool results and read_artifact, the turn that cannot fit, the
 * trimmed user message, budget awareness, and what survives a restart.
 */
import { strict as assert } from 'node:assert';
import { Methods, type Usage } from '@arbor/protocol';
import type {
  Provider,
  ProviderEvent,
  ProviderRequest,
  ProviderToolCall,
} from '../../../src/providers/provider.js';
import { ScriptedProvider } from '../../../src/providers/scripted.js';
import { DEFAULT_CONTEXT_SETTINGS } from '../../../src/agent/context/contextSettings.js';
import { removeScratchDirs } from '../../store/helpers.js';
import { RecordingProvider, runTurn, script, toolMessages } from '../harness.js';
import {
  MeasuringProvider,
  StoredSession,
  numberedText,
  reportTool,
  requestTokens,
} from './contextHarness.js';

const NEXT_PAGE = /read_artifact \{"id": "(art_[\w-]+)", "offset": (\d+)\}/;
const NO_USAGE: Usage = { inputTokens: 0, outputTokens: 0 };

/**
 * A model that reads an offloaded result to its end: it calls `report`, then
 * follows each "read the rest" / "more" hint with read_artifact until the last page.
 */
class PagingModel implements Provider {
  readonly id = 'paging';
  readonly capabilities = { tools: true, parallelToolCalls: true, contextWindow: 200_000 };
  readonly requests: ProviderRequest[] = [];

  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    this.requests.push(structuredClone(request));
    const last = request.messages.at(-1)!;
    let call: ProviderToolCall | undefined;
    if (last.role === 'user') call = { id: 'c0', name: 'report', arguments: { n: 7 } };
    const hint = last.role === 'tool' ? NEXT_PAGE.exec(last.content) : null;
    if (hint) {
      call = {
        id: `c${this.requests.length}`,
        name: 'read_artifact',
        arguments: { id: hint[1], offset: Number(hint[2]), length: 10_000 },
      };
    }
    if (call) yield { type: 'tool_call', call };
    else yield { type: 'text', text: 'read it all' };
    yield { type: 'usage', usage: NO_USAGE };
    yield { type: 'stop', reason: call ? 'tool_use' : 'end_turn' };
  }
}

describe('context engine: artifacts, overflow, budget awareness', function () {
  this.timeout(30_000);
  afterEach(removeScratchDirs);

  it('offloads a result over the threshold and pages it back whole through read_artifact', async () => {
    const full = numberedText('report 7', 45_000); // > 8,000 tokens
    const model = new PagingModel();
    const run = await runTurn(script({}), { provider: model, tools: [reportTool(45_000)] });
    assert.equal(run.result.stopReason, 'end_turn', run.result.error);

    const [offloaded, ...pages] = model.requests
      .slice(1)
      .map((request) => request.messages.at(-1)!.content);
    assert.match(offloaded!, /\[offloaded: \d+ tokens, 45000 characters; the first 2000 are shown/);
    let rebuilt = offloaded!.slice(0, offloaded!.indexOf('\n[offloaded:'));
    assert.ok(pages.length >= 4, `${pages.length} pages`);
    for (const page of pages) {
      const header = /^\[artifact art_[\w-]+: characters (\d+)–(\d+) of 45000[^\]]*\]\n/.exec(page);
      assert.ok(header, page.slice(0, 120));
      assert.equal(Number(header[1]), rebuilt.length, 'pages follow each other');
      rebuilt += page.slice(header[0].length);
    }
    assert.equal(rebuilt, full);
    assert.match(pages.at(-1)!, /; this is the end\]/);
    // Clients see which artifact holds the whole result on the tool's node.
    const id = NEXT_PAGE.exec(offloaded!)![1];
    const report = run.result.tree.nodes.find((node) => node.name === 'report')!;
    assert.equal(report.artifactId, id);
    const pageNodes = run.result.tree.nodes.filter((node) => node.name === 'read_artifact');
    assert.ok(pageNodes.every((node) => node.artifactId === undefined));
  });

  it('an offloaded preview stays within the tool_result_bytes budget, marker included', async () => {
    const run = await runTurn(
      script({ '*': [{ toolCalls: [{ name: 'report', arguments: { n: 1 } }] }, { text: 'ok' }] }),
      { tools: [reportTool(45_000)], budgets: { maxToolResultBytes: 1_000 } },
    );
    const [result] = toolMessages(run.provider.requests[1]!);
    assert.ok(
      Buffer.byteLength(result!.content) <= 1_000,
      `${Buffer.byteLength(result!.content)} bytes`,
    );
    assert.match(
      result!.content,
      /^report 1 line 0: some output\n[^]*\[offloaded: \d+ tokens, 45000 characters; the first \d+ are shown/,
    );
  });

  it('a turn that cannot fit ends as the history_tokens budget, before any provider call', async () => {
    const run = await runTurn(script({ '*': [{ text: 'never' }] }), {
      capabilities: { contextWindow: 300 },
    });
    assert.equal(run.result.stopReason, 'budget_exceeded');
    const [exceeded] = run.sink.of(Methods.BudgetExceeded);
    assert.equal(exceeded?.['kind'], 'history_tokens');
    assert.ok((exceeded?.['observed'] as number) > (exceeded?.['limit'] as number));
    assert.ok((exceeded?.['limit'] as number) <= 300, 'within the window');
    assert.equal(run.provider.requests.length, 0);
  });

  it('an oversized user message is trimmed with a marker, and the turn goes on', async () => {
    const run = await runTurn(script({ '*': [{ text: 'read the start' }] }), {
      text: numberedText('pasted', 40_000),
      capabilities: { contextWindow: 4_000, outputReserve: 500 },
    });
    assert.equal(run.result.stopReason, 'end_turn', run.result.error);
    const sent = run.provider.requests[0]!;
    const user = sent.messages.at(-1)!.content;
    assert.match(
      user,
      /\n\[trimmed: this message is 10000 tokens, too long for the model's context window of 4000 tokens; only its first \d+ characters are shown\]$/,
    );
    assert.ok(user.startsWith('pasted line 0: some output\n'));
    assert.ok(requestTokens(sent) <= 3_500, `${requestTokens(sent)} tokens`);
  });

  it('budget awareness per-message: the latest tool result ends with what is left', async () => {
    const run = await runTurn(
      script({ '*': [{ toolCalls: [{ name: 'report', arguments: { n: 1 } }] }, { text: 'done' }] }),
      {
        tools: [reportTool(400)],
        agent: { context: { ...DEFAULT_CONTEXT_SETTINGS, budgetAwareness: 'per-message' } },
      },
    );
    const [first, second] = run.provider.requests;
    assert.equal(toolMessages(first!).length, 0);
    assert.match(
      toolMessages(second!)[0]!.content,
      /\n\[budget: context \d+ of 1000000 tokens used \(0 %\); this turn has 58 model calls, 199 tool calls and \d+ s left\]$/,
    );
  });

  it('budget awareness limit:<n>: every request stays under n % of the window', async () => {
    const window = 40_000;
    const replies = [
      ...Array.from({ length: 25 }, (_, n) => ({
        toolCalls: [{ name: 'report', arguments: { n } }],
      })),
      { text: 'done' },
    ];
    const provider = new MeasuringProvider(
      new ScriptedProvider(script({ '*': replies }), { capabilities: { contextWindow: window } }),
    );
    const run = await runTurn(script({}), {
      provider,
      tools: [reportTool(4_000)],
      budgets: { maxIterationsPerLevel: 30, maxLlmCalls: 30 },
      agent: { context: { ...DEFAULT_CONTEXT_SETTINGS, budgetAwareness: { limitPercent: 50 } } },
    });
    assert.equal(run.result.stopReason, 'end_turn', run.result.error);
    assert.ok(
      provider.sizes.every((size) => size <= window / 2),
      provider.sizes.join(', '),
    );
    assert.ok(Math.max(...provider.sizes) > window / 4);
  });

  it('budget awareness limit:<n> that nothing can reach ends the turn before the call', async () => {
    const run = await runTurn(script({ '*': [{ text: 'never' }] }), {
      agent: { context: { ...DEFAULT_CONTEXT_SETTINGS, budgetAwareness: { limitPercent: 0 } } },
    });
    assert.equal(run.result.stopReason, 'budget_exceeded');
    const [exceeded] = run.sink.of(Methods.BudgetExceeded);
    assert.equal(exceeded?.['kind'], 'history_tokens');
    assert.equal(exceeded?.['limit'], 0, 'the awareness limit: 0 % of the window');
    assert.equal(run.provider.requests.length, 0);
  });

  it('reduced results and artifacts survive a store reopen: the next turn sends them as they were', async () => {
    const big = 40_000; // offloaded
    const small = 3_000; // reduced once the window fills
    const conversations = {
      'first question': [
        { toolCalls: [{ name: 'report', arguments: { n: 1 } }] },
        { toolCalls: [{ name: 'small', arguments: { n: 2 } }] },
        { toolCalls: [{ name: 'small', arguments: { n: 3 } }] },
        { toolCalls: [{ name: 'small', arguments: { n: 4 } }] },
        { text: 'first answer' },
      ],
    };
    const capabilities = { contextWindow: 3_500, outputReserve: 500 };
    const before = new RecordingProvider(
      new ScriptedProvider(script(conversations), { capabilities }),
    );
    const smallTool = { ...reportTool(small), name: 'small' };
    const session = new StoredSession({ provider: before, tools: [reportTool(big), smallTool] });
    assert.equal((await session.turn('first question')).stopReason, 'end_turn');
    const lastBefore = toolMessages(before.requests.at(-1)!).map((m) => m.content);
    assert.match(
      lastBefore[0]!,
      /\[reduced: \d+ tokens, full result kept as artifact (art_[\w-]+)\]$/,
    );
    const offloadedId = /artifact (art_[\w-]+)/.exec(lastBefore[0]!)![1]!;
    const reducedSmall = lastBefore.find(
      (c) => c.startsWith('report 2 line 0') && c.includes('[reduced:'),
    );
    assert.ok(reducedSmall, 'an older small result went out reduced');
    const reducedId = /artifact (art_[\w-]+)\]$/.exec(reducedSmall)![1]!;

    // A restarted daemon: a new store connection, a new runner, a new provider.
    const after = new RecordingProvider(
      new ScriptedProvider(
        script({
          'second question': [
            { toolCalls: [{ name: 'read_artifact', arguments: { id: reducedId } }] },
            {
              toolCalls: [
                { name: 'read_artifact', arguments: { id: offloadedId, offset: 39_990 } },
              ],
            },
            { text: 'second answer' },
          ],
        }),
        { capabilities },
      ),
    );
    const reopened = session.reopen(after);
    try {
      assert.equal((await reopened.turn('second question')).stopReason, 'end_turn');
      const firstRequest = after.requests[0]!;
      // The first turn comes back with its tool work, in the very form it was last sent.
      assert.deepEqual(
        firstRequest.messages.map((m) => m.role),
        [
          'user',
          'assistant',
          'tool',
          'assistant',
          'tool',
          'assistant',
          'tool',
          'assistant',
          'tool',
          'assistant',
          'user',
        ],
      );
      assert.deepEqual(
        toolMessages(firstRequest).map((m) => m.content),
        lastBefore,
      );
      const [full, tail] = toolMessages(after.requests.at(-1)!)
        .slice(-2)
        .map((m) => m.content);
      assert.equal(full!.slice(full!.indexOf('\n') + 1), numberedText('report 2', small));
      assert.equal(
        tail!.slice(tail!.indexOf('\n') + 1),
        numberedText('report 1', big).slice(39_990),
      );
      // session/load shows the full original history.
      assert.deepEqual(
        reopened.store.loadSession(reopened.sessionId)!.messages.map((m) => m.content),
        ['first question', 'first answer', 'second question', 'second answer'],
      );
    } finally {
      reopened.close();
    }
  });
});
