/**
 * Helpers of the context-engine tests: a measure of what a request costs,
 * computed here from the request itself (the engine's own count is what is
 * under test), tools with large results, and a session driven turn by turn
 * through a real store, committed as the session manager commits it.
 */
import { z } from 'zod';
import { DEFAULT_BUDGET_LIMITS, type BudgetLimits } from '../../../src/agent/budgetLimits.js';
import { createTurnRunner, type AgentOptions } from '../../../src/agent/index.js';
import type { TurnResult, TurnRunner } from '../../../src/agent/turnRunner.js';
import type { Provider, ProviderRequest } from '../../../src/providers/provider.js';
import { openStore, type Store } from '../../../src/store/index.js';
import { defineTool, type Tool } from '../../../src/tools/tool.js';
import { newSession, scratchDir } from '../../store/helpers.js';
import { RecordingSink } from '../harness.js';

/** Four characters a token, plus four a message: the estimate every non-OpenAI family starts from. */
export function requestTokens(request: ProviderRequest): number {
  const quarter = (text: string): number => Math.ceil(text.length / 4);
  let tokens = quarter(request.system);
  for (const tool of request.tools ?? []) tokens += quarter(JSON.stringify(tool));
  for (const message of request.messages) {
    tokens += 4 + quarter(message.content);
    if (message.role === 'assistant' && message.toolCalls?.length)
      tokens += quarter(JSON.stringify(message.toolCalls));
  }
  return tokens;
}

/** Text that differs line by line, so a reduced or paged copy cannot pass for the original. */
export function numberedText(label: string, chars: number): string {
  let text = '';
  for (let line = 0; text.length < chars; line++) text += `${label} line ${line}: some output\n`;
  return text.slice(0, chars);
}

/** `report {n}` returns numberedText(`report n`, chars). */
export function reportTool(chars: number): Tool {
  return defineTool({
    name: 'report',
    description: 'Returns a large report.',
    input: z.object({ n: z.number().int() }),
    category: 'read',
    execute: ({ n }) => numberedText(`report ${n}`, chars),
  }) as Tool;
}

/** A provider wrapper that keeps only what the tests look at: each request's size, and the last request. */
export class MeasuringProvider implements Provider {
  readonly sizes: number[] = [];
  last: ProviderRequest | undefined;
  constructor(private readonly inner: Provider) {}
  get id(): string {
    return this.inner.id;
  }
  get capabilities(): Provider['capabilities'] {
    return this.inner.capabilities;
  }
  get fixedModel(): string | undefined {
    return this.inner.fixedModel;
  }
  stream(request: ProviderRequest, signal: AbortSignal) {
    this.sizes.push(requestTokens(request));
    this.last = structuredClone(request);
    return this.inner.stream(request, signal);
  }
}

/** One session in a real store: each turn is appended, run and committed as the session does it. */
export class StoredSession {
  readonly store: Store;
  readonly sessionId: string;
  private runner: TurnRunner;
  private turns = 0;

  constructor(
    readonly options: {
      provider: Provider;
      tools: Tool[];
      budgets?: Partial<BudgetLimits>;
      agent?: Partial<AgentOptions>;
    },
    dataDir = scratchDir('arbor-context-'),
    sessionId?: string,
  ) {
    this.store = openStore(dataDir);
    this.sessionId = sessionId ?? this.store.createSession(newSession()).sessionId;
    this.runner = this.newRunner();
  }

  get dataDir(): string {
    return this.store.path.slice(0, this.store.path.lastIndexOf('/'));
  }

  /** The same session after a daemon restart: a new store connection and a new runner. */
  reopen(provider: Provider = this.options.provider): StoredSession {
    this.store.close();
    return new StoredSession({ ...this.options, provider }, this.dataDir, this.sessionId);
  }

  async turn(text: string): Promise<TurnResult> {
    const turnId = `turn-${this.sessionId}-${++this.turns}-${Date.now()}`;
    this.store.appendUserMessage(this.sessionId, turnId, text);
    const result = await this.runner.run({
      sessionId: this.sessionId,
      turnId,
      text,
      workspaceRoot: '/tmp',
      model: 'scripted:test',
      script: undefined,
      permissionMode: () => 'auto',
      history: this.store.historyForNextTurn(
        this.sessionId,
        DEFAULT_BUDGET_LIMITS.maxHistoryTokens,
      ),
      events: new RecordingSink(),
      signal: new AbortController().signal,
    });
    this.store.commitTurn({
      turnId,
      stopReason: result.stopReason,
      assistantText: result.text,
      tree: result.tree,
      usage: result.usage,
      byModel: [],
      ...(result.error === undefined ? {} : { error: result.error }),
    });
    return result;
  }

  close(): void {
    this.store.close();
  }

  private newRunner(): TurnRunner {
    return createTurnRunner({
      budgets: { ...DEFAULT_BUDGET_LIMITS, ...this.options.budgets },
      defaultModel: undefined,
      scriptPath: undefined,
      log: () => undefined,
      tools: this.options.tools,
      provider: this.options.provider,
      sessionContext: (sessionId) => this.store.context.of(sessionId),
      ...this.options.agent,
    });
  }
}
