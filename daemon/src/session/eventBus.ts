/**
 * One per session: stamps every notification with the session's id and the
 * next seq (strictly increasing from 1, continuing across daemon restarts),
 * appends it to the store's event log and fans it out to every attached client.
 * Replay reads the store, so it works across restarts and as far back as the
 * store's retention (older events are only reachable through a snapshot).
 *
 * A client that attaches is "held" until `release()`: live events wait in its
 * queue, so the attach response goes out first, then the replayed events,
 * then live ones — never a new event before a missed one.
 */
import type { NotificationDescriptor } from '@arbor/protocol';
import { daemonSecrets, type SecretRedactor } from '../security/secretRedactor.js';
import type { Store } from '../store/index.js';

export interface SessionEvent {
  readonly seq: number;
  readonly method: string;
  /** The notification params, already stamped with sessionId and seq. */
  readonly params: Readonly<Record<string, unknown>>;
}

/** The part of the store the bus uses: the session's persisted event log. */
export type SessionEventLog = Pick<
  Store,
  'appendEvent' | 'eventsSince' | 'lastSeq' | 'takeDropped'
>;

export type StoredForm = (
  method: string,
  params: Readonly<Record<string, unknown>>,
) => Readonly<Record<string, unknown>>;

export interface EventSubscriber {
  readonly clientId: string;
  /** `replayed`: sent on release, because the client asked for it by attaching. */
  deliver(event: SessionEvent, replayed?: boolean): void;
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
  private seq: number;
  private readonly feeds = new Map<string, Feed>();

  constructor(
    private readonly sessionId: string,
    private readonly log: SessionEventLog,
    /** Every event passes here before it is stored or sent: the one place to redact. */
    private readonly redactor: SecretRedactor = daemonSecrets,
  ) {
    this.seq = log.lastSeq(sessionId);
  }

  get lastSeq(): number {
    return this.seq;
  }

  /**
   * `stored`: the event's form for the log when it differs from what clients
   * get (an agent profile's data policy, agents/dataPolicy.ts): a replay
   * then shows what was kept.
   */
  emit(descriptor: NotificationDescriptor, params: object, stored?: StoredForm): SessionEvent {
    // A commit that failed even into the disk reserve dropped events this bus numbered
    // (no client got them): continue from the log, so it stays without gaps.
    if (this.log.takeDropped(this.sessionId)) this.seq = this.log.lastSeq(this.sessionId);
    const seq = this.seq + 1;
    const event: SessionEvent = {
      seq,
      method: descriptor.method,
      // Known secrets (a key a command printed, ...) never reach the store or a
      // client (security.md#security-redact-known-secrets).
      params: this.redactor.redactDeep({ ...params, sessionId: this.sessionId, seq }),
    };
    // Stored before anyone sees it: every seq a client holds can be replayed. The append
    // joins the pass's transaction, and a connection commits it before its frames leave.
    // A failed append throws here and leaves no gap in the numbering.
    this.log.appendEvent(
      this.sessionId,
      seq,
      event.method,
      stored ? stored(event.method, event.params) : event.params,
    );
    this.seq = seq;
    for (const feed of this.feeds.values()) {
      if (feed.held) feed.held.push(event);
      else deliverSafely(feed.subscriber, event);
    }
    return event;
  }

  /**
   * sinceSeq absent: no replay. sinceSeq >= lastSeq: 'events', none missed.
   * Every missed event still in the log: 'events'. Some pruned: 'snapshot'.
   */
  subscribe(subscriber: EventSubscriber, sinceSeq: number | undefined): Subscription {
    const lastSeq = this.seq;
    let replay: ReplayKind = 'none';
    let missed: SessionEvent[] = [];
    if (sinceSeq !== undefined) {
      const stored =
        sinceSeq >= lastSeq ? { events: [] } : this.log.eventsSince(this.sessionId, sinceSeq);
      if ('beyondRetention' in stored) {
        replay = 'snapshot';
      } else {
        replay = 'events';
        missed = stored.events.map((e) => ({
          seq: e.seq,
          method: e.method,
          params: e.params as SessionEvent['params'],
        }));
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
        for (const event of missed) deliverSafely(subscriber, event, true);
        for (const event of queued) deliverSafely(subscriber, event, true);
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
function deliverSafely(subscriber: EventSubscriber, event: SessionEvent, replayed = false): void {
  try {
    subscriber.deliver(event, replayed);
  } catch {
    // The subscriber's transport reports its own failure and detaches it.
  }
}
