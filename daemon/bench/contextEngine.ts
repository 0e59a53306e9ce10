/**
 * Context engine benchmarks (not a test; prints numbers):
 * `node --import tsx bench/contextEngine.ts`, or contextEngineBenchmark() from bench/run.ts.
 * - assembly time per model call in a 1,000-message session, against serialising the same
 *   request once (what any provider adapter does per call), measured in the same run;
 * - tokens sent per turn over a 300-turn session with large tool results, against
 *   sending the whole history.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Script } from '@arbor/protocol';
import { DEFAULT_BUDGET_LIMITS } from '../src/agent/budgetLimits.js';
import { MemoryArtifactStore } from '../src/agent/context/artifacts.js';
import { ContextEngine } from '../src/agent/context/contextEngine.js';
import { DEFAULT_CONTEXT_SETTINGS } from '../src/agent/context/contextSettings.js';
import { TokenCalibration } from '../src/agent/context/tokenCalibration.js';
import { createTurnRunner } from '../src/agent/index.js';
import type { SessionEventSink } from '../src/agent/turnRunner.js';
import type { Provider, ProviderMessage, ProviderRequest } from '../src/providers/provider.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { openStore } from '../src/store/index.js';
import { defineTool, type Tool } from '../src/tools/tool.js';
import { z } from 'zod';
import { percentile } from './support.js';

const WINDOW = 128_000;
const RESERVE = 16_000;
const RESULT_CHARS = 8_000; // 2,000 tokens a tool result

function output(label: string, chars: number): string {
  let text = '';
  for (let line = 0; text.length < chars; line++)
    text += `${label} line ${line}: value ${line * 7}\n`;
  return text.slice(0, chars);
}

/** A turn's exchange: the question, a tool call, its result, the answer. */
function exchange(i: number): ProviderMessage[] {
  const id = `call_${i}`;
  return [
    { role: 'user', content: `question ${i}: what does module ${i} export?` },
    { role: 'assistant', content: '', toolCalls: [{ id, name: 'report', arguments: { n: i } }] },
    { role: 'tool', toolCallId: id, name: 'report', content: output(`report ${i}`, RESULT_CHARS) },
    { role: 'assistant', content: `Module ${i} exports f${i}, g${i} and h${i}.` },
  ];
}

async function assemblyTime(): Promise<void> {
  const llm = {
    provider: new ScriptedProvider(Script.parse({ version: 1, conversations: {} }), {
      capabilities: { contextWindow: WINDOW, outputReserve: RESERVE },
    }) as Provider,
    model: 'scripted',
  };
  const engine = new ContextEngine({
    settings: DEFAULT_CONTEXT_SETTINGS,
    calibration: new TokenCalibration(),
    artifacts: new MemoryArtifactStore(),
    turnId: 'bench',
  });
  const tools = [
    { name: 'report', description: 'Returns a report.', inputSchema: { type: 'object' } },
  ];
  const messages: ProviderMessage[] = [];
  for (let i = 0; messages.length < 999; i++) messages.push(...exchange(i));
  messages.length = 999;
  // End at a final answer: an assistant message without tool calls.
  for (
    let last = messages.at(-1);
    last?.role !== 'assistant' || last.toolCalls;
    last = messages.at(-1)
  )
    messages.pop();
  let prunable = messages.length;
  messages.push({ role: 'user', content: 'the running turn' });

  const assembly: number[] = [];
  const serialise: number[] = [];
  let sent = 0;
  for (let call = 0; call < 300; call++) {
    const started = performance.now();
    const request = await engine.assemble({
      llm,
      system: 'You are Arbor, a coding agent.',
      tools,
      messages,
      prunable,
      historyTokenLimit: DEFAULT_BUDGET_LIMITS.maxHistoryTokens,
      budgetLeft: { llmCalls: 60, toolCalls: 200, seconds: 180 },
    });
    assembly.push(performance.now() - started);
    // As the loop does: dropped turns stay dropped.
    messages.splice(0, request.dropped);
    prunable -= request.dropped;
    sent = request.messages.length;
    const before = performance.now();
    JSON.stringify({ system: 'You are Arbor, a coding agent.', tools, messages: request.messages });
    serialise.push(performance.now() - before);
    // The model calls a tool; its result joins the running turn.
    const id = `running_${call}`;
    messages.push(
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id, name: 'report', arguments: { n: call } }],
      },
      { role: 'tool', toolCallId: id, name: 'report', content: output(`running ${call}`, 2_000) },
    );
  }
  const p50 = percentile(assembly.slice(1), 0.5);
  const baseline = percentile(serialise.slice(1), 0.5);
  console.log(
    `context assembly, 1,000-message session: first call ${assembly[0]!.toFixed(2)} ms (counts every message), ` +
      `then p50 ${p50.toFixed(3)} ms, p95 ${percentile(assembly.slice(1), 0.95).toFixed(3)} ms ` +
      `(${sent} messages sent of ${messages.length}); JSON.stringify of the request p50 ${baseline.toFixed(3)} ms, ` +
      `ratio ${(p50 / baseline).toFixed(2)} — target p50 < 5 ms: ${p50 < 5 ? 'OK' : 'OVER TARGET'}`,
  );
}

/** What a request costs at four characters a token (the estimate the scripted provider is counted with). */
function tokensOf(request: ProviderRequest): number {
  let chars = request.system.length + JSON.stringify(request.tools ?? []).length;
  for (const message of request.messages) {
    chars += message.content.length + 16; // role and framing
    if (message.role === 'assistant' && message.toolCalls)
      chars += JSON.stringify(message.toolCalls).length;
  }
  return Math.ceil(chars / 4);
}

async function tokensPerTurn(turns = 300): Promise<void> {
  const conversations: Record<string, unknown[]> = {};
  for (let i = 1; i <= turns; i++) {
    conversations[`question ${i}`] = [
      { toolCalls: [{ name: 'report', arguments: { n: i } }] },
      { text: `answer ${i}` },
    ];
  }
  const scripted = new ScriptedProvider(Script.parse({ version: 1, conversations }), {
    capabilities: { contextWindow: WINDOW, outputReserve: RESERVE },
  });
  let sent = 0;
  let whole = 0;
  let largest = 0;
  /** Every earlier turn as it happened, every result in full: what a loop without the engine sends. */
  const fullHistory: ProviderMessage[] = [];
  let running: ProviderMessage[] = [];
  const provider: Provider = {
    id: scripted.id,
    capabilities: scripted.capabilities,
    fixedModel: scripted.fixedModel,
    stream(request, signal) {
      const tokens = tokensOf(request);
      sent += tokens;
      largest = Math.max(largest, tokens);
      // The running turn starts at the last user message; the engine sent it whole.
      const start = request.messages.findLastIndex((message) => message.role === 'user');
      running = request.messages.slice(start);
      whole += tokensOf({ ...request, messages: [...fullHistory, ...running] });
      return scripted.stream(request, signal);
    },
  };
  const report: Tool = defineTool({
    name: 'report',
    description: 'Returns a report.',
    input: z.object({ n: z.number().int() }),
    category: 'read',
    execute: ({ n }) => output(`report ${n}`, RESULT_CHARS),
  }) as Tool;
  const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-context-'));
  const store = openStore(dir);
  try {
    const { sessionId } = store.createSession({
      workspaceRoot: dir,
      permissionMode: 'auto',
      chatContext: { kind: 'thread' },
    });
    const runner = createTurnRunner({
      budgets: DEFAULT_BUDGET_LIMITS,
      defaultModel: undefined,
      scriptPath: undefined,
      log: () => undefined,
      tools: [report],
      provider,
      sessionContext: (id) => store.context.of(id),
    });
    const events: SessionEventSink = { emit: () => undefined };
    for (let i = 1; i <= turns; i++) {
      const turnId = `turn-${i}`;
      store.appendUserMessage(sessionId, turnId, `question ${i}`);
      const result = await runner.run({
        sessionId,
        turnId,
        text: `question ${i}`,
        workspaceRoot: dir,
        model: undefined,
        script: undefined,
        permissionMode: () => 'auto',
        history: [],
        events,
        signal: new AbortController().signal,
      });
      store.commitTurn({
        turnId,
        stopReason: result.stopReason,
        assistantText: result.text,
        tree: result.tree,
        usage: result.usage,
        byModel: [],
      });
      if (result.stopReason !== 'end_turn') {
        throw new Error(`turn ${i}: ${result.stopReason} ${result.error ?? ''}`);
      }
      fullHistory.push(...running, { role: 'assistant', content: result.text });
    }
    console.log(
      `context over ${turns} turns (tool results of ${RESULT_CHARS / 4} tokens, window ${WINDOW} - ${RESERVE}): ` +
        `${Math.round(sent / turns)} tokens sent per turn vs ${Math.round(whole / turns)} with the whole history, ` +
        `ratio ${(sent / whole).toFixed(3)}; largest request ${largest} tokens: ${largest <= WINDOW - RESERVE ? 'OK' : 'OVER TARGET'}`,
    );
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function contextEngineBenchmark(): Promise<void> {
  await assemblyTime();
  await tokensPerTurn();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await contextEngineBenchmark();
