/**
 * The openai and local providers, on the real `openai` SDK, against a local
 * fake of the Chat Completions API replaying recorded SSE streams.
 */
import assert from 'node:assert/strict';
import {
  ProviderError,
  type ProviderEvent,
  type ProviderRequest,
} from '../../src/providers/provider.js';
import { createProviderFactories } from '../../src/providers/providerSettings.js';
import { parseModelRef } from '../../src/providers/modelRef.js';
import { FakeApi, collect } from './fakeApi.js';

const KEY = 'sk-canary-openai-0123456789abcdef1234';

const REQUEST: ProviderRequest = {
  model: 'gpt-4.1',
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
const of = <T extends ProviderEvent['type']>(events: ProviderEvent[], type: T) =>
  events.filter((e) => e.type === type) as Extract<ProviderEvent, { type: T }>[];

describe('openai provider (real SDK, local fake API)', () => {
  const fake = new FakeApi('openai');
  const logs: string[] = [];
  before(() => fake.start());
  after(() => fake.stop());
  beforeEach(() => {
    fake.requests.length = 0;
    logs.length = 0;
  });

  function provider(model = 'gpt-4.1', extra: { maxRetries?: number } = {}) {
    const factories = createProviderFactories({
      settings: {
        openai: { apiKey: KEY, baseUrl: fake.baseURL, retryInitialDelayMs: 5, ...extra },
      },
      env: {},
      log: (level, message) => logs.push(`${level}: ${message}`),
    });
    return factories.openai(parseModelRef(`openai:${model}`));
  }

  it('plain text: deltas, usage, end_turn; the request is a streaming Chat Completion', async () => {
    fake.replyWith('text.sse');
    const { events, error } = await collect(
      provider().stream(REQUEST, new AbortController().signal),
    );
    assert.equal(error, undefined);
    assert.equal(text(events), 'Hello, world!');
    assert.ok(of(events, 'text').length >= 3, 'streamed in pieces');
    assert.deepEqual(of(events, 'usage')[0]!.usage, {
      inputTokens: 12,
      outputTokens: 3,
      cachedInputTokens: 0,
      reasoningTokens: 0,
    });
    assert.deepEqual(events.at(-1), { type: 'stop', reason: 'end_turn' });
    const [request] = fake.requests;
    assert.equal(request!.path, '/v1/chat/completions');
    assert.equal(request!.headers.authorization, `Bearer ${KEY}`);
    assert.equal(request!.body['stream'], true);
    assert.deepEqual(request!.body['stream_options'], { include_usage: true });
    assert.deepEqual((request!.body['messages'] as unknown[])[0], {
      role: 'system',
      content: 'You are terse.',
    });
    assert.equal((request!.body['tools'] as { type: string }[])[0]!.type, 'function');
  });

  it('one tool call assembled from argument fragments; stop tool_use', async () => {
    fake.replyWith('tool_call.sse');
    const { events } = await collect(provider().stream(REQUEST, new AbortController().signal));
    assert.deepEqual(calls(events), [
      { id: 'call_Q1aX9', name: 'read_file', arguments: { path: 'a.txt' } },
    ]);
    assert.deepEqual(events.at(-1), { type: 'stop', reason: 'tool_use' });
  });

  it('parallel tool calls interleaved by index stay apart; empty arguments are {}; cached and reasoning tokens', async () => {
    fake.replyWith('parallel_tool_calls.sse');
    const { events } = await collect(provider().stream(REQUEST, new AbortController().signal));
    assert.deepEqual(calls(events), [
      { id: 'call_A0read', name: 'read_file', arguments: { path: 'notes.md' } },
      { id: 'call_B1list', name: 'list_dir', arguments: {} },
      {
        id: 'call_C2sub',
        name: 'run_subtask',
        arguments: { title: 'Summarize', instructions: 'Summarize the notes' },
      },
    ]);
    assert.deepEqual(of(events, 'usage')[0]!.usage, {
      inputTokens: 2000,
      outputTokens: 150,
      cachedInputTokens: 1024,
      reasoningTokens: 64,
    });
  });

  it('finish_reason "length" with a half-written tool call: stop max_tokens, not tool_use; cached tokens', async () => {
    fake.replyWith('length.sse');
    const { events, error } = await collect(
      provider().stream(REQUEST, new AbortController().signal),
    );
    assert.equal(error, undefined);
    assert.deepEqual(events.at(-1), { type: 'stop', reason: 'max_tokens' });
    assert.deepEqual(of(events, 'usage')[0]!.usage, {
      inputTokens: 2340,
      outputTokens: 64,
      cachedInputTokens: 2048,
      reasoningTokens: 0,
    });
  });

  it('tool calls without ids or index (local servers) are all kept, with unique ids; "stop" with calls is tool_use', async () => {
    fake.replyWith('tool_calls_without_ids.sse');
    const local = createProviderFactories({ env: {} }).local(
      parseModelRef(`local:qwen2.5-coder@${fake.baseURL}`),
    );
    const { events, error } = await collect(local.stream(REQUEST, new AbortController().signal));
    assert.equal(error, undefined);
    const got = calls(events);
    assert.deepEqual(
      got.map((c) => c.arguments),
      [{ path: 'a.txt' }, { path: 'b.txt' }],
    );
    assert.equal(new Set(got.map((c) => c.id)).size, 2);
    assert.ok(got.every((c) => c.id.length > 0));
    assert.deepEqual(events.at(-1), { type: 'stop', reason: 'tool_use' });
    assert.equal(local.id, 'local');
    assert.equal(local.price?.('qwen2.5-coder', { inputTokens: 1, outputTokens: 1 }), null);
    // No key configured: the local server gets no real credential.
    assert.equal(fake.requests[0]!.headers.authorization, 'Bearer no-key');
  });

  it('local: a per-model override switches tools off', () => {
    const factories = createProviderFactories({
      settings: { local: { models: { 'tiny-llm': { tools: false, contextWindow: 4096 } } } },
      env: {},
    });
    const local = factories.local(parseModelRef('local:tiny-llm@http://127.0.0.1:1/v1'));
    assert.deepEqual(local.capabilities, {
      tools: false,
      parallelToolCalls: true,
      contextWindow: 4096,
      // Half the window: its 4096-token answer limit would leave no room for any input.
      outputReserve: 2048,
    });
    const other = factories.local(parseModelRef('local:qwen@http://127.0.0.1:1/v1'));
    assert.equal(other.capabilities.tools, true, 'agent mode stays on for local models by default');
  });

  it('an error event mid-stream after text: a ProviderError, not retried (text already streamed)', async () => {
    fake.replyWith('midstream_error.sse', 'text.sse');
    const { events, error } = await collect(
      provider().stream(REQUEST, new AbortController().signal),
    );
    assert.equal(text(events), 'Partial ');
    assert.ok(error instanceof ProviderError);
    assert.match(error.message, /server had an error/);
    assert.equal(fake.requests.length, 1);
  });

  it('a malformed SSE line (comment, unknown field) is skipped; the stream completes', async () => {
    fake.replyWith('malformed_line.sse');
    const { events, error } = await collect(
      provider().stream(REQUEST, new AbortController().signal),
    );
    assert.equal(error, undefined);
    assert.equal(text(events), 'Still fine.');
  });

  it('invalid JSON in an event: a clear ProviderError', async () => {
    fake.replyWith('malformed_json.sse');
    const { error } = await collect(provider().stream(REQUEST, new AbortController().signal));
    assert.ok(error instanceof ProviderError);
    assert.match(error.message, /malformed response stream/);
  });

  it('429 then success: retried after retry-after-ms, the retry is logged', async () => {
    fake.replyWith('rate_limited.json', 'text.sse');
    const { events, error } = await collect(
      provider().stream(REQUEST, new AbortController().signal),
    );
    assert.equal(error, undefined);
    assert.equal(text(events), 'Hello, world!');
    assert.equal(fake.requests.length, 2);
    assert.match(logs.join('\n'), /rate limited \(429\).*retry 1\/3/);
  });

  it('5xx and connection resets are retried; retries are bounded', async () => {
    fake.replyWith('overloaded.json', { fixture: 'text.sse', resetAfterBytes: 40 }, 'text.sse');
    const ok = await collect(provider().stream(REQUEST, new AbortController().signal));
    assert.equal(ok.error, undefined);
    assert.equal(fake.requests.length, 3);

    fake.requests.length = 0;
    fake.replyWith('overloaded.json');
    const { error } = await collect(
      provider('gpt-4.1', { maxRetries: 2 }).stream(REQUEST, new AbortController().signal),
    );
    assert.ok(error instanceof ProviderError);
    assert.match(error.message, /server error \(503\).*gave up after 3 attempts/);
    assert.equal(fake.requests.length, 3);
  });

  it('401: a clear error naming where the key comes from, never the key', async () => {
    fake.replyWith('unauthorized.json');
    const { error } = await collect(provider().stream(REQUEST, new AbortController().signal));
    assert.ok(error instanceof ProviderError);
    assert.match(error.message, /API key was rejected \(401/);
    assert.match(error.message, /OPENAI_API_KEY/);
    assert.doesNotMatch(error.message, /canar|1234|\*\*\*/);
    assert.equal(fake.requests.length, 1, 'not retried');
  });

  it('400: the server explanation, not retried', async () => {
    fake.replyWith('bad_request.json');
    const { error } = await collect(provider().stream(REQUEST, new AbortController().signal));
    assert.match(error!.message, /request rejected \(400\): Invalid schema for function/);
    assert.equal(fake.requests.length, 1);
  });

  it('abort stops the stream and a pending retry wait promptly', async () => {
    fake.replyWith({ fixture: 'rate_limited.json' });
    const slow = createProviderFactories({
      settings: { openai: { apiKey: KEY, baseUrl: fake.baseURL } },
      env: {},
    }).openai(parseModelRef('openai:gpt-4.1'));
    const controller = new AbortController();
    const started = Date.now();
    // retry-after-ms 20 then exponential backoff: abort lands during a wait or a request.
    setTimeout(() => controller.abort(new Error('stop')), 50);
    const { error } = await collect(slow.stream(REQUEST, controller.signal));
    assert.equal(error?.message, 'stop');
    assert.ok(Date.now() - started < 1000);
  });

  it('history: assistant tool calls and tool results go back in OpenAI form', async () => {
    fake.replyWith('text.sse');
    await collect(
      provider().stream(
        {
          ...REQUEST,
          messages: [
            { role: 'user', content: 'read a' },
            {
              role: 'assistant',
              content: '',
              toolCalls: [{ id: 'call_1', name: 'read_file', arguments: {} }],
            },
            { role: 'tool', toolCallId: 'call_1', name: 'read_file', content: 'A', isError: false },
          ],
        },
        new AbortController().signal,
      ),
    );
    const messages = fake.requests[0]!.body['messages'] as Record<string, unknown>[];
    assert.deepEqual(messages.slice(2), [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'A' },
    ]);
  });

  it("a tool result's images follow the run of tool messages as one user message of image parts", async () => {
    fake.replyWith('text.sse');
    const image = {
      mimeType: 'image/png',
      data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    };
    await collect(
      provider().stream(
        {
          ...REQUEST,
          messages: [
            { role: 'user', content: 'look' },
            {
              role: 'assistant',
              content: '',
              toolCalls: [
                { id: 'call_1', name: 'screenshot', arguments: {} },
                { id: 'call_2', name: 'read_file', arguments: {} },
              ],
            },
            {
              role: 'tool',
              toolCallId: 'call_1',
              name: 'screenshot',
              content: 'shot',
              images: [image],
            },
            { role: 'tool', toolCallId: 'call_2', name: 'read_file', content: 'B' },
          ],
        },
        new AbortController().signal,
      ),
    );
    const messages = fake.requests[0]!.body['messages'] as Record<string, unknown>[];
    assert.deepEqual(messages.slice(3), [
      { role: 'tool', tool_call_id: 'call_1', content: 'shot' },
      { role: 'tool', tool_call_id: 'call_2', content: 'B' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Images returned by screenshot (call call_1):' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${image.data}` } },
        ],
      },
    ]);
  });

  it('no key: a clear error before any request', () => {
    assert.throws(
      () => createProviderFactories({ env: {} }).openai(parseModelRef('openai:gpt-4.1')),
      /OPENAI_API_KEY/,
    );
  });
});
