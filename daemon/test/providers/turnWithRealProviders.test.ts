/**
 * A whole turn through createTurnRunner with the real provider factories (and
 * the real SDKs) against each local fake API: parallel tool calls, one of
 * them a subtask with its own model call; checks the execution tree and
 * cost/summary.
 */
import assert from 'node:assert/strict';
import { Methods } from '@arbor/protocol';
import { z } from 'zod';
import { DEFAULT_BUDGET_LIMITS } from '../../src/agent/budgetLimits.js';
import { createTurnRunner } from '../../src/agent/index.js';
import { defineTool, type Tool } from '../../src/tools/tool.js';
import { RecordingSink, SESSION_ID, TURN_ID, type TreeNode } from '../agent/harness.js';
import { FakeApi, type Api, type RecordedRequest } from './fakeApi.js';

const tools = [
  defineTool({
    name: 'read_file',
    description: 'Reads a file',
    input: z.object({ path: z.string() }),
    category: 'read',
    execute: ({ path }) => `contents of ${path}`,
  }),
  defineTool({
    name: 'list_dir',
    description: 'Lists the workspace',
    input: z.object({}),
    category: 'read',
    execute: () => 'notes.md',
  }),
] as Tool[];

/** Which fixture answers: the subtask's call, the root's follow-up, or the root's first call. */
function route(api: Api, request: RecordedRequest): string {
  const messages = request.body['messages'] as { role: string; content: unknown }[];
  const last = messages.at(-1)!;
  const isToolResult =
    api === 'openai'
      ? last.role === 'tool'
      : Array.isArray(last.content) &&
        (last.content as { type: string }[]).some((b) => b.type === 'tool_result');
  if (isToolResult) return 'final_answer.sse';
  const firstUser = JSON.stringify(messages.find((m) => m.role === 'user')?.content);
  if (firstUser.includes('Summarize the notes') && !firstUser.includes('Read the notes'))
    return 'subtask_answer.sse';
  return api === 'openai' ? 'parallel_tool_calls.sse' : 'parallel_tool_use.sse';
}

const CASES = [
  {
    api: 'openai' as const,
    model: 'openai:gpt-4.1',
    // gpt-4.1: $2 input, $0.5 cached, $8 output per million.
    expectedCost:
      (976 * 2 + 1024 * 0.5 + 150 * 8 + 40 * 2 + 7 * 8 + 388 * 2 + 512 * 0.5 + 9 * 8) / 1e6,
    usage: { inputTokens: 2940, outputTokens: 166, cachedInputTokens: 1536, reasoningTokens: 64 },
  },
  {
    api: 'anthropic' as const,
    model: 'anthropic:claude-haiku-4-5',
    // claude-haiku-4-5: $1 input, $0.1 cache reads, $1.25 cache writes, $5 output per million.
    expectedCost:
      (2100 * 1 +
        1024 * 0.1 +
        100 * 1.25 +
        160 * 5 +
        (60 * 1 + 9 * 5) +
        (1500 * 1 + 1200 * 0.1 + 11 * 5)) /
      1e6,
    usage: {
      inputTokens: 3224 + 60 + 2700,
      outputTokens: 180,
      cachedInputTokens: 2224,
      cacheWriteInputTokens: 100,
    },
  },
];

for (const c of CASES) {
  describe(`a turn on ${c.model} (real SDK, local fake API)`, () => {
    const fake = new FakeApi(c.api);
    before(() => fake.start());
    after(() => fake.stop());

    /** One turn through the real provider factory against the fake API, in auto mode. */
    async function runTurn(
      text: string,
      options: { tools?: Tool[]; model?: string; apiKey?: string },
    ) {
      const runner = createTurnRunner({
        budgets: DEFAULT_BUDGET_LIMITS,
        defaultModel: options.model ?? c.model,
        scriptPath: undefined,
        log: () => undefined,
        ...(options.tools && { tools: options.tools }),
        providers: {
          [c.api]: { apiKey: options.apiKey ?? `key-${c.api}`, baseUrl: fake.baseURL },
        },
      });
      const sink = new RecordingSink();
      const result = await runner.run({
        sessionId: SESSION_ID,
        turnId: TURN_ID,
        text,
        workspaceRoot: '/tmp',
        model: undefined,
        script: undefined,
        permissionMode: () => 'auto',
        history: [],
        events: sink,
        signal: new AbortController().signal,
      });
      return { result, sink };
    }

    it('parallel tool calls and a subtask: tree, text and cost/summary', async () => {
      fake.respond((request) => ({ fixture: route(c.api, request) }));
      const { result, sink } = await runTurn(
        'Read the notes, list the workspace and summarize the notes.',
        { tools },
      );
      assert.equal(result.error, undefined);
      assert.equal(result.stopReason, 'end_turn');
      assert.match(result.text, /All three calls are done\.$/);
      assert.equal(fake.requests.length, 3, 'root, subtask, root again');

      const nodes = result.tree.nodes as TreeNode[];
      const root = nodes.find((n) => n.kind === 'turn')!;
      const children = nodes.filter((n) => n.parentId === root.id);
      assert.deepEqual(
        children.map((n) => [n.kind, n.name, n.status]),
        [
          ['tool', 'read_file', 'done'],
          ['tool', 'list_dir', 'done'],
          ['subtask', 'run_subtask', 'done'],
        ],
      );
      const subtask = children[2]!;
      assert.equal(subtask['title'], 'Summarize');
      assert.equal(subtask['resultPreview'], 'The notes say: ship it.');
      assert.equal(children[0]!['resultPreview'], 'contents of notes.md');
      // The subtask's own model call is accounted on its node.
      assert.ok((subtask['usage'] as { inputTokens: number }).inputTokens > 0);

      const [summary] = sink.of(Methods.CostSummary);
      const byModel = summary!['byModel'] as { provider: string; model: string; calls: number }[];
      assert.deepEqual(
        byModel.map((m) => [m.provider, m.model, m.calls]),
        [[c.api, c.model.slice(c.api.length + 1), 3]],
      );
      assert.deepEqual(summary!['usage'], c.usage);
      assert.ok(Math.abs((summary!['cost'] as number) - c.expectedCost) < 1e-12);
      assert.equal(summary!['currency'], 'USD');

      // The follow-up call carries the tool results answering the calls by id.
      const followUp = fake.requests.find((r) => route(c.api, r) === 'final_answer.sse')!;
      const ids = JSON.stringify(followUp.body['messages']);
      for (const id of c.api === 'openai'
        ? ['call_A0read', 'call_B1list', 'call_C2sub']
        : ['toolu_01ReadB', 'toolu_02ListC', 'toolu_03SubD'])
        assert.ok(ids.includes(id), id);
      if (c.api === 'anthropic') assert.ok(ids.includes('"type":"thinking"'), 'thinking sent back');
    });

    it('a reply cut off at the output-token limit ends the turn max_tokens; its text is kept, its tool call never runs', async () => {
      fake.respond(() => ({ fixture: c.api === 'openai' ? 'length.sse' : 'max_tokens.sse' }));
      const requestsBefore = fake.requests.length;
      const ran: string[] = [];
      const spy = defineTool({
        name: 'read_file',
        description: 'Reads a file',
        input: z.object({ path: z.string() }),
        category: 'read',
        execute: ({ path }) => {
          ran.push(path);
          return 'contents';
        },
      }) as Tool;
      const { result } = await runTurn('Write out the release notes in full.', {
        tools: [spy],
      });
      assert.equal(result.stopReason, 'max_tokens');
      assert.equal(result.error, undefined);
      assert.equal(result.text, 'The release notes, in full: first,');
      assert.deepEqual(ran, [], 'the cut-off tool call did not run');
      assert.equal(fake.requests.length - requestsBefore, 1, 'no further model call');
      const nodes = result.tree.nodes as TreeNode[];
      assert.deepEqual(
        nodes.map((n) => [n.kind, n.status]),
        [['turn', 'done']],
      );
    });

    it('unknown model: tokens counted, cost null', async () => {
      fake.respond(() => ({ fixture: 'text.sse' }));
      const model = `${c.api}:some-future-model`;
      const { sink } = await runTurn('hi', { model, apiKey: 'k' });
      const [summary] = sink.of(Methods.CostSummary);
      assert.equal(summary!['cost'], null);
      assert.ok((summary!['usage'] as { inputTokens: number }).inputTokens > 0);
    });
  });
}
