/**
 * The turn's outgoing events. Text deltas are coalesced into one `chat/chunk`
 * per node per frame (CHUNK_COALESCE_MS); any other event first flushes the
 * held text, so clients see text and tree changes in the order they happened.
 */
import { Methods, type NotificationDescriptor } from '@arbor/protocol';
import type { SessionEventParams, SessionEventSink } from './turnRunner.js';

/** Longest time streamed text is held before it goes out as a chat/chunk. */
export const CHUNK_COALESCE_MS = 16;

export class TurnEvents {
  /** Held text per node, in the order nodes first produced text. */
  private readonly held = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly sink: SessionEventSink,
    private readonly turnId: string,
    private readonly coalesceMs: number = CHUNK_COALESCE_MS,
  ) {}

  text(nodeId: string, delta: string): void {
    if (delta.length === 0 || this.closed) return;
    this.held.set(nodeId, (this.held.get(nodeId) ?? '') + delta);
    if (this.coalesceMs <= 0) return this.flush();
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.coalesceMs);
  }

  emit<D extends NotificationDescriptor>(descriptor: D, params: SessionEventParams<D>): void {
    if (this.closed) return;
    this.flush();
    this.sink.emit(descriptor, params);
  }

  /** Flushes held text; later events (from work that ignored the abort) are dropped. */
  close(): void {
    this.flush(true);
    this.closed = true;
  }

  /** Sends held text; `final`: all of it, even a lone trailing high surrogate. */
  flush(final = false): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.held.size === 0) return;
    const chunks = [...this.held];
    this.held.clear();
    for (const [nodeId, held] of chunks) {
      // Never split a surrogate pair across chunks: a trailing high surrogate waits for its partner.
      const last = held.charCodeAt(held.length - 1);
      const split = !final && last >= 0xd800 && last <= 0xdbff;
      const text = split ? held.slice(0, -1) : held;
      if (split) this.held.set(nodeId, held.slice(-1));
      if (text.length > 0) this.sink.emit(Methods.ChatChunk, { turnId: this.turnId, nodeId, text });
    }
  }
}
