/**
 * Test harness for the agent: drives createTurnRunner(...).run(request) with a
 * recording event sink that validates every emitted params object with its
 * descriptor's zod schema (the session's sessionId/seq stamped on, as on the wire).
 */
import { performance } from 'node:perf_hooks';
import {
  Script,
  type NotificationDescriptor,
  type PermissionMode,
  type Usage,
} from '@arbor/protocol';
import { z } from 'zod';
import type { NamedAgentProfile } from '../../src/agents/agentProfile.js';
import { DEFAULT_BUDGET_LIMITS, type BudgetLimits } from '../../src/agent/budgetLimits.js';
import { createTurnRunner, type AgentOptions } from '../../src/agent/index.js';
import type {
  HistoryMessage,
  SessionEventParams,
  SessionEventSink,
  TurnResult,
} from '../../src/agent/turnRunner.js';
import type { Provider, ProviderEvent, ProviderRequest } from '../../src/providers/provider.js';
import { ScriptedProvider, type ScriptedProviderOptions } from '../../src/providers/scripted.js';
import { defineTool, type Tool } from '../../src/tools/tool.js';

export const SESSION_ID = 'session-1';
export const TURN_ID = 'turn-1';

export interface RecordedEvent {
  method: string;
  params: Record<string, unknown>;
  at: number;
}

export class RecordingSink implements SessionEventSink {
  readonly events: RecordedEvent[] = [];
  private seq = 0;
  private readonly listeners: ((event: RecordedEvent) => void)[] = [];

  emit<D extends NotificationDescriptor>(descriptor: D, params: SessionEventParams<D>): void {
    const stamped = { ...params, sessionId: SESSION_ID, seq: ++this.seq };
    // Throws on any params the protocol would reject.
    const parsed = descriptor.params.parse(stamped) as Record<string, unknown>;
    const event = { method: descriptor.method, params: parsed, at: performance.now() };
    this.events.push(event);
    for (const listener of this.listeners) listener(event);
  }

  on(listener: (event: RecordedEvent) => void): void {
    this.listeners.push(listener);
  }

  of(descriptor: NotificationDescriptor): Record<string, unknown>[] {
    return this.events.filter((e) => e.method === descriptor.method).map((e) => e.params);
  }

  /** All chat/chunk text of a node, concatenated. */
  textOf(nodeId: string): string {
    return this.events
      .filter((e) => e.method === 'chat/chunk' && e.params.nodeId === nodeId)
      .map((e) => e.params.text as string)
      .join('');
  }
}

/**
 * Wraps a provider and records every request it gets. `posingAs`: the wrapper
 * acts as that real provider (its id, no fixed model, no own price), so usage
 * is accounted under the model string's model and priced by AgentOptions.pricing.
 */
export class RecordingProvider implements Provider {
  readonly requests: ProviderRequest[] = [];
  constructor(
    private readonly inner: Provider,
    private readonly posingAs?: string,
  ) {}
  get id(): string {
    return this.posingAs ?? this.inner.id;
  }
  get capabilities(): Provider['capabilities'] {
    return this.inner.capabilities;
  }
  get fixedModel(): string | undefined {
    return this.posingAs === undefined ? this.inner.fixedModel : undefined;
  }
  price(model: string, usage: Usage): number | null {
    if (this.posingAs !== undefined) return null;
    return this.inner.price?.(model, usage) ?? null;
  }
  stream(request: ProviderRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    this.requests.push(structuredClone(request));
    return this.inner.stream(request, signal);
  }
}

export interface TurnOptions {
  budgets?: Partial<BudgetLimits>;
  tools?: Tool[];
  history?: HistoryMessage[];
  signal?: AbortSignal;
  provider?: Provider;
  capabilities?: ScriptedProviderOptions['capabilities'];
  onEvent?: (event: RecordedEvent, sink: RecordingSink) => void;
  text?: string;
  /** The session's model (default scripted:test). */
  model?: string;
  agent?: Partial<AgentOptions>;
  permissionMode?: PermissionMode;
  /** The session's agent profile (TurnRequest.agent). */
  profile?: NamedAgentProfile;
  /** The session's workspace (default /tmp). */
  workspaceRoot?: string;
}

export interface TurnRun {
  result: TurnResult;
  sink: RecordingSink;
  provider: RecordingProvider;
  elapsedMs: number;
}

/** A script from its conversations, validated like a script file. */
export function script(conversations: z.input<typeof Script>['conversations']): Script {
  return Script.parse({ version: 1, conversations });
}

export async function runTurn(turnScript: Script, options: TurnOptions = {}): Promise<TurnRun> {
  const provider = new RecordingProvider(
    options.provider ??
      new ScriptedProvider(
        turnScript,
        options.capabilities ? { capabilities: options.capabilities } : {},
      ),
  );
  const runner = createTurnRunner({
    budgets: { ...DEFAULT_BUDGET_LIMITS, ...options.budgets },
    defaultModel: undefined,
    scriptPath: undefined,
    log: () => undefined,
    tools: options.tools ?? [],
    provider,
    ...options.agent,
  });
  const sink = new RecordingSink();
  if (options.onEvent) sink.on((event) => options.onEvent?.(event, sink));
  const started = performance.now();
  const result = await runner.run({
    sessionId: SESSION_ID,
    turnId: TURN_ID,
    text: options.text ?? 'hello',
    workspaceRoot: options.workspaceRoot ?? '/tmp',
    model: options.model ?? 'scripted:test',
    script: undefined,
    permissionMode: () => options.permissionMode ?? 'auto',
    ...(options.profile && { agent: options.profile }),
    history: options.history ?? [],
    events: sink,
    signal: options.signal ?? new AbortController().signal,
  });
  return { result, sink, provider, elapsedMs: performance.now() - started };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // unref: a sleep that ignores its abort must not keep the test process alive.
    const timer = setTimeout(resolve, ms).unref();
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    });
  });
}

export interface Span {
  name: string;
  id: string;
  start: number;
  end: number;
}

/** Test-only tools: sleep (optionally locked or exclusive), throw, big output. */
export function sleepTool(
  spans: Span[],
  options: { name?: string; lock?: string; parallelSafe?: boolean; ignoreAbort?: boolean } = {},
): Tool {
  const name = options.name ?? 'sleep';
  return defineTool({
    name,
    description: 'Sleeps for ms milliseconds.',
    input: z.object({ ms: z.number().int().nonnegative(), id: z.string().default('') }),
    category: 'read',
    parallelSafe: options.parallelSafe ?? true,
    ...(options.lock ? { lock: options.lock } : {}),
    execute: async ({ ms, id }, { signal }) => {
      const start = performance.now();
      await sleep(ms, options.ignoreAbort ? undefined : signal);
      spans.push({ name, id, start, end: performance.now() });
      return `slept ${ms} ms`;
    },
  }) as Tool;
}

export const throwTool = defineTool({
  name: 'explode',
  description: 'Always throws.',
  input: z.object({}),
  category: 'read',
  execute: () => {
    throw new Error('kaboom');
  },
}) as Tool;

export const bigTool = defineTool({
  name: 'big',
  description: 'Returns a large result.',
  input: z.object({ bytes: z.number().int().positive() }),
  category: 'read',
  execute: ({ bytes }) => 'x'.repeat(bytes),
}) as Tool;

export type TreeNode = {
  id: string;
  parentId: string | null;
  kind: string;
  name: string;
  status: string;
  depth: number;
} & Record<string, unknown>;

export function nodes(run: TurnRun): TreeNode[] {
  return run.result.tree.nodes as TreeNode[];
}

export function toolMessages(
  request: ProviderRequest,
): { name: string; content: string; isError?: boolean }[] {
  return request.messages.filter((m) => m.role === 'tool') as {
    name: string;
    content: string;
    isError?: boolean;
  }[];
}

/** Most spans running at the same instant. */
export function maxConcurrency(spans: readonly Span[]): number {
  const points = spans.flatMap((s) => [
    { at: s.start, delta: 1 },
    { at: s.end, delta: -1 },
  ]);
  // Ends before starts at the same instant.
  points.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let current = 0;
  let max = 0;
  for (const point of points) {
    current += point.delta;
    max = Math.max(max, current);
  }
  return max;
}
