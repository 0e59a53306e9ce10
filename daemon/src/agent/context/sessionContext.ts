/**
 * What the context engine keeps per session beyond one turn: artifacts, and
 * each turn as the model saw it (tool calls, results in their reduced form),
 * so the next turn, and a restarted daemon, send earlier turns with their
 * tool work without recomputing reductions. The store implements it
 * (store/contextTables.ts); its messages table stays the full record that
 * session/load shows.
 */
import type { ProviderMessage } from '../../providers/provider.js';
import type { ArtifactStore } from './artifacts.js';

export interface SessionContextStore {
  readonly artifacts: ArtifactStore;
  /**
   * The earlier turns, oldest first, as the model sees them: a turn's stored
   * transcript, else its user and assistant text. Newest turns first until
   * about `maxTokens`, starting at a user message.
   */
  history(maxTokens: number): ProviderMessage[];
  /** The running turn's transcript, from its user message on. */
  saveTurn(turnId: string, messages: readonly ProviderMessage[]): void;
}

/**
 * A transcript another request can start from: complete tool exchanges only.
 * A turn stopped between a tool call and its results (cancel, budget) ends
 * before that call: providers reject calls without results and results without calls.
 */
export function completeExchanges(messages: readonly ProviderMessage[]): ProviderMessage[] {
  const kept = [...messages];
  for (let i = kept.length - 1; i >= 0; i--) {
    const message = kept[i]!;
    if (message.role !== 'assistant' || !message.toolCalls?.length) continue;
    const answered = new Set(
      kept.slice(i + 1).flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])),
    );
    if (!message.toolCalls.every((call) => answered.has(call.id))) kept.splice(i);
  }
  return kept;
}
