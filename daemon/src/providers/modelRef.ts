/**
 * Model strings: `provider:model`, e.g. `openai:gpt-4.1`, `anthropic:claude-sonnet-4`,
 * `scripted:demo`, and `local:<name>@<base url>` for OpenAI-compatible local servers.
 */
export const PROVIDER_IDS = ['openai', 'anthropic', 'local', 'scripted'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export interface ModelRef {
  provider: ProviderId;
  model: string;
  /** Only for `local`: the server's OpenAI-compatible base URL. */
  baseUrl?: string;
}

/** A malformed model string or an unknown provider (protocol error InvalidModel). */
export class ModelRefError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelRefError';
  }
}

function isProviderId(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value);
}

export function parseModelRef(text: string): ModelRef {
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1) {
    throw new ModelRefError(`model "${text}" is not of the form provider:model`);
  }
  const provider = text.slice(0, colon);
  const rest = text.slice(colon + 1);
  if (!isProviderId(provider)) {
    throw new ModelRefError(`unknown provider "${provider}" (known: ${PROVIDER_IDS.join(', ')})`);
  }
  if (provider !== 'local') return { provider, model: rest };

  const at = rest.indexOf('@');
  if (at <= 0 || at === rest.length - 1) {
    throw new ModelRefError(`local model "${text}" is not of the form local:<name>@<base url>`);
  }
  const baseUrl = rest.slice(at + 1);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ModelRefError(`local model "${text}": "${baseUrl}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelRefError(`local model "${text}": the base URL must be http or https`);
  }
  return { provider, model: rest.slice(0, at), baseUrl };
}

export function formatModelRef(ref: ModelRef): string {
  return ref.provider === 'local'
    ? `local:${ref.model}@${ref.baseUrl ?? ''}`
    : `${ref.provider}:${ref.model}`;
}
