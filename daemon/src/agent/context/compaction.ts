/**
 * Compaction: earlier turns summarized by one model call, so a long session
 * keeps what was decided instead of forgetting its oldest turns outright.
 * The call is a node of kind `compaction` under the loop it serves
 * (tree.md#tree-compaction-node), counted against the turn's budget, with
 * its usage and cost; the summary replaces the turns it covers in every later
 * request of the turn and, stored with the turn's transcript, in later turns.
 * A failed summary is not fatal: the engine then drops the oldest turns.
 */
import type { ResolvedProvider } from '../../providers/index.js';
import type { ProviderMessage } from '../../providers/provider.js';
import { ProviderError } from '../../providers/provider.js';
import type { Usage } from '@arbor/protocol';
import { abortable } from '../abort.js';
import { fairly } from '../fairStream.js';
import { cutText, type ExecutionTree } from '../executionTree.js';
import type { TurnBudget } from '../turnBudget.js';
import { addUsage, type UsageAccountant } from '../usageAccountant.js';

/** Summarizes `messages` (earlier turns) into one message; undefined when it could not. */
export type Compact = (
  llm: ResolvedProvider,
  messages: readonly ProviderMessage[],
  inputTokens: number,
) => Promise<ProviderMessage | undefined>;

export interface CompactionDeps {
  tree: ExecutionTree;
  budget: TurnBudget;
  accountant: UsageAccountant;
  signal: AbortSignal;
  log: (level: 'warn', message: string) => void;
  /** The node of the loop whose history is summarized (the turn node). */
  parentNodeId: string;
  depth: number;
}

export const COMPACTION_NODE_NAME = 'compact_context';

/** The first line of the summarizer's input (a scripted conversation keyed by it answers it). */
export const TRANSCRIPT_HEADER = 'Conversation to summarize:';

/** How much of one tool result the summarizer reads: the gist, not the bulk. */
const TOOL_RESULT_CHARS = 2_000;
/** How much of one message the summarizer reads: a pasted log or a long answer by its start. */
const MESSAGE_CHARS = 8_000;
/** A summary longer than this (a model that did not summarize) is cut: it is resent with every request. */
const MAX_SUMMARY_CHARS = 40_000;
/** The summarizer's whole input, at most: memory and time stay bounded whatever the window. */
const MAX_TRANSCRIPT_CHARS = 400_000;

const SYSTEM = `You compact the earlier part of a conversation between a user and a coding agent, so the agent can go on without it.
Write a summary the agent will read in place of those messages:
- the user's goals and requests, in their words where it matters;
- decisions made, constraints and preferences the user stated;
- files, functions and commands involved, with what was learned or changed in each;
- what was finished, what is still open, and any errors not yet resolved.
Be specific (paths, names, values); leave out pleasantries and anything already superseded.
Answer with the summary only, in at most about 1,500 words.`;

/** What the model reads in place of the turns a summary covers. */
export function summaryMessage(summary: string, count: number): ProviderMessage {
  return {
    role: 'user',
    summary: true,
    content: `[Summary of the ${count} earlier messages of this conversation, which were compacted to fit the context window]\n${summary}`,
  };
}

/** The summary's own message (stored first in a turn's transcript), if this is one. */
export function isSummary(message: ProviderMessage | undefined): boolean {
  return message?.role === 'user' && message.summary === true;
}

export function compactor(deps: CompactionDeps): Compact {
  return async (llm, messages, inputTokens) => {
    const { tree, budget, accountant, signal } = deps;
    const covered = messages.filter((message) => !isSummary(message)).length;
    const nodeId = tree.add({
      parentId: deps.parentNodeId,
      kind: 'compaction',
      name: COMPACTION_NODE_NAME,
      title: `Summarizing ${covered} earlier message${covered === 1 ? '' : 's'}`,
      status: 'running',
      depth: deps.depth,
    });
    let usage: Usage | undefined;
    let text = '';
    let called = false;
    // Before the node's final upsert, which must carry the call's usage (the tree does not re-send).
    const account = (): void => {
      const spent = usage ?? { inputTokens: 0, outputTokens: 0 };
      const cost = accountant.record(llm.provider, llm.model, spent);
      if (usage) tree.addUsage(nodeId, usage, cost);
    };
    try {
      budget.beforeLlmCall(nodeId);
      called = true;
      const request = {
        model: llm.model,
        system: SYSTEM,
        messages: [{ role: 'user' as const, content: transcriptText(messages, inputTokens) }],
      };
      // Fairly, like every model call: a summary streamed at once must not stall other sessions.
      for await (const event of abortable(fairly(llm.provider.stream(request, signal)), signal)) {
        if (event.type === 'text') text += event.text;
        else if (event.type === 'usage') usage = addUsage(usage, event.usage);
      }
      const summary = cutText(text.trim(), MAX_SUMMARY_CHARS);
      if (summary.length === 0) throw new ProviderError('the model answered with no summary');
      account();
      tree.finish(nodeId, { status: 'done', result: summary });
      return summaryMessage(summary, covered);
    } catch (error) {
      // A call the budget refused was never made; one that failed still spent what it reported.
      if (called) account();
      // A cancelled turn or a spent budget ends the turn; anything else only this summary.
      if (signal.aborted || budget.exceeded) {
        tree.finish(nodeId, { status: 'cancelled' });
        throw error;
      }
      const reason = error instanceof Error ? error.message : String(error);
      deps.log('warn', `compaction failed, the oldest turns are dropped instead: ${reason}`);
      tree.finish(nodeId, { status: 'error', isError: true, result: reason });
      return undefined;
    }
  };
}

/**
 * The earlier turns as one text for the summarizer, within `maxTokens`
 * (about 3 characters a token, on the safe side) and MAX_TRANSCRIPT_CHARS: an
 * earlier summary first, then as many of the newest messages as fit; each
 * message and tool result cut to its start.
 */
export function transcriptText(messages: readonly ProviderMessage[], maxTokens: number): string {
  const maxChars = Math.min(MAX_TRANSCRIPT_CHARS, Math.max(4_000, maxTokens * 3));
  const earlier = messages.filter(isSummary).map((message) => message.content);
  const lines = messages.filter((message) => !isSummary(message)).map(messageLine);
  let used = earlier.reduce((sum, text) => sum + text.length, 0);
  let first = lines.length;
  while (first > 0 && used + lines[first - 1]!.length + 1 <= maxChars) {
    first -= 1;
    used += lines[first]!.length + 1;
  }
  const left =
    first > 0 ? [`[${first} older messages left out: too long to summarize at once]`] : [];
  return [TRANSCRIPT_HEADER, ...earlier, ...left, ...lines.slice(first)].join('\n');
}

function messageLine(message: ProviderMessage): string {
  switch (message.role) {
    case 'user':
      return `[user] ${cutText(message.content, MESSAGE_CHARS)}`;
    case 'assistant': {
      const calls = (message.toolCalls ?? []).map(
        (call) => `${call.name} ${cutText(JSON.stringify(call.arguments ?? {}), 300)}`,
      );
      const text = message.content.length > 0 ? ` ${cutText(message.content, MESSAGE_CHARS)}` : '';
      return `[assistant]${text}${calls.length > 0 ? ` (tool calls: ${calls.join('; ')})` : ''}`;
    }
    case 'tool':
      return `[${message.name} result${message.isError ? ', error' : ''}] ${cutText(message.content, TOOL_RESULT_CHARS)}`;
  }
}
