/**
 * Prices per model, in USD per million tokens: input, cached input (prompt
 * cache reads), output. A model's cost is null when it is not listed here.
 *
 * Source: the vendors' public price pages, https://openai.com/api/pricing and
 * https://www.anthropic.com/pricing (standard tier, no batch discount),
 * transcribed 2025-11. Prices change: update this table, not the code.
 *
 * Usage convention (as the providers report it): `inputTokens` counts every
 * input token, cached ones included; `cachedInputTokens` is the cached part.
 * Anthropic cache writes are billed at 1.25x input; they are counted here at
 * the plain input price (a small under-estimate, documented).
 */
import type { Usage } from '@arbor/protocol';

export interface ModelPrice {
  input: number;
  cachedInput: number;
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
    'claude-opus-4-5': { input: 5, cachedInput: 0.5, output: 25 },
    'claude-opus-4-1': { input: 15, cachedInput: 1.5, output: 75 },
    'claude-opus-4': { input: 15, cachedInput: 1.5, output: 75 },
    'claude-sonnet-4-5': { input: 3, cachedInput: 0.3, output: 15 },
    'claude-sonnet-4': { input: 3, cachedInput: 0.3, output: 15 },
    'claude-3-7-sonnet': { input: 3, cachedInput: 0.3, output: 15 },
    'claude-haiku-4-5': { input: 1, cachedInput: 0.1, output: 5 },
    'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, output: 4 },
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
  const cost =
    (usage.inputTokens - cached) * price.input +
    cached * price.cachedInput +
    usage.outputTokens * price.output;
  return cost / 1_000_000;
}
