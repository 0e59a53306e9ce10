/**
 * The provider interface: what the agent loop needs from an LLM. One request
 * is one model turn; the answer is a stream of events. Real providers (openai,
 * anthropic, local) and the scripted provider implement it the same way.
 */
import type { ApprovalOutcome, Usage } from '@arbor/protocol';

export interface ProviderCapabilities {
  /** The model can call tools. Without it the loop degrades to plain chat. */
  tools: boolean;
  /** The model may emit several tool calls in one turn. Without it: one tool per turn. */
  parallelToolCalls: boolean;
  /** Context window in tokens. */
  contextWindow: number;
  /** Tokens of the window kept free for the answer (the context engine fills at most the rest); absent: 0. */
  outputReserve?: number;
  /** The model reads images that tools return; absent or false: they are left out with a note. */
  images?: boolean;
}

/** An image a tool returned (an MCP server's image content), base64-encoded. */
export interface ToolImage {
  mimeType: string;
  data: string;
}

/** The image types both Anthropic and OpenAI accept. */
export const MODEL_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

/** Anthropic's per-image limit; a larger image is refused by the API, so it is never sent. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** Images per tool result; more stay notes (a request with dozens of screenshots helps nobody). */
export const MAX_IMAGES_PER_RESULT = 4;

export interface ProviderToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/**
 * An assistant message exactly as one provider's API returned it (e.g. Anthropic
 * content blocks with thinking and signatures). The same provider sends it back
 * verbatim; any other provider uses the portable fields.
 */
export interface NativeMessage {
  provider: string;
  message: unknown;
}

/** The conversation as the provider sees it. `tool` messages answer `toolCalls` by id. */
export type ProviderMessage =
  | {
      role: 'user';
      content: string;
      /** The context engine's summary of earlier turns (context/compaction.ts); sent as a user message. */
      summary?: boolean;
    }
  | { role: 'assistant'; content: string; toolCalls?: ProviderToolCall[]; native?: NativeMessage }
  | {
      role: 'tool';
      toolCallId: string;
      name: string;
      content: string;
      isError?: boolean;
      /** Images the tool returned, sent with the result to a model that reads images. */
      images?: readonly ToolImage[];
      /** Not sent to the model: how the call went (the permission gate's outcome). */
      metadata?: ToolResultMetadata;
    };

export interface ToolResultMetadata {
  approval?: ApprovalOutcome;
}

/** A tool as offered to the model. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  inputSchema: Record<string, unknown>;
}

export interface ProviderRequest {
  model: string;
  system: string;
  messages: readonly ProviderMessage[];
  /** Absent or empty: the model must answer in text. */
  tools?: readonly ToolDefinition[];
  /** false: at most one tool call this turn. */
  parallelToolCalls?: boolean;
}

export type ProviderStopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'other';

export type ProviderEvent =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; call: ProviderToolCall }
  | { type: 'usage'; usage: Usage }
  /** The whole assistant message in the provider's own format, kept in history verbatim. */
  | { type: 'native'; native: NativeMessage }
  | { type: 'stop'; reason: ProviderStopReason };

export interface Provider {
  /** Provider id as in model strings and cost summaries (`openai`, `scripted`, ...). */
  readonly id: string;
  readonly capabilities: ProviderCapabilities;
  /** A provider that serves one model whatever the request names (scripted): usage is accounted under it. */
  readonly fixedModel?: string;
  /** Price of one call in USD when the provider knows it; null or absent: unknown. */
  price?(model: string, usage: Usage): number | null;
  /** Streams one model turn. Must stop promptly (throwing) when `signal` aborts. */
  stream(request: ProviderRequest, signal: AbortSignal): AsyncIterable<ProviderEvent>;
}

/** The model or the provider failed; the message is safe to show the user. */
export class ProviderError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderError';
  }
}
