/**
 * The `anthropic` provider on `@anthropic-ai/sdk`: Messages streaming.
 *
 * Text and tool_use blocks stream as content blocks; tool input arrives as
 * `input_json_delta` fragments per block index. Usage comes from
 * `message_start` (input, cache reads and writes) and `message_delta`
 * (cumulative output). The whole assistant message — thinking and
 * redacted_thinking blocks with their signatures included — is handed to the
 * loop as a native message and sent back verbatim on the next call, as the
 * API requires for tool use with extended thinking.
 *
 * The SDK is imported on the first call, not at startup (cold start).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
} from '@anthropic-ai/sdk/resources/messages';
import type { Usage } from '@arbor/protocol';
import { capabilitiesOf, type ModelProfile } from './modelCapabilities.js';
import { costOf } from './pricing.js';
import type {
  Provider,
  ProviderCapabilities,
  ProviderEvent,
  ProviderMessage,
  ProviderRequest,
  ProviderStopReason,
} from './provider.js';
import type { RetryPolicy } from './retry.js';
import { streamWithSdkRetries } from './sdkFailure.js';
import { parseArguments } from './toolArguments.js';

type AnthropicModule = typeof import('@anthropic-ai/sdk');
let sdk: Promise<AnthropicModule> | undefined;
function loadSdk(): Promise<AnthropicModule> {
  sdk ??= import('@anthropic-ai/sdk');
  return sdk;
}

export const ANTHROPIC_PROVIDER_ID = 'anthropic';

export interface AnthropicProviderOptions {
  model: string;
  baseURL: string;
  apiKey: string;
  keyHint: string;
  profile: ModelProfile;
  retry: RetryPolicy;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  timeoutMs?: number;
}

/** Anthropic's usage counters as the message stream reports them; any may be absent or null. */
type AnthropicUsage = Partial<
  Record<
    'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens',
    number | null
  >
>;

/**
 * Anthropic counts cache reads and writes apart from `input_tokens`; the
 * protocol's `inputTokens` counts every input token, so they are added back.
 * A counter the event leaves out keeps its value from `base` (message_delta
 * usage is cumulative and may omit the input side).
 */
export function usageFromAnthropic(u: AnthropicUsage, base: Usage | undefined): Usage {
  const read = u.cache_read_input_tokens ?? undefined;
  const write = u.cache_creation_input_tokens ?? undefined;
  const input = u.input_tokens ?? undefined;
  const usage: Usage = {
    ...base,
    inputTokens:
      input === undefined ? (base?.inputTokens ?? 0) : input + (read ?? 0) + (write ?? 0),
    outputTokens: u.output_tokens ?? base?.outputTokens ?? 0,
  };
  if (read !== undefined) usage.cachedInputTokens = read;
  if (write !== undefined) usage.cacheWriteInputTokens = write;
  return usage;
}

const STOP_REASONS: Record<string, ProviderStopReason> = {
  end_turn: 'end_turn',
  stop_sequence: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
};

/** Provider messages to Anthropic's alternating user / assistant messages. */
export function toAnthropicMessages(messages: readonly ProviderMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  const append = (role: 'user' | 'assistant', blocks: ContentBlockParam[]): void => {
    const last = out.at(-1);
    // Consecutive messages of one role are merged: tool results then a user message, etc.
    if (last?.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        if (message.content.length > 0) append('user', [{ type: 'text', text: message.content }]);
        break;
      case 'tool':
        append('user', [
          {
            type: 'tool_result',
            tool_use_id: message.toolCallId,
            content: message.images?.length
              ? [
                  { type: 'text', text: message.content },
                  ...message.images.map((image) => ({
                    type: 'image' as const,
                    source: {
                      type: 'base64' as const,
                      // Only MODEL_IMAGE_TYPES reach a provider (mcpResult.ts).
                      media_type: image.mimeType as 'image/png',
                      data: image.data,
                    },
                  })),
                ]
              : message.content,
            ...(message.isError ? { is_error: true } : {}),
          },
        ]);
        break;
      case 'assistant': {
        if (message.native?.provider === ANTHROPIC_PROVIDER_ID) {
          const native = message.native.message as { content?: ContentBlockParam[] };
          if (Array.isArray(native.content) && native.content.length > 0) {
            append('assistant', structuredClone(native.content));
            break;
          }
        }
        const blocks: ContentBlockParam[] = [];
        if (message.content.length > 0) blocks.push({ type: 'text', text: message.content });
        for (const call of message.toolCalls ?? []) {
          blocks.push({
            type: 'tool_use',
            id: call.id,
            name: call.name,
            input:
              call.arguments !== null && typeof call.arguments === 'object' ? call.arguments : {},
          });
        }
        // The API refuses empty assistant messages (a cancelled earlier turn): leave them out.
        if (blocks.length > 0) append('assistant', blocks);
        break;
      }
    }
  }
  return out;
}

interface BlockState {
  block: Record<string, unknown> & { type: string };
  json: string;
}

export class AnthropicProvider implements Provider {
  readonly id = ANTHROPIC_PROVIDER_ID;
  readonly capabilities: ProviderCapabilities;
  private client: Anthropic | undefined;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.capabilities = capabilitiesOf(options.profile);
  }

  price(model: string, usage: Usage): number | null {
    return costOf(this.id, model, usage);
  }

  stream(request: ProviderRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    return streamWithSdkRetries({
      provider: this.id,
      packageName: '@anthropic-ai/sdk',
      model: request.model,
      settings: this.options,
      signal,
      attempt: (loaded) => this.attempt(request, signal, loaded),
    });
  }

  private async getClient(): Promise<{ client: Anthropic; module: AnthropicModule }> {
    const module = await loadSdk();
    this.client ??= new module.Anthropic({
      apiKey: this.options.apiKey,
      authToken: null, // never pick up ANTHROPIC_AUTH_TOKEN behind the configured key
      baseURL: this.options.baseURL,
      maxRetries: 0, // retried by withRetries: cancellable, bounded waits
      timeout: this.options.timeoutMs ?? 600_000,
      logLevel: 'off',
    });
    return { client: this.client, module };
  }

  private async *attempt(
    request: ProviderRequest,
    signal: AbortSignal,
    loaded: (module: AnthropicModule) => void,
  ): AsyncGenerator<ProviderEvent> {
    const { client, module } = await this.getClient();
    loaded(module);
    const tools = request.tools ?? [];
    const body: MessageCreateParamsStreaming = {
      model: request.model,
      max_tokens: this.options.profile.maxOutputTokens,
      messages: toAnthropicMessages(request.messages),
      stream: true,
      ...(request.system.length > 0 ? { system: request.system } : {}),
      ...(tools.length > 0
        ? {
            tools: tools.map((tool) => ({
              name: tool.name,
              description: tool.description,
              input_schema: { type: 'object' as const, ...tool.inputSchema },
            })),
            ...(request.parallelToolCalls === false
              ? { tool_choice: { type: 'auto' as const, disable_parallel_tool_use: true } }
              : {}),
          }
        : {}),
    };
    const stream = await client.messages.create(body, { signal });

    const blocks = new Map<number, BlockState>();
    const order: number[] = [];
    let usage: Usage | undefined;
    let stopReason: string | null | undefined;
    for await (const event of stream as AsyncIterable<RawMessageStreamEvent>) {
      switch (event.type) {
        case 'message_start': {
          usage = usageFromAnthropic(event.message.usage, undefined);
          break;
        }
        case 'content_block_start': {
          const block = structuredClone(event.content_block) as unknown as BlockState['block'];
          blocks.set(event.index, { block, json: '' });
          order.push(event.index);
          if (block.type === 'text' && typeof block['text'] === 'string' && block['text'])
            yield { type: 'text', text: block['text'] };
          break;
        }
        case 'content_block_delta': {
          const state = blocks.get(event.index);
          if (!state) break;
          const delta = event.delta as unknown as { type: string } & Record<string, unknown>;
          const append = (field: string, value: unknown): void => {
            if (typeof value === 'string')
              state.block[field] = String(state.block[field] ?? '') + value;
          };
          if (delta.type === 'text_delta') {
            append('text', delta['text']);
            if (typeof delta['text'] === 'string' && delta['text'])
              yield { type: 'text', text: delta['text'] };
          } else if (delta.type === 'input_json_delta') {
            if (typeof delta['partial_json'] === 'string') state.json += delta['partial_json'];
          } else if (delta.type === 'thinking_delta') {
            append('thinking', delta['thinking']);
          } else if (delta.type === 'signature_delta') {
            // A signature is sent whole, in one delta.
            state.block['signature'] = delta['signature'];
          } else if (delta.type === 'citations_delta') {
            const citations = (state.block['citations'] as unknown[] | null | undefined) ?? [];
            state.block['citations'] = [...citations, delta['citation']];
          }
          break;
        }
        case 'content_block_stop': {
          const state = blocks.get(event.index);
          if (state?.block.type === 'tool_use') {
            const input = state.json.length > 0 ? parseArguments(state.json) : {};
            // Sent back verbatim later, where the API wants an object even if the model erred.
            state.block['input'] = input !== null && typeof input === 'object' ? input : {};
            yield {
              type: 'tool_call',
              call: {
                id: String(state.block['id']),
                name: String(state.block['name']),
                arguments: input,
              },
            };
          }
          break;
        }
        case 'message_delta': {
          stopReason = event.delta.stop_reason ?? stopReason;
          // message_delta usage is cumulative for the message.
          usage = usageFromAnthropic(event.usage, usage);
          break;
        }
        default:
          break;
      }
    }
    signal.throwIfAborted();

    const content = order.map((index) => blocks.get(index)!.block);
    // Only thinking makes the verbatim message worth keeping; otherwise the portable fields suffice.
    if (content.some((block) => block.type === 'thinking' || block.type === 'redacted_thinking'))
      yield {
        type: 'native',
        native: { provider: ANTHROPIC_PROVIDER_ID, message: { role: 'assistant', content } },
      };
    if (usage) yield { type: 'usage', usage };
    yield { type: 'stop', reason: STOP_REASONS[stopReason ?? 'end_turn'] ?? 'other' };
  }
}
