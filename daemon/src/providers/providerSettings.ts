/**
 * Provider settings (config file `providers`, environment) and the factories
 * that turn a model string into a real provider.
 *
 * Keys: `providers.<id>.apiKey` in the config file, else OPENAI_API_KEY /
 * ANTHROPIC_API_KEY (local: ARBOR_LOCAL_API_KEY, optional). Base URLs:
 * `providers.<id>.baseUrl`, else OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else
 * the vendor's. A local model names its server in the model string
 * (`local:<name>@<url>`); credentials in that URL are sent as Basic auth
 * (localCredentials.ts). Keys live only inside the provider objects: they are
 * never logged, never sent to clients, never stored.
 */
import { AnthropicProvider } from './anthropic.js';
import { localServerAccess } from './localCredentials.js';
import type { ModelRef } from './modelRef.js';
import { modelProfile } from './modelCapabilities.js';
import { OpenAIChatProvider } from './openai.js';
import { ProviderError, type Provider } from './provider.js';
import type { ProviderConfig, ProvidersConfig } from './providerConfig.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';

export const DEFAULT_BASE_URLS = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
} as const;

type Log = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

export interface ProviderEnvironment {
  settings?: ProvidersConfig | undefined;
  env?: NodeJS.ProcessEnv;
  log?: Log;
}

function retryPolicy(config: ProviderConfig | undefined): RetryPolicy {
  return {
    ...DEFAULT_RETRY_POLICY,
    ...(config?.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
    ...(config?.retryInitialDelayMs !== undefined
      ? { initialDelayMs: config.retryInitialDelayMs }
      : {}),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim().length > 0 ? value.trim() : undefined;
}

/** Factories for `openai`, `anthropic` and `local`, reading keys and URLs when a turn resolves its model. */
export function createProviderFactories({
  settings,
  env = process.env,
  log,
}: ProviderEnvironment = {}): Record<
  'openai' | 'anthropic' | 'local',
  (ref: ModelRef) => Provider
> {
  return {
    openai: (ref) => {
      const config = settings?.openai;
      const apiKey = nonEmpty(config?.apiKey) ?? nonEmpty(env['OPENAI_API_KEY']);
      if (apiKey === undefined)
        throw new ProviderError(
          'openai: no API key: set OPENAI_API_KEY or providers.openai.apiKey in the config file',
        );
      return new OpenAIChatProvider({
        id: 'openai',
        model: ref.model,
        baseURL:
          nonEmpty(config?.baseUrl) ?? nonEmpty(env['OPENAI_BASE_URL']) ?? DEFAULT_BASE_URLS.openai,
        apiKey,
        keyHint: 'OPENAI_API_KEY or providers.openai.apiKey',
        profile: modelProfile('openai', ref.model, config?.models),
        retry: retryPolicy(config),
        ...(log ? { log } : {}),
        ...(config?.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
      });
    },
    anthropic: (ref) => {
      const config = settings?.anthropic;
      const apiKey = nonEmpty(config?.apiKey) ?? nonEmpty(env['ANTHROPIC_API_KEY']);
      if (apiKey === undefined)
        throw new ProviderError(
          'anthropic: no API key: set ANTHROPIC_API_KEY or providers.anthropic.apiKey in the config file',
        );
      return new AnthropicProvider({
        model: ref.model,
        baseURL:
          nonEmpty(config?.baseUrl) ??
          nonEmpty(env['ANTHROPIC_BASE_URL']) ??
          DEFAULT_BASE_URLS.anthropic,
        apiKey,
        keyHint: 'ANTHROPIC_API_KEY or providers.anthropic.apiKey',
        profile: modelProfile('anthropic', ref.model, config?.models),
        retry: retryPolicy(config),
        ...(log ? { log } : {}),
        ...(config?.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
      });
    },
    local: (ref) => {
      const config = settings?.local;
      if (ref.baseUrl === undefined)
        throw new ProviderError(`local model "${ref.model}" needs a base URL: local:<name>@<url>`);
      // URL credentials become a header: they never sit in a URL that errors quote.
      const access = localServerAccess(ref.baseUrl);
      return new OpenAIChatProvider({
        id: 'local',
        model: ref.model,
        baseURL: access.baseURL,
        ...(access.headers ? { headers: access.headers } : {}),
        apiKey: nonEmpty(config?.apiKey) ?? nonEmpty(env['ARBOR_LOCAL_API_KEY']),
        keyHint: 'ARBOR_LOCAL_API_KEY or providers.local.apiKey',
        profile: modelProfile('local', ref.model, config?.models),
        retry: retryPolicy(config),
        ...(log ? { log } : {}),
        ...(config?.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
      });
    },
  };
}
