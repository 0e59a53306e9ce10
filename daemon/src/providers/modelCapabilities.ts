/**
 * What each known model can do: tools, parallel tool calls, context window,
 * whether it reads images, and (Anthropic, where the request must name it) the output token limit.
 * Unknown models get the provider's defaults; the config file can override any
 * field per model (`providers.<id>.models.<name>`), e.g. to switch tools off
 * for a local model that cannot call them.
 */
import type { ProviderCapabilities } from './provider.js';
import { lookupModel } from './pricing.js';

export interface ModelProfile extends ProviderCapabilities {
  /** Largest answer requested per call (Anthropic's required `max_tokens`). */
  maxOutputTokens: number;
}

/**
 * Without an explicit reserve the whole answer limit is kept free: Anthropic
 * rejects a request whose input plus `max_tokens` exceeds the window, and
 * OpenAI's input limits are the window minus the output limit. But never more
 * than half the window: a small local model whose answer limit is as large as
 * its window would otherwise have no room for any input at all.
 */
function outputReserveOf(profile: ModelProfile): number {
  if (profile.outputReserve !== undefined)
    return Math.min(profile.outputReserve, profile.contextWindow);
  return Math.min(profile.maxOutputTokens, Math.floor(profile.contextWindow / 2));
}

export type ModelOverrides = Partial<ModelProfile>;

const DEFAULTS: Record<string, ModelProfile> = {
  openai: {
    tools: true,
    parallelToolCalls: true,
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    images: true,
  },
  // Every Claude model since Claude 3 reads images.
  anthropic: {
    tools: true,
    parallelToolCalls: true,
    contextWindow: 200_000,
    maxOutputTokens: 8_192,
    images: true,
  },
  // Local servers: agent mode stays on (tools are offered); a model that cannot
  // call tools is switched off per model in the config. Images only where the
  // config says the model reads them.
  local: {
    tools: true,
    parallelToolCalls: true,
    contextWindow: 32_768,
    maxOutputTokens: 4_096,
    images: false,
  },
};

const KNOWN: Record<string, Record<string, Partial<ModelProfile>>> = {
  openai: {
    'gpt-5': { contextWindow: 400_000, maxOutputTokens: 128_000 },
    'gpt-5-mini': { contextWindow: 400_000, maxOutputTokens: 128_000 },
    'gpt-5-nano': { contextWindow: 400_000, maxOutputTokens: 128_000 },
    'gpt-4.1': { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
    'gpt-4.1-mini': { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
    'gpt-4.1-nano': { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
    'gpt-4o': { contextWindow: 128_000 },
    'gpt-4o-mini': { contextWindow: 128_000 },
    o3: { contextWindow: 200_000, maxOutputTokens: 100_000 },
    'o4-mini': { contextWindow: 200_000, maxOutputTokens: 100_000 },
    'o3-mini': { contextWindow: 200_000, maxOutputTokens: 100_000, images: false },
  },
  anthropic: {
    'claude-opus-4-5': { maxOutputTokens: 32_000 },
    'claude-opus-4-1': { maxOutputTokens: 32_000 },
    'claude-opus-4': { maxOutputTokens: 32_000 },
    'claude-sonnet-4-5': { maxOutputTokens: 32_000 },
    'claude-sonnet-4': { maxOutputTokens: 32_000 },
    'claude-3-7-sonnet': { maxOutputTokens: 32_000 },
    'claude-haiku-4-5': { maxOutputTokens: 32_000 },
    'claude-3-5-haiku': { maxOutputTokens: 8_192 },
  },
};

/** Defaults, then the table, then the config's per-model overrides. */
export function modelProfile(
  provider: string,
  model: string,
  overrides?: Readonly<Record<string, ModelOverrides>>,
): ModelProfile {
  const base = DEFAULTS[provider] ?? DEFAULTS['local']!;
  return {
    ...base,
    ...lookupModel(KNOWN[provider], model),
    ...(overrides ? lookupModel(overrides, model) : undefined),
  };
}

export function capabilitiesOf(profile: ModelProfile): ProviderCapabilities {
  return {
    tools: profile.tools,
    parallelToolCalls: profile.parallelToolCalls,
    contextWindow: profile.contextWindow,
    outputReserve: outputReserveOf(profile),
  };
}
