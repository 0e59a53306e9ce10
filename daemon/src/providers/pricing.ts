/**
 * Prices per model, in USD per million tokens: input, cached input (prompt
 * cache reads), cache writes where the vendor bills them apart, output. A
 * model's cost is null when it is not listed here.
 *
 * Source: the vendors' public price pages, https://openai.com/api/pricing and
 * https://www.anthropic.com/pricing (standard tier, no batch discount),
 * transcribed 2025-11. Prices change: update this table, not the code.
 *
 * Usage convention (as the providers report it): `inputTokens` counts every
 * input token, cache reads and writes included; `cachedInputTokens` is the
 * part read from the cache, `cacheWriteInputTokens` the part written to it.
 * Anthropic bills cache writes at 1.25x input (5-minute cache); OpenAI does not
 * bill them apart, so a model without `cacheWrite` prices them as input.
 */
import type { Usage } from '@arbor/protocol';

export interface ModelPrice {
  input: number;
  cachedInput: number;
  /** Absent: cache writes cost what input costs. */
  cacheWrite?: number;
  output: number;
}

/** Provider id -> model name -> price. Names match exactly or with a date / `-latest` suffix. */
export const PRICES: Readonly<Record<string, Readonly<Record<string, ModelPrice>>>> = {
  openai: {
    'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
    'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
    'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
    'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
    'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
    'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
    'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
    'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
    o3: { input: 2, cachedInput: 0.5, output: 8 },
    'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
    'o3-mini': { input: 1.1, cachedInput: 0.55, output: 4.4 },
  },
  anthropic: {
    'claude-opus-4-5': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25 },
    'claude-opus-4-1': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
    'claude-opus-4': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
    'claude-sonnet-4-5': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
    'claude-sonnet-4': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
    'claude-3-7-sonnet': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
    'claude-haiku-4-5': { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 },
    'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, cacheWrite: 1, output: 4 },
  },
};

/** `gpt-4.1` matches `gpt-4.1`, `gpt-4.1-2025-04-14`; never `gpt-4.1-mini` (a different model). */
export function matchesModelName(listed: string, model: string): boolean {
  if (model === listed) return true;
  if (!model.startsWith(listed)) return false;
  return /^(-\d{4}-?\d{2}-?\d{2}|-latest)$/.test(model.slice(listed.length));
}

/** The entry of `table` whose name matches `model`, if any. */
export function lookupModel<T>(
  table: Readonly<Record<string, T>> | undefined,
  model: string,
): T | undefined {
  if (table === undefined) return undefined;
  if (Object.hasOwn(table, model)) return table[model];
  for (const [name, entry] of Object.entries(table)) {
    if (matchesModelName(name, model)) return entry;
  }
  return undefined;
}

export function priceOf(provider: string, model: string): ModelPrice | undefined {
  return lookupModel(PRICES[provider], model);
}

/** Cost of one call in USD; null when the model's price is unknown. */
export function costOf(provider: string, model: string, usage: Usage): number | null {
  const price = priceOf(provider, model);
  if (price === undefined) return null;
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const written = Math.min(usage.cacheWriteInputTokens ?? 0, usage.inputTokens - cached);
  const cost =
    (usage.inputTokens - cached - written) * price.input +
    cached * price.cachedInput +
    written * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output;
  return cost / 1_000_000;
}
