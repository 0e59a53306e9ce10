/**
 * The scripted provider: replays a script of model turns, deterministically.
 * Public test tooling (tests, demos, the conformance suite).
 *
 * Each agent loop (root or subtask) is keyed by its first user message: the
 * conversation whose key equals it, else the longest key contained in it, else
 * `*`. A loop consumes its own list in order: the reply index is the number of
 * assistant messages the loop already holds, so the provider keeps no state and
 * parallel subtasks stay deterministic.
 */
import { readFileSync } from 'node:fs';
import { Script, type ScriptedReply } from '@arbor/protocol';
import { z } from 'zod';
import {
  ProviderError,
  type Provider,
  type ProviderCapabilities,
  type ProviderEvent,
  type ProviderMessage,
  type ProviderRequest,
} from './provider.js';

export const SCRIPTED_PROVIDER_ID = 'scripted';
/** Text of a reply is streamed in pieces of at most this many characters. */
const STREAM_PIECE_CHARS = 24;

export const SCRIPTED_CAPABILITIES: ProviderCapabilities = {
  tools: true,
  parallelToolCalls: true,
  contextWindow: 1_000_000,
  images: true,
};

/** A script file that cannot be read, is not JSON, or does not match the format. */
export class ScriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptError';
  }
}

export function parseScript(value: unknown, source = 'script'): Script {
  const parsed = Script.safeParse(value);
  if (!parsed.success) {
    throw new ScriptError(
      `${source} does not match the scripted-provider format:\n${z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data;
}

/** Reads and validates a script file; every failure is a ScriptError saying what is wrong. */
export function loadScriptFile(path: string): Script {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ScriptError(`cannot read script file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ScriptError(`script file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseScript(json, `script file ${path}`);
}

/** Exact key, else the longest key contained in the message, else `*`. */
export function findConversationKey(script: Script, firstUserMessage: string): string | undefined {
  const keys = Object.keys(script.conversations);
  if (keys.includes(firstUserMessage)) return firstUserMessage;
  let best: string | undefined;
  for (const key of keys) {
    if (key === '*' || key.length === 0 || !firstUserMessage.includes(key)) continue;
    // Ties: the smallest key in UTF-16 code-unit order, so the choice never depends on key order.
    if (
      best === undefined ||
      key.length > best.length ||
      (key.length === best.length && key < best)
    )
      best = key;
  }
  if (best !== undefined) return best;
  return keys.includes('*') ? '*' : undefined;
}

/**
 * Where the loop starts: its last user message (tool results are `tool`
 * messages); replies so far: the assistant messages after it, one per model call.
 */
function loopPosition(messages: readonly ProviderMessage[]): {
  firstUserMessage: string;
  replyIndex: number;
} {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== 'user') continue;
    const replyIndex = messages.slice(i + 1).filter((m) => m.role === 'assistant').length;
    return { firstUserMessage: message.content, replyIndex };
  }
  throw new ProviderError('scripted provider: the request has no user message');
}

/**
 * Splits text into deltas at word boundaries, never inside a code point; >= 2
 * pieces for 2+ code points. Lazily, in one pass: a long reply must not cost
 * one long synchronous step before its first delta.
 */
export function* splitText(text: string): Generator<string> {
  const total = codePointCount(text);
  const limit = Math.max(1, Math.min(STREAM_PIECE_CHARS, Math.ceil(total / 2)));
  let start = 0; // UTF-16 index where the current piece starts
  let lastSpace = -1; // UTF-16 index of the piece's last space after its start
  let points = 0; // code points in the current piece
  for (let i = 0; i < text.length;) {
    const width = text.codePointAt(i)! > 0xffff ? 2 : 1;
    if (points === limit) {
      const cut = lastSpace > start ? lastSpace : i;
      yield text.slice(start, cut);
      // The cut-off tail [cut, i) begins the next piece: count it and find its last space.
      start = cut;
      points = 0;
      lastSpace = -1;
      for (let j = cut; j < i; j += text.codePointAt(j)! > 0xffff ? 2 : 1) {
        if (text[j] === ' ' && j > start) lastSpace = j;
        points += 1;
      }
    }
    if (text[i] === ' ' && i > start) lastSpace = i;
    points += 1;
    i += width;
  }
  if (start < text.length) yield text.slice(start);
}

function codePointCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += text.codePointAt(i)! > 0xffff ? 2 : 1) count += 1;
  return count;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface ScriptedProviderOptions {
  capabilities?: Partial<ProviderCapabilities>;
}

/** Usage of scripted calls is accounted under provider `scripted`, model `scripted`, at cost 0. */
export const SCRIPTED_MODEL = 'scripted';

export class ScriptedProvider implements Provider {
  readonly id = SCRIPTED_PROVIDER_ID;
  readonly fixedModel = SCRIPTED_MODEL;
  readonly capabilities: ProviderCapabilities;

  constructor(
    private readonly script: Script,
    options: ScriptedProviderOptions = {},
  ) {
    this.capabilities = { ...SCRIPTED_CAPABILITIES, ...options.capabilities };
  }

  async *stream(request: ProviderRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    const reply = this.replyFor(request);
    if (reply.delayMs) await delay(reply.delayMs, signal);
    signal.throwIfAborted();
    if ('error' in reply) throw new ProviderError(reply.error);

    for (const piece of splitText(reply.text ?? '')) {
      yield { type: 'text', text: piece };
      signal.throwIfAborted();
    }
    // A model offered no tools cannot call any.
    const calls = request.tools && request.tools.length > 0 ? (reply.toolCalls ?? []) : [];
    const { replyIndex } = loopPosition(request.messages);
    for (const [i, call] of calls.entries()) {
      yield {
        type: 'tool_call',
        call: {
          id: call.id ?? `call_${replyIndex}_${i}`,
          name: call.name,
          arguments: call.arguments ?? {},
        },
      };
    }
    yield { type: 'usage', usage: reply.usage ?? { inputTokens: 0, outputTokens: 0 } };
    yield { type: 'stop', reason: reply.stop ?? (calls.length > 0 ? 'tool_use' : 'end_turn') };
  }

  price(): number {
    return 0;
  }

  private replyFor(request: ProviderRequest): ScriptedReply {
    const { firstUserMessage, replyIndex } = loopPosition(request.messages);
    const key = findConversationKey(this.script, firstUserMessage);
    if (key === undefined) {
      throw new ProviderError(
        `scripted provider: no conversation matches "${preview(firstUserMessage)}" and there is no "*"`,
      );
    }
    const reply = this.script.conversations[key]?.[replyIndex];
    if (reply === undefined) {
      throw new ProviderError(
        `scripted provider: conversation "${preview(key)}" has no reply #${replyIndex + 1} (the script ran out of replies)`,
      );
    }
    return reply;
  }
}

function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
