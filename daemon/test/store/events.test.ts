/** The per-session event log: session/attach {sinceSeq} replays exactly what a client missed. */
import { strict as assert } from 'node:assert';
import {
  EVENT_PRUNE_BATCH,
  EVENT_RETENTION,
  openStore,
  type EventsSince,
  type Store,
} from '../../src/store/index.js';
import { newSession, removeScratchDirs, scratchDir } from './helpers.js';

function seqs(result: EventsSince): number[] | 'beyondRetention' {
  return 'beyondRetention' in result ? 'beyondRetention' : result.events.map((e) => e.seq);
}

describe('store: event log and replay', () => {
  afterEach(removeScratchDirs);

  it('replays every event after sinceSeq, in order, with method and params as appended', () => {
    const store = openStore(scratchDir());
    const a = store.createSession(newSession()).sessionId;
    const b = store.createSession(newSession()).sessionId;
    assert.equal(store.lastSeq(a), 0);
    assert.deepEqual(store.eventsSince(a, 0), { events: [] });
    for (let seq = 1; seq <= 20; seq++) {
      store.appendEvent(a, seq, 'chat/chunk', {
        sessionId: a,
        seq,
        text: `part ${seq}`,
        nested: { n: [seq] },
      });
      if (seq <= 5) store.appendEvent(b, seq, 'tree/update', { seq });
    }
    assert.equal(store.lastSeq(a), 20);
    assert.equal(store.lastSeq(b), 5);
    const replay = store.eventsSince(a, 17);
    assert.deepEqual(replay, {
      events: [18, 19, 20].map((seq) => ({
        seq,
        method: 'chat/chunk',
        params: { sessionId: a, seq, text: `part ${seq}`, nested: { n: [seq] } },
      })),
    });
    assert.deepEqual(
      seqs(store.eventsSince(a, 0)),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    assert.deepEqual(seqs(store.eventsSince(a, 20)), []);
    assert.deepEqual(seqs(store.eventsSince(b, 2)), [3, 4, 5]);
    store.close();
  });

  it('survives a restart: the log and lastSeq come back', () => {
    const dir = scratchDir();
    const first = openStore(dir);
    const id = first.createSession(newSession()).sessionId;
    for (let seq = 1; seq <= 7; seq++) first.appendEvent(id, seq, 'chat/chunk', { seq });
    first.close();
    const second = openStore(dir);
    assert.equal(second.lastSeq(id), 7);
    assert.deepEqual(seqs(second.eventsSince(id, 4)), [5, 6, 7]);
    second.close();
  });

  it('keeps the newest EVENT_RETENTION events; asking for older ones answers beyondRetention', () => {
    const store = openStore(scratchDir());
    const id = store.createSession(newSession()).sessionId;
    const total = EVENT_RETENTION + 2 * EVENT_PRUNE_BATCH;
    for (let seq = 1; seq <= total; seq++) store.appendEvent(id, seq, 'chat/chunk', { seq });
    const oldestKept = total - EVENT_RETENTION + 1; // pruned at the last append, which ends a batch
    assert.deepEqual(store.eventsSince(id, oldestKept - 2), { beyondRetention: true });
    assert.deepEqual(store.eventsSince(id, 0), { beyondRetention: true });
    const all = seqs(store.eventsSince(id, oldestKept - 1));
    assert.ok(Array.isArray(all));
    assert.equal(all.length, EVENT_RETENTION);
    assert.equal(all[0], oldestKept);
    assert.equal(store.lastSeq(id), total);
    store.close();
  });

  it('prunes in batches: between two prunes the log holds at most retention + batch - 1 events', () => {
    const retention = 50;
    const store = openStore(scratchDir(), { eventRetention: retention });
    const id = store.createSession(newSession()).sessionId;
    let maxKept = 0;
    for (let seq = 1; seq <= 3 * EVENT_PRUNE_BATCH + 17; seq++) {
      store.appendEvent(id, seq, 'chat/chunk', {});
      const result = store.eventsSince(id, Math.max(0, seq - retention - EVENT_PRUNE_BATCH));
      if ('events' in result) maxKept = Math.max(maxKept, result.events.length);
    }
    assert.ok(maxKept <= retention + EVENT_PRUNE_BATCH - 1, `kept ${maxKept}`);
    const last = 3 * EVENT_PRUNE_BATCH + 17;
    // The newest `retention` are always there.
    assert.equal(seqs(store.eventsSince(id, last - retention)).length, retention);
    store.close();
  });

  it("the session's last plan/update outlives the log's retention: session/load returns its entries", () => {
    const store = openStore(scratchDir(), { eventRetention: 10 });
    const id = store.createSession(newSession()).sessionId;
    assert.equal(store.loadSession(id)!.plan, undefined, 'no plan before any plan/update');
    const first = [{ id: 'a', content: 'read the code', status: 'completed' as const }];
    const second = [...first, { id: 'b', content: 'fix the bug', status: 'in_progress' as const }];
    store.appendEvent(id, 1, 'plan/update', { turnId: 't1', entries: first });
    store.appendEvent(id, 2, 'plan/update', { turnId: 't1', entries: second });
    for (let seq = 3; seq <= 2 * EVENT_PRUNE_BATCH; seq++)
      store.appendEvent(id, seq, 'chat/chunk', {});
    assert.equal(seqs(store.eventsSince(id, 0)), 'beyondRetention', 'the plan/update was pruned');
    assert.deepEqual(store.loadSession(id)!.plan, second);
    store.close();
  });

  it('a sinceSeq ahead of the log (events this store never kept) answers beyondRetention', () => {
    const store: Store = openStore(scratchDir());
    const id = store.createSession(newSession()).sessionId;
    assert.deepEqual(store.eventsSince(id, 3), { beyondRetention: true });
    store.appendEvent(id, 1, 'session/state', {});
    assert.deepEqual(store.eventsSince(id, 2), { beyondRetention: true });
    store.close();
  });

  it('a seq is stored once per session', () => {
    const store = openStore(scratchDir());
    const id = store.createSession(newSession()).sessionId;
    store.appendEvent(id, 1, 'session/state', {});
    assert.throws(() => store.appendEvent(id, 1, 'session/state', {}), /Duplicate/);
    assert.throws(
      () => store.appendEvent('no-such-session', 1, 'session/state', {}),
      /no longer exists/,
    );
    store.close();
  });
});
