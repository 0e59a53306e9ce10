/**
 * Provider resolution: a model string (or the daemon's scripted provider) to a
 * Provider. Real providers (openai, anthropic, local) plug in here through
 * factories (providerSettings.ts); their SDKs load on the first model call.
 */
import type { Script } from '@arbor/protocol';
import { parseModelRef, type ModelRef } from './modelRef.js';
import { ProviderError, type Provider } from './provider.js';
import { SCRIPTED_MODEL, ScriptedProvider } from './scripted.js';

export * from './provider.js';
export * from './modelRef.js';
export * from './scripted.js';
export { createProviderFactories, type ProviderEnvironment } from './providerSettings.js';
export { ProvidersConfig, ProviderConfig, ModelOverride } from './providerConfig.js';
export { costOf, priceOf, PRICES } from './pricing.js';
export { modelProfile } from './modelCapabilities.js';

/** Builds a provider for a parsed model string; absent: that provider is not available. */
export type ProviderFactory = (ref: ModelRef) => Provider;

export interface ResolvedProvider {
  provider: Provider;
  /** The model name to send and to account usage under. */
  model: string;
}

export interface ProviderResolution {
  /** `_arbor/testing/setScript` for this session, or the daemon's `--script`. */
  script: Script | undefined;
  /** Session model or the daemon's default. */
  model: string | undefined;
  factories: Partial<Record<ModelRef['provider'], ProviderFactory>>;
}

export function resolveProvider({
  script,
  model,
  factories,
}: ProviderResolution): ResolvedProvider {
  if (script !== undefined) {
    // The scripted provider answers every turn that has a script, whatever model the session names.
    return { provider: new ScriptedProvider(script), model: SCRIPTED_MODEL };
  }
  const ref = model === undefined ? undefined : parseModelRef(model);
  if (ref === undefined)
    throw new ProviderError(
      'no model configured: give the session a model (provider:model) or start the daemon with a default model',
    );
  const factory = factories[ref.provider];
  if (ref.provider === 'scripted' && factory === undefined) {
    throw new ProviderError(
      'the scripted provider needs a script (--script <file> or _arbor/testing/setScript)',
    );
  }
  if (factory === undefined)
    throw new ProviderError(`provider "${ref.provider}" is not available in this build`);
  return { provider: factory(ref), model: ref.model };
}
