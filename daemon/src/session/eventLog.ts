/**
 * The last N events of a session, kept so a client that reconnects can be
 * sent exactly what it missed. Bounded: memory stays flat however long a
 * session lives; older events are only reachable through a snapshot.
 */
import type { NotificationDescriptor } from '@arbor/protocol';

/** Events kept per session for replay; advertised as capabilities.attach.replayRetention. */
export const EVENT_REPLAY_RETENTION = 10_000;

export interface SessionEvent {
  readonly seq: number;
  readonly descriptor: NotificationDescriptor;
  /** The notification params, already stamped with sessionId and seq. */
  readonly params: Readonly<Record<string, unknown>>;
}

export class EventLog {
  private readonly ring: (SessionEvent | undefined)[];
  private start = 0;
  private size = 0;

  constructor(readonly retention: number = EVENT_REPLAY_RETENTION) {
    this.ring = new Array<SessionEvent | undefined>(retention);
  }

  append(event: SessionEvent): void {
    if (this.retention === 0) return;
    const index = (this.start + this.size) % this.retention;
    this.ring[index] = event;
    if (this.size < this.retention) this.size += 1;
    else this.start = (this.start + 1) % this.retention;
  }

  /** seq of the oldest event still kept, or undefined when empty. */
  get oldestSeq(): number | undefined {
    return this.size === 0 ? undefined : this.ring[this.start]?.seq;
  }

  /** Every kept event with seq > sinceSeq, oldest first. */
  since(sinceSeq: number): SessionEvent[] {
    const out: SessionEvent[] = [];
    for (let i = 0; i < this.size; i++) {
      const event = this.ring[(this.start + i) % this.retention];
      if (event && event.seq > sinceSeq) out.push(event);
    }
    return out;
  }
}
