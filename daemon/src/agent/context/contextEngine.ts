/**
 * The context engine: the one seam the agent loop calls before every model
 * call, at every depth. It builds the messages to send and guarantees the
 * request fits the model's window minus its output reserve, shrinking in this
 * order until it does: older tool results (of earlier model calls) become
 * reduced versions, earlier turns are summarized by one model call
 * (compaction.ts) or, when that fails, the oldest are dropped whole, an
 * oversized user message is trimmed with a marker. A request that still does not fit is
 * a ContextOverflowError, before any provider call. The loop's own messages
 * are never changed; reductions are memoised, so later calls (and the
 * provider's prompt cache) see the same reduced text.
 */
import type { ResolvedProvider } from '../../providers/index.js';
import type { ProviderMessage, ToolDefinition } from '../../providers/provider.js';
import { newArtifactId, type ArtifactStore } from './artifacts.js';
import type { ContextSettings } from './contextSettings.js';
import {
  offloadedArtifact,
  offloadedVersion,
  reducedVersion,
  trimmedMessage,
} from './reducedText.js';
import type { TokenCalibration } from './tokenCalibration.js';
import { tokenCounterFor, type CountTokens } from './tokenCounter.js';
import { IMAGE_TOKENS, imagesOf, withoutImages } from './toolImages.js';
import type { Compact } from './compaction.js';

/** Framing tokens each message costs beyond its content (role, separators). */
const MESSAGE_OVERHEAD_TOKENS = 4;
/** Earlier turns smaller than this are dropped rather than summarized by a model call. */
const MIN_COMPACTED_TOKENS = 1_000;
/** A trimmed user message keeps at least this much of its start, or it is not worth sending. */
const MIN_TRIMMED_CHARS = 64;

/**
 * The request cannot be made to fit: `tokens` over `limit`. The loop reports
 * it as the history_tokens budget (budgets.md#budget-kinds: "if the call
 * cannot fit even then, the turn ends, stopReason budget_exceeded"); the
 * message, safe to show the user, goes to the log.
 */
export class ContextOverflowError extends Error {
  constructor(
    message: string,
    readonly tokens: number,
    readonly limit: number,
  ) {
    super(message);
    this.name = 'ContextOverflowError';
  }
}

/** What is left of the turn's budget, for the per-message advisory. */
export interface BudgetLeft {
  llmCalls: number;
  toolCalls: number;
  seconds: number;
}

export interface AssemblyInput {
  llm: ResolvedProvider;
  system: string;
  tools: readonly ToolDefinition[];
  /** The loop's messages: earlier turns first, then the running turn. */
  messages: readonly ProviderMessage[];
  /** How many leading messages belong to earlier turns (and may be dropped). */
  prunable: number;
  /** The turn's history-token budget: the request must also fit it, or the budget stops the turn. */
  historyTokenLimit: number;
  budgetLeft: BudgetLeft;
}

export interface AssembledRequest {
  messages: ProviderMessage[];
  /** The request's size, corrected by the model's calibration. */
  tokens: number;
  /** The same before the correction (what TokenCalibration.observe compares with usage). */
  counted: number;
  /** How many leading messages (whole earlier turns) were left out. */
  dropped: number;
  /** What stands for the dropped messages from now on: their summary, first in `messages`. */
  summary?: ProviderMessage;
  /** window - outputReserve. */
  limit: number;
}

export interface ContextEngineOptions {
  settings: ContextSettings;
  calibration: TokenCalibration;
  artifacts: ArtifactStore;
  turnId: string;
  /** Summarizes earlier turns; absent: they are only ever dropped. */
  compact?: Compact;
}

export function modelKey(llm: ResolvedProvider): string {
  return `${llm.provider.id}:${llm.model}`;
}

/**
 * Tokens of each tool definition, shared by every turn: a definition is made
 * once per tool and never changes (tools/tool.ts), and serializing a dozen
 * JSON Schemas on every model call was a large part of a short turn.
 */
const toolCounts = new WeakMap<CountTokens, WeakMap<ToolDefinition, number>>();

/** One per turn, shared by every loop of it (TurnContext.context). */
export class ContextEngine {
  /** Token counts by counter, then by message / definition: each is counted once. */
  private readonly counts = new Map<CountTokens, WeakMap<object, number>>();
  private readonly textCounts = new Map<CountTokens, Map<string, number>>();
  /** Original message -> what the model gets instead (reduced or trimmed). */
  private readonly replaced = new WeakMap<ProviderMessage, ProviderMessage>();
  private readonly textForms = new WeakMap<ProviderMessage, ProviderMessage>();
  /** Compaction runs at most once a turn: a second would only summarize the summary. */
  private compacted = false;

  constructor(private readonly options: ContextEngineOptions) {}

  get settings(): ContextSettings {
    return this.options.settings;
  }

  get artifacts(): ArtifactStore {
    return this.options.artifacts;
  }

  /** The form the model is sent of a loop message: reduced or trimmed, else itself. */
  sentForm(message: ProviderMessage): ProviderMessage {
    return this.replaced.get(message) ?? message;
  }

  /** A tool result's text with a note for a model that reads no images; memoised, so its count is too. */
  private textOnly(message: ProviderMessage): ProviderMessage {
    let text = this.textForms.get(message);
    if (text === undefined) {
      text = withoutImages(message, 'this model reads text only');
      this.textForms.set(message, text);
    }
    return text;
  }

  /** After a call: the provider's reported input tokens correct later counts for the model. */
  observeUsage(llm: ResolvedProvider, assembled: AssembledRequest, inputTokens: number): void {
    this.options.calibration.observe(modelKey(llm), assembled.counted, inputTokens);
  }

  /**
   * A tool result larger than the offload threshold is kept as an artifact;
   * returns what the model gets instead (a preview with the id, within
   * `maxBytes`) and the artifact's id, or undefined.
   */
  async offload(
    llm: ResolvedProvider,
    toolCallId: string,
    content: string,
    maxBytes: number,
  ): Promise<{ preview: string; artifactId: string } | undefined> {
    const threshold = this.options.settings.offloadTokens;
    // A token is at least one character for every tokenizer in use: short text cannot be over.
    if (content.length <= threshold) return undefined;
    const count = await tokenCounterFor(llm.provider.id, llm.model);
    const tokens = count(content);
    if (tokens <= threshold) return undefined;
    const id = newArtifactId();
    const preview = offloadedVersion(content, tokens, id, maxBytes);
    this.options.artifacts.put({
      id,
      turnId: this.options.turnId,
      toolCallId,
      content,
      tokens,
      reduced: preview,
    });
    return { preview, artifactId: id };
  }

  async assemble(input: AssemblyInput): Promise<AssembledRequest> {
    const count = await tokenCounterFor(input.llm.provider.id, input.llm.model);
    const ratio = this.options.calibration.ratioOf(modelKey(input.llm));
    const { contextWindow, outputReserve = 0 } = input.llm.provider.capabilities;
    const limit = contextWindow - outputReserve;
    const awareness = this.options.settings.budgetAwareness;
    const limitPercent = typeof awareness === 'object' ? awareness.limitPercent : undefined;
    const awarenessLimit =
      limitPercent === undefined ? Infinity : Math.floor((contextWindow * limitPercent) / 100);
    const target = Math.min(limit, input.historyTokenLimit, awarenessLimit);

    const size = (message: ProviderMessage): number => this.messageTokens(count, message);
    const view = input.messages.map((message) => this.sentForm(message));
    if (input.llm.provider.capabilities.images !== true) {
      for (const [i, message] of view.entries()) {
        if (imagesOf(message).length > 0) view[i] = this.textOnly(message);
      }
    }
    let counted =
      this.textTokens(count, input.system) +
      input.tools.reduce((sum, tool) => sum + this.toolTokens(count, tool), 0) +
      view.reduce((sum, message) => sum + size(message), 0);
    const corrected = (): number => Math.ceil(counted * ratio);
    const swapView = (index: number, next: ProviderMessage): void => {
      counted += size(next) - size(view[index]!);
      view[index] = next;
    };
    // Memoised: later calls of the turn send the same replacement.
    const swap = (index: number, next: ProviderMessage, original: ProviderMessage): void => {
      swapView(index, next);
      this.replaced.set(original, next);
    };

    // 1. Tool results of earlier model calls become reduced versions, oldest first.
    if (corrected() > target) {
      const lastAssistant = view.findLastIndex((message) => message.role === 'assistant');
      for (let i = 0; i < lastAssistant && corrected() > target; i++) {
        const message = view[i]!;
        if (message.role !== 'tool') continue;
        const tokens = size(message) - MESSAGE_OVERHEAD_TOKENS;
        if (tokens <= this.options.settings.reducedTokens) continue;
        const reduced = { ...message, content: this.reduce(message, tokens) };
        swap(i, withoutImages(reduced, 'older tool results go reduced'), input.messages[i]!);
      }
    }

    // 2. Earlier turns are summarized, once a turn: the summary stands for all of them.
    //    Not worth a model call for a few messages: those are dropped below.
    let summary: ProviderMessage | undefined;
    const earlier = view.slice(0, input.prunable);
    const earlierTokens = earlier.reduce((sum, message) => sum + size(message), 0);
    if (
      corrected() > target &&
      earlierTokens >= MIN_COMPACTED_TOKENS &&
      this.options.compact &&
      !this.compacted &&
      input.budgetLeft.llmCalls >= 1
    ) {
      this.compacted = true;
      summary = await this.options.compact(input.llm, earlier, Math.floor(limit / ratio / 2));
      if (summary) {
        counted += size(summary) - earlierTokens;
        view.splice(0, input.prunable, summary);
      }
    }
    const prunable = summary ? 1 : input.prunable;

    // 3. The oldest earlier turns go, whole (the summary counts as one): a turn starts at a
    //    user message, so a tool call never loses its result.
    let dropped = 0;
    while (corrected() > target && dropped < prunable) {
      do {
        counted -= size(view[dropped]!);
        dropped += 1;
      } while (dropped < prunable && view[dropped]?.role !== 'user');
    }
    view.splice(0, dropped);

    // 4. The running turn's own user message, when it alone is too big for the window.
    const userIndex = prunable - dropped;
    const user = view[userIndex];
    if (corrected() > limit && user?.role === 'user') {
      const room = Math.floor(limit / ratio) - (counted - size(user));
      const trimmed = this.trimToFit(count, user.content, room, contextWindow);
      if (trimmed !== undefined) {
        swap(userIndex, { role: 'user', content: trimmed }, input.messages[input.prunable]!);
      }
    }

    if (awareness === 'per-message' && view.at(-1)?.role === 'tool') {
      const last = view.length - 1;
      swapView(last, withAdvisory(view[last]!, corrected(), limit, input.budgetLeft));
    }
    const tokens = corrected();
    if (tokens > limit) {
      throw new ContextOverflowError(
        `the conversation no longer fits the model's context window of ${contextWindow} tokens ` +
          `(${outputReserve} reserved for the answer): this request needs ${tokens} tokens even with older ` +
          'tool results reduced, earlier turns dropped and the message trimmed. Start a new session, ' +
          'or ask for less in one turn.',
        tokens,
        limit,
      );
    }
    if (tokens > awarenessLimit) {
      throw new ContextOverflowError(
        `the context stays at ${tokens} tokens after reducing and dropping what it could, over the ` +
          `budget-awareness limit of ${awarenessLimit} tokens (${limitPercent} % of the window)`,
        tokens,
        awarenessLimit,
      );
    }
    if (!summary) return { messages: view, tokens, counted, dropped, limit };
    // Every earlier turn is gone from the loop; the summary stands for them unless it went too.
    return {
      messages: view,
      tokens,
      counted,
      dropped: input.prunable,
      ...(dropped === 0 ? { summary } : {}),
      limit,
    };
  }

  /** The reduced version of an older tool result; its full text goes to an artifact. */
  private reduce(message: ProviderMessage & { role: 'tool' }, tokens: number): string {
    // An offloaded result already has its artifact (maybe from an earlier turn): keep that id.
    const offloaded = offloadedArtifact(message.content);
    if (offloaded !== undefined) {
      return reducedVersion(message.content.slice(0, 600), offloaded.tokens, offloaded.id);
    }
    const id = newArtifactId();
    const reduced = reducedVersion(message.content, tokens, id);
    this.options.artifacts.put({
      id,
      turnId: this.options.turnId,
      toolCallId: message.toolCallId,
      content: message.content,
      tokens,
      reduced,
    });
    return reduced;
  }

  /** The message cut to `room` tokens, marker included; undefined when too little would be left. */
  private trimToFit(
    count: CountTokens,
    content: string,
    room: number,
    window: number,
  ): string | undefined {
    const total = count(content);
    let keep = Math.min(content.length, room * 3);
    while (keep >= MIN_TRIMMED_CHARS) {
      const trimmed = trimmedMessage(content, keep, total, window);
      if (count(trimmed) + MESSAGE_OVERHEAD_TOKENS <= room) return trimmed;
      keep = Math.floor(keep * 0.8);
    }
    return undefined;
  }

  private messageTokens(count: CountTokens, message: ProviderMessage): number {
    const cache = this.cacheOf(count);
    let tokens = cache.get(message);
    if (tokens === undefined) {
      tokens =
        MESSAGE_OVERHEAD_TOKENS + count(message.content) + imagesOf(message).length * IMAGE_TOKENS;
      if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0)
        tokens += count(JSON.stringify(message.toolCalls));
      cache.set(message, tokens);
    }
    return tokens;
  }

  private toolTokens(count: CountTokens, tool: ToolDefinition): number {
    let cache = toolCounts.get(count);
    if (cache === undefined) toolCounts.set(count, (cache = new WeakMap()));
    let tokens = cache.get(tool);
    if (tokens === undefined) {
      tokens = count(JSON.stringify(tool));
      cache.set(tool, tokens);
    }
    return tokens;
  }

  private textTokens(count: CountTokens, text: string): number {
    let cache = this.textCounts.get(count);
    if (cache === undefined) this.textCounts.set(count, (cache = new Map()));
    let tokens = cache.get(text);
    if (tokens === undefined) {
      tokens = count(text);
      cache.set(text, tokens);
    }
    return tokens;
  }

  private cacheOf(count: CountTokens): WeakMap<object, number> {
    let cache = this.counts.get(count);
    if (cache === undefined) this.counts.set(count, (cache = new WeakMap()));
    return cache;
  }
}

/** per-message: the latest tool result ends with what is left of the context and the turn. */
function withAdvisory(
  message: ProviderMessage,
  tokens: number,
  limit: number,
  left: BudgetLeft,
): ProviderMessage {
  const percent = Math.round((tokens / limit) * 100);
  return {
    ...message,
    content:
      `${message.content}\n[budget: context ${tokens} of ${limit} tokens used (${percent} %); ` +
      `this turn has ${left.llmCalls} model calls, ${left.toolCalls} tool calls and ${left.seconds} s left]`,
  };
}
