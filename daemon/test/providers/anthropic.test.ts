/**
 * The anthropic provider, on the real `@anthropic-ai/sdk`, against a local
 * fake of the Messages API replaying recorded SSE streams.
 */
import assert from 'node:assert/strict';
import { parseModelRef } from '../../src/providers/modelRef.js';
import {
  ProviderError,
  type ProviderEvent,
  type ProviderRequest,
} from '../../src/providers/provider.js';
import { createProviderFactories } from '../../src/providers/providerSettings.js';
import { FakeApi, collect } from './fakeApi.js';

const KEY = 'sk-ant-canary-anthropic-0123456789abcdef';

const REQUEST: ProviderRequest = {
  model: 'claude-haiku-4-5',
  system: 'You are terse.',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [
    {
      name: 'read_file',
      description: 'Reads a file',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    },
  ],
  parallelToolCalls: true,
};

const text = (events: ProviderEvent[]) =>
  events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
const calls = (events: ProviderEvent[]) =>
  events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []));
const usageOf = (events: ProviderEvent[]) =>
  events.flatMap((e) => (e.type === 'usage' ? [e.usage] : []));

describe('anthropic provider (real SDK, local fake API)', () => {
  const fake = new FakeApi('anthropic');
  const logs: string[] = [];
  before(() => fake.start());
  after(() => fake.stop());
  beforeEach(() => {
    fake.requests.length = 0;
    logs.length = 0;
  });

  function provider(extra: { maxRetries?: number } = {}) {
    return createProviderFactories({
      settings: {
        anthropic: { apiKey: KEY, baseUrl: fake.baseURL, retryInitialDelayMs: 5, ...extra },
      },
      env: {},
      log: (level, message) => logs.push(`${level}: ${message}`),
    }).anthropic(parseModelRef('anthropic:claude-haiku-4-5'));
  }
  const run = (request: ProviderRequest = REQUEST, p = provider()) =>
    collect(p.stream(request, new AbortController().signal));

  it('plain text: deltas (ping ignored), usage from message_start + message_delta, end_turn', async () => {
    fake.replyWith('text.sse');
    const { events, error } = await run();
    assert.equal(error, undefined);
    assert.equal(text(events), 'Hello, world!');
    assert.deepEqual(usageOf(events), [
      { inputTokens: 25, outputTokens: 12, cachedInputTokens: 0, cacheWriteInputTokens: 0 },
    ]);
    assert.deepEqual(events.at(-1), { type: 'stop', reason: 'end_turn' });
    const [request] = fake.requests;
    assert.equal(request!.path, '/v1/messages');
    // This SDK version sends the key as a bearer token; older ones used x-api-key.
    const auth = request!.headers['x-api-key'] ?? request!.headers.authorization;
    assert.match(String(auth), new RegExp(`^(Bearer )?${KEY}$`));
    assert.equal(request!.body['stream'], true);
    assert.equal(request!.body['system'], 'You are terse.');
    assert.equal(typeof request!.body['max_tokens'], 'number');
    assert.deepEqual((request!.body['tools'] as unknown[])[0], {
      name: 'read_file',
      description: 'Reads a file',
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
    });
  });

  it('one tool_use block from input_json_delta fragments; stop tool_use', async () => {
    fake.replyWith('tool_use.sse');
    const { events } = await run();
    assert.equal(text(events), "I'll read it.");
    assert.deepEqual(calls(events), [
      { id: 'toolu_01ReadA', name: 'read_file', arguments: { path: 'a.txt' } },
    ]);
    assert.deepEqual(events.at(-1), { type: 'stop', reason: 'tool_use' });
    assert.equal(
      events.some((e) => e.type === 'native'),
      false,
      'no thinking: nothing native to keep',
    );
  });

  it('stop_reason max_tokens: stop max_tokens; cache reads and writes counted apart and in inputTokens', async () => {
    fake.replyWith('max_tokens.sse');
    const { events, error } = await run();
    assert.equal(error, undefined);
    assert.equal(text(events), 'The release notes, in full: first,');
    assert.deepEqual(events.at(-1), { type: 'stop', reason: 'max_tokens' });
    assert.deepEqual(usageOf(events), [
      {
        inputTokens: 40 + 2000 + 300,
        outputTokens: 64,
        cachedInputTokens: 2000,
        cacheWriteInputTokens: 300,
      },
    ]);
  });

  it('several tool_use blocks, empty input is {}, cache tokens, thinking kept verbatim and sent back', async () => {
    fake.replyWith('parallel_tool_use.sse', 'final_answer.sse');
    const { events } = await run();
    const got = calls(events);
    assert.deepEqual(got, [
      { id: 'toolu_01ReadB', name: 'read_file', arguments: { path: 'notes.md' } },
      { id: 'toolu_02ListC', name: 'list_dir', arguments: {} },
      {
        id: 'toolu_03SubD',
        name: 'run_subtask',
        arguments: { title: 'Summarize', instructions: 'Summarize the notes' },
      },
    ]);
    assert.deepEqual(usageOf(events), [
      {
        inputTokens: 2100 + 1024 + 100,
        outputTokens: 160,
        cachedInputTokens: 1024,
        cacheWriteInputTokens: 100,
      },
    ]);
    const native = events.find((e) => e.type === 'native');
    assert.ok(native && native.type === 'native');
    const content = (native.native.message as { content: Record<string, unknown>[] }).content;
    assert.deepEqual(content[0], {
      type: 'thinking',
      thinking: 'The user wants three things; I can do them in parallel.',
      signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
    });

    // The next call sends the assistant message back verbatim, tool results in one user message.
    await run({
      ...REQUEST,
      messages: [
        { role: 'user', content: 'do three things' },
        { role: 'assistant', content: 'Doing all three.', toolCalls: got, native: native.native },
        ...got.map((call) => ({
          role: 'tool' as const,
          toolCallId: call.id,
          name: call.name,
          content: 'ok',
          isError: call.name === 'list_dir',
        })),
      ],
    });
    const sent = fake.requests[1]!.body['messages'] as { role: string; content: unknown[] }[];
    assert.deepEqual(
      sent.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
    assert.deepEqual(sent[1]!.content, content);
    assert.deepEqual(sent[2]!.content[1], {
      type: 'tool_result',
      tool_use_id: 'toolu_02ListC',
      content: 'ok',
      is_error: true,
    });
  });

  it("a tool result's images go inside its tool_result as base64 image blocks", async () => {
    fake.replyWith('text.sse');
    const data =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    await run({
      ...REQUEST,
      messages: [
        { role: 'user', content: 'look' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'toolu_1', name: 'screenshot', arguments: {} }],
        },
        {
          role: 'tool',
          toolCallId: 'toolu_1',
          name: 'screenshot',
          content: 'shot',
          images: [{ mimeType: 'image/png', data }],
        },
      ],
    });
    const sent = fake.requests[0]!.body['messages'] as { role: string; content: unknown[] }[];
    assert.deepEqual(sent[2], {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [
            { type: 'text', text: 'shot' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
          ],
        },
      ],
    });
  });

  it('parallelToolCalls false: disable_parallel_tool_use', async () => {
    fake.replyWith('text.sse');
    await run({ ...REQUEST, parallelToolCalls: false });
    assert.deepEqual(fake.requests[0]!.body['tool_choice'], {
      type: 'auto',
      disable_parallel_tool_use: true,
    });
  });

  it('an error event after text: a ProviderError, not retried', async () => {
    fake.replyWith('midstream_error.sse', 'text.sse');
    const { events, error } = await run();
    assert.equal(text(events), 'Partial ');
    assert.ok(error instanceof ProviderError);
    assert.match(error.message, /Overloaded/);
    assert.equal(fake.requests.length, 1);
  });

  it('an overloaded error event before any output is retried', async () => {
    fake.replyWith('overloaded_before_output.sse', 'text.sse');
    const { events, error } = await run();
    assert.equal(error, undefined);
    assert.equal(text(events), 'Hello, world!');
    assert.equal(fake.requests.length, 2);
  });

  it('a malformed SSE line is skipped; invalid JSON is a clear error', async () => {
    fake.replyWith('malformed_line.sse');
    const ok = await run();
    assert.equal(ok.error, undefined);
    assert.equal(text(ok.events), 'Still fine.');
    fake.replyWith('malformed_json.sse');
    const bad = await run();
    assert.match(bad.error!.message, /malformed response stream/);
  });

  it('429 (retry-after) then 529 then success: retried, logged', async () => {
    fake.replyWith('rate_limited.json', 'overloaded.json', 'text.sse');
    const { events, error } = await run();
    assert.equal(error, undefined);
    assert.equal(text(events), 'Hello, world!');
    assert.equal(fake.requests.length, 3);
    assert.match(logs.join('\n'), /rate limited \(429\)/);
    assert.match(logs.join('\n'), /server error \(529\)/);
  });

  it('401: a clear error, never the key; not retried', async () => {
    fake.replyWith('unauthorized.json');
    const { error } = await run();
    assert.ok(error instanceof ProviderError);
    assert.match(error.message, /API key was rejected \(401.*ANTHROPIC_API_KEY/);
    assert.ok(!error.message.includes(KEY));
    assert.equal(fake.requests.length, 1);
  });

  it('400: the server explanation', async () => {
    fake.replyWith('bad_request.json');
    const { error } = await run();
    assert.match(error!.message, /request rejected \(400\): messages\.1/);
  });

  it('abort during the stream ends it with the abort reason', async () => {
    fake.replyWith({ fixture: 'rate_limited.json' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 30);
    const { error } = await collect(
      provider({ maxRetries: 10 }).stream(REQUEST, controller.signal),
    );
    assert.equal(error?.message, 'stop');
  });
});
