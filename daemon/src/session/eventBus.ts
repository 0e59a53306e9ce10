/**
 * One per session: stamps every notification with the session's id and the
 * next seq (strictly increasing from 1), keeps it in the replay log and fans
 * it out to every attached client.
 *
 * A client that attaches is "held" until `release()`: live events wait in its
 * queue, so the attach response goes out first, then the replayed events,
 * then live ones — never a new event before a missed one.
 */
import type { NotificationDescriptor } from '@arbor/protocol';
import { EventLog, type SessionEvent } from './eventLog.js';

export interface EventSubscriber {
  readonly clientId: string;
  deliver(event: SessionEvent): void;
}

export type ReplayKind = 'none' | 'events' | 'snapshot';

export interface Subscription {
  lastSeq: number;
  replay: ReplayKind;
  /** Sends the replayed events, then whatever arrived meanwhile, then goes live. */
  release(): void;
}

interface Feed {
  subscriber: EventSubscriber;
  held: SessionEvent[] | undefined;
}

export class EventBus {
  private seq = 0;
  private readonly log: EventLog;
  private readonly feeds = new Map<string, Feed>();

  constructor(
    private readonly sessionId: string,
    retention?: number,
  ) {
    this.log = new EventLog(retention);
  }

  get lastSeq(): number {
    return this.seq;
  }

  emit(descriptor: NotificationDescriptor, params: object): SessionEvent {
    this.seq += 1;
    const event: SessionEvent = {
      seq: this.seq,
      descriptor,
      params: { ...params, sessionId: this.sessionId, seq: this.seq },
    };
    this.log.append(event);
    for (const feed of this.feeds.values()) {
      if (feed.held) feed.held.push(event);
      else deliverSafely(feed.subscriber, event);
    }
    return event;
  }

  /**
   * sinceSeq absent: no replay. Within retention: 'events' (possibly none).
   * Older than retention, or ahead of this session: 'snapshot'.
   */
  subscribe(subscriber: EventSubscriber, sinceSeq: number | undefined): Subscription {
    const lastSeq = this.seq;
    let replay: ReplayKind = 'none';
    let missed: SessionEvent[] = [];
    if (sinceSeq !== undefined) {
      const oldest = this.log.oldestSeq ?? lastSeq + 1;
      if (sinceSeq > lastSeq || sinceSeq + 1 < oldest) {
        replay = 'snapshot';
      } else {
        replay = 'events';
        missed = this.log.since(sinceSeq);
      }
    }
    const feed: Feed = { subscriber, held: [] };
    this.feeds.set(subscriber.clientId, feed);
    return {
      lastSeq,
      replay,
      release: () => {
        if (this.feeds.get(subscriber.clientId) !== feed || !feed.held) return;
        const queued = feed.held;
        feed.held = undefined;
        for (const event of missed) deliverSafely(subscriber, event);
        for (const event of queued) deliverSafely(subscriber, event);
      },
    };
  }

  unsubscribe(clientId: string): void {
    this.feeds.delete(clientId);
  }

  subscriberIds(): string[] {
    return [...this.feeds.keys()];
  }
}

/** One broken client must not stop the others from getting the event. */
function deliverSafely(subscriber: EventSubscriber, event: SessionEvent): void {
  try {
    subscriber.deliver(event);
  } catch {
    // The subscriber's transport reports its own failure and detaches it.
  }
}
