/**
 * The `openai` provider, and `local` (any OpenAI-compatible server: Ollama,
 * vLLM, LM Studio, llama.cpp), on the official `openai` package: Chat
 * Completions streaming with `stream_options.include_usage`.
 *
 * Streamed tool calls are assembled by `index` from argument fragments, so
 * several parallel calls interleaved in one stream stay apart. Servers that
 * omit `index` or `id` (some local ones) still get every call: a fragment
 * without an index belongs to the call its id names, or starts a new call when
 * it brings a name, or continues the last call; a missing or repeated id is
 * replaced by a unique `call_<n>`.
 *
 * The SDK is imported on the first call, not at startup (cold start).
 */
import type OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { Usage } from '@arbor/protocol';
import { costOf } from './pricing.js';
import type { ModelProfile } from './modelCapabilities.js';
import { capabilitiesOf } from './modelCapabilities.js';
import type {
  Provider,
  ProviderCapabilities,
  ProviderEvent,
  ProviderMessage,
  ProviderRequest,
  ProviderStopReason,
  ProviderToolCall,
} from './provider.js';
import type { RetryPolicy } from './retry.js';
import { parseArguments } from './toolArguments.js';
import { streamWithSdkRetries } from './sdkFailure.js';

type OpenAIModule = typeof import('openai');
let sdk: Promise<OpenAIModule> | undefined;
function loadSdk(): Promise<OpenAIModule> {
  sdk ??= import('openai');
  return sdk;
}

export interface OpenAIChatProviderOptions {
  /** `openai` or `local`: the id in model strings and cost summaries. */
  id: 'openai' | 'local';
  model: string;
  baseURL: string;
  /** Absent for local servers that take none. */
  apiKey: string | undefined;
  /** Where the key is configured, for error messages. */
  keyHint: string;
  /** Sent with every request, over the key's header (a local server's URL credentials). */
  headers?: Record<string, string>;
  profile: ModelProfile;
  retry: RetryPolicy;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  /** Request timeout per attempt, ms (default 10 minutes). */
  timeoutMs?: number;
}

interface PartialCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

/** Assembles streamed tool-call fragments into whole calls, in the order they began. */
export class ToolCallAssembler {
  private readonly calls: PartialCall[] = [];
  private readonly byIndex = new Map<number, PartialCall>();

  add(fragment: ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const {
      index,
      id,
      function: fn,
    } = fragment as {
      index?: number;
      id?: string | null;
      function?: { name?: string | null; arguments?: string | null };
    };
    let call: PartialCall | undefined;
    if (typeof index === 'number') {
      call = this.byIndex.get(index);
    } else if (id) {
      call = this.calls.find((c) => c.id === id);
    } else if (!fn?.name) {
      call = this.calls.at(-1);
    }
    if (call === undefined) {
      call = { id: undefined, name: '', arguments: '' };
      this.calls.push(call);
      if (typeof index === 'number') this.byIndex.set(index, call);
    }
    if (id && call.id === undefined) call.id = id;
    // Names arrive whole in the first fragment; a server that repeats it must not double it.
    if (fn?.name && !call.name.endsWith(fn.name)) call.name += fn.name;
    if (fn?.arguments) call.arguments += fn.arguments;
  }

  get size(): number {
    return this.calls.length;
  }

  /** Whole calls; empty arguments are `{}`; unparseable ones stay a string the tool will reject. */
  finish(): ProviderToolCall[] {
    const seen = new Set<string>();
    return this.calls.map((call, position) => {
      let id = call.id;
      if (!id || seen.has(id)) id = `call_${position}_${Math.random().toString(36).slice(2, 10)}`;
      seen.add(id);
      return { id, name: call.name, arguments: parseArguments(call.arguments) };
    });
  }
}

const FINISH_REASONS: Record<string, ProviderStopReason> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'other',
};

/**
 * Chat Completions tool messages take text only, and must follow their
 * assistant message with nothing between: the images of a run of tool
 * results go in one user message right after the run.
 */
export function toOpenAIMessages(
  system: string,
  messages: readonly ProviderMessage[],
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system.length > 0) out.push({ role: 'system', content: system });
  let images: ChatCompletionContentPart[] = [];
  const flushImages = (): void => {
    if (images.length > 0) out.push({ role: 'user', content: images });
    images = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flushImages();
    switch (message.role) {
      case 'user':
        out.push({ role: 'user', content: message.content });
        break;
      case 'assistant':
        out.push({
          role: 'assistant',
          content: message.content.length > 0 ? message.content : null,
          ...(message.toolCalls && message.toolCalls.length > 0
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: {
                    name: call.name,
                    arguments:
                      typeof call.arguments === 'string'
                        ? call.arguments
                        : JSON.stringify(call.arguments ?? {}),
                  },
                })),
              }
            : {}),
        });
        break;
      case 'tool':
        out.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content });
        if (message.images?.length) {
          images.push({
            type: 'text',
            text: `Images returned by ${message.name} (call ${message.toolCallId}):`,
          });
          for (const image of message.images)
            images.push({
              type: 'image_url',
              image_url: { url: `data:${image.mimeType};base64,${image.data}` },
            });
        }
        break;
    }
  }
  flushImages();
  return out;
}

export function usageFromOpenAI(usage: NonNullable<ChatCompletionChunk['usage']>): Usage {
  const result: Usage = {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
  };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof cached === 'number') result.cachedInputTokens = cached;
  if (typeof reasoning === 'number') result.reasoningTokens = reasoning;
  return result;
}

export class OpenAIChatProvider implements Provider {
  readonly id: 'openai' | 'local';
  readonly capabilities: ProviderCapabilities;
  private client: OpenAI | undefined;

  constructor(private readonly options: OpenAIChatProviderOptions) {
    this.id = options.id;
    this.capabilities = capabilitiesOf(options.profile);
  }

  price(model: string, usage: Usage): number | null {
    return this.id === 'local' ? null : costOf(this.id, model, usage);
  }

  stream(request: ProviderRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    return streamWithSdkRetries({
      provider: this.id,
      packageName: 'openai',
      model: request.model,
      settings: this.options,
      signal,
      attempt: (loaded) => this.attempt(request, signal, loaded),
    });
  }

  private async getClient(): Promise<{ client: OpenAI; module: OpenAIModule }> {
    const module = await loadSdk();
    this.client ??= new module.OpenAI({
      // Local servers without auth ignore the header; the SDK insists on some key.
      apiKey: this.options.apiKey ?? 'no-key',
      baseURL: this.options.baseURL,
      maxRetries: 0, // retried by withRetries: cancellable, bounded waits
      timeout: this.options.timeoutMs ?? 600_000,
      logLevel: 'off',
      organization: null,
      project: null,
      ...(this.options.headers ? { defaultHeaders: this.options.headers } : {}),
    });
    return { client: this.client, module };
  }

  private async *attempt(
    request: ProviderRequest,
    signal: AbortSignal,
    loaded: (module: OpenAIModule) => void,
  ): AsyncGenerator<ProviderEvent> {
    const { client, module } = await this.getClient();
    loaded(module);
    const tools = request.tools ?? [];
    const body: ChatCompletionCreateParamsStreaming = {
      model: request.model,
      messages: toOpenAIMessages(request.system, request.messages),
      stream: true,
      stream_options: { include_usage: true },
      ...(tools.length > 0
        ? {
            tools: tools.map((tool) => ({
              type: 'function' as const,
              function: {
                name: tool.name,
                description: tool.description,
                parameters: tool.inputSchema,
              },
            })),
            ...(request.parallelToolCalls === false ? { parallel_tool_calls: false } : {}),
          }
        : {}),
    };
    const stream = await client.chat.completions.create(body, { signal });

    const assembler = new ToolCallAssembler();
    let finishReason: string | null | undefined;
    let usage: Usage | undefined;
    for await (const chunk of stream) {
      // Usage arrives in the last chunk, with no choices (include_usage).
      if (chunk.usage) usage = usageFromOpenAI(chunk.usage);
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta;
      if (delta?.content) yield { type: 'text', text: delta.content };
      for (const fragment of delta?.tool_calls ?? []) assembler.add(fragment);
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
    signal.throwIfAborted();

    const calls = assembler.finish();
    for (const call of calls) yield { type: 'tool_call', call };
    if (usage) yield { type: 'usage', usage };
    // Some local servers finish a tool-calling turn with "stop": the calls decide, unless the
    // model was cut off ("length"), when its last call may be cut off too.
    const stated = FINISH_REASONS[finishReason ?? 'stop'] ?? 'other';
    const reason = stated === 'max_tokens' || calls.length === 0 ? stated : 'tool_use';
    yield { type: 'stop', reason };
  }
}
