/**
 * UsageAccountant: one per turn, shared through the recursion. Every LLM call
 * of every loop is recorded under its provider and model; the turn's
 * `cost/summary` is built from it.
 */
import type { ContextUse, CostSummaryParams, ModelCost, Usage } from '@arbor/protocol';
import type { Provider } from '../providers/provider.js';

/** Price of one call in USD; null when the model's price is unknown. */
export type Pricing = (provider: string, model: string, usage: Usage) => number | null;

export const UNKNOWN_PRICES: Pricing = () => null;

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0 };
}

/** The optional counters: absent on both sides stays absent (unknown is not zero). */
const OPTIONAL_COUNTERS = [
  'cachedInputTokens',
  'cacheWriteInputTokens',
  'reasoningTokens',
] as const satisfies readonly (keyof Usage)[];

export function addUsage(a: Usage | undefined, b: Usage): Usage {
  const sum: Usage = {
    inputTokens: (a?.inputTokens ?? 0) + b.inputTokens,
    outputTokens: (a?.outputTokens ?? 0) + b.outputTokens,
  };
  for (const counter of OPTIONAL_COUNTERS) {
    if (a?.[counter] !== undefined || b[counter] !== undefined)
      sum[counter] = (a?.[counter] ?? 0) + (b[counter] ?? 0);
  }
  return sum;
}

function addCost(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

export class UsageAccountant {
  private readonly byModel = new Map<string, ModelCost>();
  private total: Usage = emptyUsage();
  private totalCost: number | null = 0;
  private context: ContextUse | undefined;

  constructor(private readonly pricing: Pricing = UNKNOWN_PRICES) {}

  /**
   * Records one LLM call under the provider and model that served it; returns
   * its cost (null: unknown): the provider's own price when it knows it
   * (scripted: 0), else the daemon's price list.
   */
  record(served: Pick<Provider, 'id' | 'price'>, model: string, usage: Usage): number | null {
    const provider = served.id;
    const cost = served.price?.(model, usage) ?? this.pricing(provider, model, usage);
    const key = `${provider}\u0000${model}`;
    const entry = this.byModel.get(key) ?? {
      provider,
      model,
      calls: 0,
      usage: emptyUsage(),
      cost: 0,
    };
    entry.calls += 1;
    entry.usage = addUsage(entry.usage, usage);
    entry.cost = addCost(entry.cost, cost);
    this.byModel.set(key, entry);
    this.total = addUsage(this.total, usage);
    this.totalCost = addCost(this.totalCost, cost);
    return cost;
  }

  get usage(): Usage {
    return { ...this.total };
  }

  /** After each model call of the root loop: the conversation's size against the model's window. */
  recordContext(usage: Usage, window: number): void {
    this.context = { tokens: usage.inputTokens + usage.outputTokens, window };
  }

  summary(turnId: string): Omit<CostSummaryParams, 'sessionId' | 'seq'> {
    const byModel = [...this.byModel.values()].map((entry) => ({
      ...entry,
      usage: { ...entry.usage },
    }));
    return {
      turnId,
      usage: this.usage,
      cost: byModel.length === 0 ? 0 : this.totalCost,
      currency: 'USD',
      byModel,
      ...(this.context === undefined ? {} : { context: { ...this.context } }),
    };
  }
}
