/**
 * Turns an error of the openai or anthropic SDK (or of fetch underneath) into
 * a Failure: retryable or not, with a message that is safe to show and log.
 * Key hygiene: 401/403 messages are written here, never copied from the
 * server (OpenAI echoes part of a wrong key back); every other server message
 * is redacted of the key and of anything shaped like one.
 */
import type { ProviderEvent } from './provider.js';
import { withRetries, type Failure, type RetryPolicy } from './retry.js';

/** The error classes both SDKs export under these names. */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIUserAbortError: abstract new (...args: never[]) => Error;
}

export interface FailureContext {
  /** Provider id as the user knows it: openai, anthropic, local. */
  provider: string;
  model: string;
  baseURL: string;
  /** Where the key comes from, for the 401 hint (`OPENAI_API_KEY or providers.openai.apiKey`). */
  keyHint: string;
  /** The key in use, to redact it from anything shown. */
  apiKey: string | undefined;
}

const KEY_SHAPED = /\b(sk|pk|rk|key)[-_][A-Za-z0-9_*.-]{6,}/gi;

export function redact(text: string, apiKey: string | undefined): string {
  let out = text;
  if (apiKey && apiKey.length >= 4) out = out.split(apiKey).join('[redacted]');
  return out.replace(KEY_SHAPED, '[redacted]').replace(/\S*\*{3,}\S*/g, '[redacted]');
}

function retryAfterMs(headers: unknown): number | undefined {
  if (!headers || typeof (headers as Headers).get !== 'function') return undefined;
  const h = headers as Headers;
  const ms = Number.parseFloat(h.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = h.get('retry-after');
  if (raw === null) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The server's own explanation, from an SDK APIError, redacted. */
function serverMessage(error: Error & { error?: unknown }, apiKey: string | undefined): string {
  const body = error.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const text =
    (typeof body?.error?.message === 'string' && body.error.message) ||
    (typeof body?.message === 'string' && body.message) ||
    error.message;
  return redact(String(text).slice(0, 500), apiKey);
}

function isConnectionReset(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (
      code === 'ECONNRESET' ||
      code === 'EPIPE' ||
      code === 'UND_ERR_SOCKET' ||
      e.message === 'terminated'
    )
      return true;
    e = e.cause;
  }
  return false;
}

export function classifySdkError(
  error: unknown,
  sdk: SdkErrorClasses,
  ctx: FailureContext,
): Failure {
  const who = `${ctx.provider} (${ctx.model})`;
  if (error instanceof sdk.APIConnectionError) {
    return { retryable: true, message: `${who}: cannot reach ${ctx.baseURL}` };
  }
  if (error instanceof sdk.APIError) {
    const apiError = error as Error & { status?: number; headers?: unknown; error?: unknown };
    const status = apiError.status;
    const retryAfter = retryAfterMs(apiError.headers);
    const detail = serverMessage(apiError, ctx.apiKey);
    const withWait = (failure: Failure): Failure =>
      retryAfter === undefined ? failure : { ...failure, retryAfterMs: retryAfter };
    switch (true) {
      case status === 401:
        return {
          retryable: false,
          message: `${who}: the API key was rejected (401 Unauthorized). Check ${ctx.keyHint}.`,
        };
      case status === 403:
        return {
          retryable: false,
          message: `${who}: access denied (403 Forbidden): this key may not use model "${ctx.model}".`,
        };
      case status === 404:
        return {
          retryable: false,
          message: `${who}: not found (404) at ${ctx.baseURL}: ${detail}`,
        };
      case status === 429:
        return withWait({ retryable: true, message: `${who}: rate limited (429): ${detail}` });
      case status === 408 || status === 409 || (status !== undefined && status >= 500):
        return withWait({
          retryable: true,
          message: `${who}: server error (${status}): ${detail}`,
        });
      case status !== undefined:
        return { retryable: false, message: `${who}: request rejected (${status}): ${detail}` };
      default: {
        // An error event inside the stream (HTTP 200): overloaded / rate limits may pass.
        const type = String(
          (apiError.error as { type?: unknown; error?: { type?: unknown } } | undefined)?.error
            ?.type ??
            (apiError.error as { type?: unknown } | undefined)?.type ??
            '',
        );
        const retryable = /overloaded|rate_limit|api_error|server_error|timeout/i.test(
          type + ' ' + detail,
        );
        return { retryable, message: `${who}: error in the response stream: ${detail}` };
      }
    }
  }
  if (error instanceof SyntaxError) {
    return {
      retryable: false,
      message: `${who}: malformed response stream from ${ctx.baseURL} (invalid JSON in an event)`,
    };
  }
  if (isConnectionReset(error)) {
    return { retryable: true, message: `${who}: the connection to ${ctx.baseURL} was reset` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { retryable: false, message: `${who}: ${redact(message, ctx.apiKey)}` };
}

/** What an SDK-backed provider passes to `streamWithSdkRetries`. */
export interface SdkStreamSettings {
  baseURL: string;
  apiKey: string | undefined;
  keyHint: string;
  retry: RetryPolicy;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
}

/**
 * One provider call on an official SDK, retried by withRetries. `attempt`
 * reports the SDK module once it has loaded it, so errors are classified with
 * that SDK's own error classes; a module that fails to load is not retried.
 */
export function streamWithSdkRetries(args: {
  provider: string;
  packageName: string;
  model: string;
  settings: SdkStreamSettings;
  signal: AbortSignal;
  attempt: (loaded: (sdk: SdkErrorClasses) => void) => AsyncIterable<ProviderEvent>;
}): AsyncIterable<ProviderEvent> {
  const { provider, model, settings } = args;
  let classes: SdkErrorClasses | undefined;
  return withRetries(() => args.attempt((sdk) => (classes = sdk)), args.signal, {
    policy: settings.retry,
    classify: (error) =>
      classes
        ? classifySdkError(error, classes, {
            provider,
            model,
            baseURL: settings.baseURL,
            keyHint: settings.keyHint,
            apiKey: settings.apiKey,
          })
        : {
            retryable: false,
            message: `${provider}: the ${args.packageName} package could not be loaded: ${(error as Error).message}`,
          },
    onRetry: (failure, retry, delayMs) =>
      settings.log?.(
        'warn',
        `${failure.message}; retry ${retry}/${settings.retry.maxRetries} in ${Math.round(delayMs)} ms`,
      ),
  });
}
