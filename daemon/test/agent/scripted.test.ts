import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Methods, type Script } from '@arbor/protocol';
import { DEFAULT_BUDGET_LIMITS } from '../../src/agent/budgetLimits.js';
import { createTurnRunner } from '../../src/agent/index.js';
import { ModelRefError, parseModelRef } from '../../src/providers/modelRef.js';
import type { ProviderEvent, ProviderRequest } from '../../src/providers/provider.js';
import {
  ScriptError,
  ScriptedProvider,
  findConversationKey,
  loadScriptFile,
  splitText,
} from '../../src/providers/scripted.js';
import { RecordingSink, TURN_ID, nodes, runTurn, script } from './harness.js';

const DEMO = join(dirname(fileURLToPath(import.meta.url)), '../../../examples/demo.script.json');

async function collect(
  provider: ScriptedProvider,
  request: ProviderRequest,
  signal = new AbortController().signal,
): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.stream(request, signal)) events.push(event);
  return events;
}

const ask = (content: string, extra: Partial<ProviderRequest> = {}): ProviderRequest => ({
  model: 'm',
  system: '',
  messages: [{ role: 'user', content }],
  tools: [{ name: 't', description: '', inputSchema: {} }],
  ...extra,
});

describe('scripted provider', () => {
  const keyed: Script = script({ 'fix the bug': [], bug: [], 'the bug in parser': [], '*': [] });

  it('keys a loop by its first user message: exact, else the longest contained key, else *', () => {
    assert.equal(findConversationKey(keyed, 'fix the bug'), 'fix the bug');
    assert.equal(
      findConversationKey(keyed, 'please fix the bug in parser.ts'),
      'the bug in parser',
    );
    assert.equal(findConversationKey(keyed, 'a bug'), 'bug');
    assert.equal(findConversationKey(keyed, 'something else'), '*');
    assert.equal(findConversationKey(script({ a: [] }), 'zzz'), undefined);
    // equally long keys: the smallest in code-unit order, whatever the key order
    assert.equal(findConversationKey(script({ bc: [], ab: [] }), 'abc'), 'ab');
  });

  it('streams text in several chunks, then tool calls, usage and the stop reason', async () => {
    const provider = new ScriptedProvider(
      script({
        '*': [
          {
            text: 'This answer is long enough to be split up.',
            toolCalls: [{ name: 't', arguments: { a: 1 } }],
            usage: { inputTokens: 3, outputTokens: 4 },
          },
        ],
      }),
    );
    const events = await collect(provider, ask('hi'));
    const texts = events.filter((e) => e.type === 'text');
    assert.ok(texts.length >= 2);
    assert.equal(
      texts.map((e) => (e.type === 'text' ? e.text : '')).join(''),
      'This answer is long enough to be split up.',
    );
    assert.deepEqual(events.slice(texts.length), [
      { type: 'tool_call', call: { id: 'call_0_0', name: 't', arguments: { a: 1 } } },
      { type: 'usage', usage: { inputTokens: 3, outputTokens: 4 } },
      { type: 'stop', reason: 'tool_use' },
    ]);
  });

  it('streams at least two deltas and never splits a code point', () => {
    assert.deepEqual([...splitText('ab')], ['a', 'b']);
    const emoji = '😀😃😄😁';
    const pieces = [...splitText(emoji)];
    assert.ok(pieces.length >= 2);
    assert.equal(pieces.join(''), emoji);
    assert.ok(
      pieces.every((p) => !/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(p)),
      'whole code points',
    );
  });

  it('cuts at the last space of each piece, and a long text without spaces into equal pieces', () => {
    const words = 'lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor';
    const pieces = [...splitText(words)];
    assert.equal(pieces.join(''), words);
    assert.ok(pieces.length >= 3);
    for (const piece of pieces.slice(0, -1)) assert.ok(piece.length <= 24, piece);
    for (const piece of pieces.slice(1))
      assert.ok(piece.startsWith(' '), `cut at a space: ${piece}`);
    const long = 'x'.repeat(100_000);
    const parts = [...splitText(long)];
    assert.equal(parts.join(''), long);
    assert.ok(parts.slice(0, -1).every((p) => p.length === 24));
  });

  it('consumes each loop’s own list by counting that loop’s assistant messages', async () => {
    const provider = new ScriptedProvider(script({ '*': [{ text: 'first' }, { text: 'second' }] }));
    const again = await collect(
      provider,
      ask('q', {
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'first' },
          { role: 'tool', toolCallId: 'x', name: 't', content: 'r' },
        ],
      }),
    );
    const text = (events: ProviderEvent[]) =>
      events.map((e) => (e.type === 'text' ? e.text : '')).join('');
    assert.equal(text(again), 'second');
    // a fresh loop with the same key starts at the beginning again
    assert.equal(text(await collect(provider, ask('q'))), 'first');
  });

  it('reports {"error"} replies and exhausted lists as provider errors', async () => {
    const provider = new ScriptedProvider(script({ a: [{ error: 'rate limited' }], b: [] }));
    await assert.rejects(collect(provider, ask('a')), /rate limited/);
    await assert.rejects(collect(provider, ask('b')), /ran out of replies/);
    await assert.rejects(collect(provider, ask('c')), /no conversation matches/);
  });

  it('honours delayMs, abortably', async () => {
    const provider = new ScriptedProvider(script({ '*': [{ delayMs: 10_000, text: 'late' }] }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 20);
    const started = Date.now();
    await assert.rejects(collect(provider, ask('x'), controller.signal), /stop/);
    assert.ok(Date.now() - started < 500);
  });

  it('validates script files and explains what is wrong', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbor-script-'));
    const notJson = join(dir, 'a.json');
    writeFileSync(notJson, '{ nope');
    assert.throws(
      () => loadScriptFile(notJson),
      (e: unknown) => e instanceof ScriptError && /not valid JSON/.test(e.message),
    );
    const badShape = join(dir, 'b.json');
    writeFileSync(
      badShape,
      JSON.stringify({ version: 2, conversations: { '*': [{ delayMs: -1 }] } }),
    );
    assert.throws(
      () => loadScriptFile(badShape),
      (e: unknown) => e instanceof ScriptError && /version/.test(e.message),
    );
    assert.throws(() => loadScriptFile(join(dir, 'missing.json')), /cannot read script file/);
    assert.throws(
      () =>
        createTurnRunner({
          budgets: DEFAULT_BUDGET_LIMITS,
          defaultModel: undefined,
          scriptPath: badShape,
          log: () => undefined,
        }),
      ScriptError,
    );
  });

  it('runs the demo script from examples/ end to end through scriptPath', async () => {
    const runner = createTurnRunner({
      budgets: DEFAULT_BUDGET_LIMITS,
      defaultModel: undefined,
      scriptPath: DEMO,
      log: () => undefined,
    });
    const sink = new RecordingSink();
    const result = await runner.run({
      sessionId: 's',
      turnId: TURN_ID,
      text: 'Review my change',
      workspaceRoot: '/tmp',
      model: undefined,
      script: undefined,
      permissionMode: () => 'default',
      history: [],
      events: sink,
      signal: new AbortController().signal,
    });
    assert.equal(result.stopReason, 'end_turn');
    assert.match(result.text, /Summary:/);
    const subtasks = result.tree.nodes.filter((n) => n.kind === 'subtask');
    assert.equal(subtasks.length, 3);
    assert.ok(subtasks.every((n) => n.status === 'done'));
    assert.equal(result.tree.nodes.find((n) => n.name === 'no_such_tool')?.status, 'error');
    assert.equal(result.tree.nodes.find((n) => n.name === 'memory_read')?.status, 'error');
    assert.equal(result.tree.nodes.filter((n) => n.name === 'finish_subtask').length, 2);
    assert.equal(sink.of(Methods.CostSummary).length, 1);
  });

  it('serves turns whose request carries a script; other models resolve through provider factories', async () => {
    const runner = createTurnRunner({
      budgets: DEFAULT_BUDGET_LIMITS,
      defaultModel: undefined,
      scriptPath: undefined,
      log: () => undefined,
      // No factories: the build's real providers are left out to test resolution alone.
      providerFactories: {},
    });
    const turn = (model: string | undefined, turnScript: Script | undefined) =>
      runner.run({
        sessionId: 's',
        turnId: TURN_ID,
        text: 'hi',
        workspaceRoot: '/tmp',
        model,
        script: turnScript,
        permissionMode: () => 'default',
        history: [],
        events: new RecordingSink(),
        signal: new AbortController().signal,
      });
    const scripted = await turn('openai:gpt-4.1', script({ '*': [{ text: 'scripted answer' }] }));
    assert.deepEqual([scripted.stopReason, scripted.text], ['end_turn', 'scripted answer']);
    const noFactory = await turn('openai:gpt-4.1', undefined);
    assert.deepEqual(
      [noFactory.stopReason, noFactory.error],
      ['error', 'provider "openai" is not available in this build'],
    );
    const malformed = await turn('gpt-4.1', undefined);
    assert.equal(malformed.stopReason, 'error');
    assert.match(malformed.error ?? '', /provider:model/);
  });
});

describe('model strings', () => {
  it('parses provider:model and local:name@url', () => {
    assert.deepEqual(parseModelRef('openai:gpt-4.1'), { provider: 'openai', model: 'gpt-4.1' });
    assert.deepEqual(parseModelRef('anthropic:claude-sonnet-4:thinking'), {
      provider: 'anthropic',
      model: 'claude-sonnet-4:thinking',
    });
    assert.deepEqual(parseModelRef('local:qwen2.5-coder@http://127.0.0.1:11434/v1'), {
      provider: 'local',
      model: 'qwen2.5-coder',
      baseUrl: 'http://127.0.0.1:11434/v1',
    });
  });

  it('rejects malformed strings and unknown providers', () => {
    for (const bad of [
      'gpt-4',
      'openai:',
      ':x',
      'acme:model',
      'local:qwen',
      'local:qwen@notaurl',
      'local:q@ftp://x',
    ]) {
      assert.throws(() => parseModelRef(bad), ModelRefError, bad);
    }
  });
});

describe('turn with a tree snapshot', () => {
  it('keeps the turn node first', async () => {
    const run = await runTurn(script({ '*': [{ text: 'x' }] }));
    assert.equal(nodes(run)[0]?.id, TURN_ID);
  });
});
