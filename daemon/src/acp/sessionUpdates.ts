/**
 * The `session/update` notifications of one ACP session, sent strictly in
 * order, one at a time. Agent text that arrives while an earlier update is
 * still being written joins the text waiting behind it, so a fast stream
 * costs fewer messages, not a longer queue. `flushed()` lets a prompt answer
 * only after its turn's updates are out (ACP: every update of a turn comes
 * before the prompt's response).
 */
import { methods, type AgentContext, type SessionUpdate } from '@agentclientprotocol/sdk';

export class SessionUpdates {
  readonly #waiting: SessionUpdate[] = [];
  #draining: Promise<void> | undefined;

  constructor(
    private readonly editor: AgentContext,
    private readonly sessionId: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  send(update: SessionUpdate): void {
    const last = this.#waiting.at(-1);
    const joined = last === undefined ? undefined : joinText(last, update);
    if (joined) this.#waiting[this.#waiting.length - 1] = joined;
    else this.#waiting.push(update);
    this.#draining ??= this.#drain();
  }

  flushed(): Promise<void> {
    return this.#draining ?? Promise.resolve();
  }

  async #drain(): Promise<void> {
    for (let update = this.#waiting.shift(); update; update = this.#waiting.shift()) {
      try {
        await this.editor.notify(methods.client.session.update, {
          sessionId: this.sessionId,
          update,
        });
      } catch (error) {
        this.onError(error);
      }
    }
    this.#draining = undefined;
  }
}

/** Two plain agent text chunks as one; undefined when either is anything else or carries _meta. */
function joinText(first: SessionUpdate, second: SessionUpdate): SessionUpdate | undefined {
  if (
    first.sessionUpdate !== 'agent_message_chunk' ||
    second.sessionUpdate !== 'agent_message_chunk'
  )
    return undefined;
  if (first.content.type !== 'text' || second.content.type !== 'text') return undefined;
  if (first._meta || second._meta) return undefined;
  return {
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: first.content.text + second.content.text },
  };
}
