/**
 * The config file's `providers` section (zod only: the daemon validates its
 * config at startup without loading any provider code).
 */
import { z } from 'zod';

export const ModelOverride = z
  .object({
    tools: z.boolean().optional().describe('The model can call tools (false: plain chat)'),
    parallelToolCalls: z.boolean().optional().describe('Several tool calls per turn'),
    contextWindow: z.number().int().positive().optional().describe('Context window in tokens'),
    images: z
      .boolean()
      .optional()
      .describe('The model reads images returned by tools (false: a note says one was left out)'),
    maxOutputTokens: z.number().int().positive().optional().describe('Answer token limit'),
    outputReserve: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe('Tokens of the context window kept free for the answer (default: maxOutputTokens)'),
  })
  .strict();

export const ProviderConfig = z
  .object({
    apiKey: z
      .string()
      .min(1)
      .optional()
      .describe('API key (prefer the environment variable; never logged or stored)'),
    baseUrl: z.url().optional().describe('API base URL (proxies, gateways, test fakes)'),
    maxRetries: z
      .number()
      .int()
      .min(0)
      .max(10)
      .optional()
      .describe('Retries on 429 / 5xx / connection reset (default 3)'),
    retryInitialDelayMs: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('First retry backoff in ms; doubles per retry (default 500)'),
    timeoutMs: z.number().int().positive().optional().describe('Per-request timeout in ms'),
    models: z
      .record(z.string(), ModelOverride)
      .optional()
      .describe('Per-model capability overrides, by model name'),
  })
  .strict();
export type ProviderConfig = z.infer<typeof ProviderConfig>;

export const ProvidersConfig = z
  .object({
    openai: ProviderConfig.optional(),
    anthropic: ProviderConfig.optional(),
    local: ProviderConfig.optional().describe('Every local:<name>@<url> model'),
  })
  .strict();
export type ProvidersConfig = z.infer<typeof ProvidersConfig>;
