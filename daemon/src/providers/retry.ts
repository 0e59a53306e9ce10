/**
 * Retries of one model call: bounded, with exponential backoff and jitter,
 * cancellable at every wait. A call is retried only while nothing of it has
 * reached the agent (no text, no tool call), so a retry never duplicates
 * streamed output.
 *
 * The SDKs' own retries are switched off (maxRetries 0): their backoff sleep
 * ignores the abort signal and they obey any `retry-after`, however long. Here
 * a `retry-after` longer than `maxDelayMs` ends the call with a clear error.
 */
import { ProviderError, type ProviderEvent } from './provider.js';

export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  maxRetries: number;
  /** First backoff; doubles per retry (default 500 ms). */
  initialDelayMs: number;
  /** Longest wait, computed or asked for by the server (default 30 s). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
};

/** A failed attempt, classified. `message` is safe to show: it never carries a key. */
export interface Failure {
  retryable: boolean;
  message: string;
  /** Server-requested wait (retry-after-ms / retry-after). */
  retryAfterMs?: number;
}

export function backoffMs(policy: RetryPolicy, retry: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const exponential = Math.min(policy.initialDelayMs * 2 ** retry, policy.maxDelayMs);
  return exponential * (1 - Math.random() * 0.25);
}

export function cancellableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface RetryHooks {
  policy: RetryPolicy;
  classify(error: unknown): Failure;
  onRetry?(failure: Failure, retry: number, delayMs: number): void;
}

/** Runs `attempt` until it completes, retrying retryable failures that happened before any output. */
export async function* withRetries(
  attempt: () => AsyncIterable<ProviderEvent>,
  signal: AbortSignal,
  hooks: RetryHooks,
): AsyncGenerator<ProviderEvent> {
  for (let retry = 0; ; retry++) {
    let produced = false;
    try {
      for await (const event of attempt()) {
        if (event.type === 'text' || event.type === 'tool_call') produced = true;
        yield event;
      }
      // The SDKs end a stream quietly when it is aborted.
      signal.throwIfAborted();
      return;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof ProviderError) throw error;
      const failure = hooks.classify(error);
      const delay = backoffMs(hooks.policy, retry, failure.retryAfterMs);
      const canRetry =
        failure.retryable &&
        !produced &&
        retry < hooks.policy.maxRetries &&
        delay <= hooks.policy.maxDelayMs;
      if (!canRetry) {
        const suffix =
          failure.retryable && retry > 0 ? ` (gave up after ${retry + 1} attempts)` : '';
        throw new ProviderError(`${failure.message}${suffix}`);
      }
      hooks.onRetry?.(failure, retry + 1, delay);
      await cancellableDelay(delay, signal);
    }
  }
}
