/** session/list: newest first, paged by an opaque cursor, filtered by workspace root. */
import { strict as assert } from 'node:assert';
import type { SessionInfo } from '@arbor/protocol';
import {
  openStore,
  StoreError,
  type ListSessionsOptions,
  type Store,
} from '../../src/store/index.js';
import { newSession, removeScratchDirs, scratchDir } from './helpers.js';

function pageThrough(
  store: Store,
  options: Omit<ListSessionsOptions, 'cursor'>,
  between?: () => void,
): SessionInfo[] {
  const all: SessionInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = store.listSessions({ ...options, ...(cursor !== undefined ? { cursor } : {}) });
    assert.ok(page.sessions.length <= options.limit);
    all.push(...page.sessions);
    cursor = page.nextCursor;
    if (cursor !== undefined)
      assert.equal(page.sessions.length, options.limit, 'only the last page is short');
    between?.();
  } while (cursor !== undefined);
  return all;
}

describe('store: listSessions', () => {
  let store: Store;
  let clock: number;
  const roots = ['/w/alpha', '/w/beta', '/w/gamma'];
  /** Ids newest first, as the list must give them. */
  let expected: { id: string; root: string }[];

  beforeEach(() => {
    // Every third session shares its timestamp with the previous one: ties are broken by id.
    clock = Date.UTC(2025, 0, 1);
    let tick = 0;
    store = openStore(scratchDir(), { now: () => new Date(clock + 1000 * Math.floor(tick++ / 2)) });
    expected = [];
    for (let i = 0; i < 250; i++) {
      const root = roots[i % 3]!;
      const s = store.createSession(
        newSession({
          workspaceRoot: root,
          sessionId: `s-${String((i * 7919) % 1000).padStart(4, '0')}`,
        }),
      );
      expected.push({ id: s.sessionId, root });
    }
    const byNewest = (a: SessionInfo, b: SessionInfo) =>
      a.updatedAt === b.updatedAt
        ? a.sessionId < b.sessionId
          ? 1
          : -1
        : a.updatedAt < b.updatedAt
          ? 1
          : -1;
    const infos = expected.map((e) => store.getSession(e.id)!).sort(byNewest);
    expected = infos.map((s) => ({ id: s.sessionId, root: s.workspaceRoot }));
  });
  afterEach(() => {
    store.close();
    removeScratchDirs();
  });

  it('pages over 250 sessions newest first, each exactly once', () => {
    for (const limit of [1, 7, 50, 200]) {
      const listed = pageThrough(store, { limit });
      assert.deepEqual(
        listed.map((s) => s.sessionId),
        expected.map((e) => e.id),
        `limit ${limit}`,
      );
    }
  });

  it('filters by workspace root while paging', () => {
    for (const root of roots) {
      const listed = pageThrough(store, { workspaceRoot: root, limit: 13 });
      assert.ok(listed.every((s) => s.workspaceRoot === root));
      assert.deepEqual(
        listed.map((s) => s.sessionId),
        expected.filter((e) => e.root === root).map((e) => e.id),
      );
    }
    assert.deepEqual(store.listSessions({ workspaceRoot: '/w/none', limit: 10 }), { sessions: [] });
  });

  it('sessions created while paging do not shift the pages (keyset, not offset)', () => {
    let n = 0;
    const listed = pageThrough(store, { limit: 20 }, () => {
      clock += 1_000_000; // newer than everything listed so far
      store.createSession(newSession({ sessionId: `new-${n++}` }));
    });
    assert.deepEqual(
      listed.map((s) => s.sessionId),
      expected.map((e) => e.id),
    );
  });

  it('activity moves a session to the front', () => {
    const oldest = expected.at(-1)!.id;
    clock += 1_000_000;
    store.appendUserMessage(oldest, 'turn-1', 'hello again');
    assert.equal(store.listSessions({ limit: 1 }).sessions[0]!.sessionId, oldest);
  });

  it('a cursor it did not produce is refused', () => {
    for (const cursor of ['garbage', Buffer.from('{"a":1}').toString('base64url'), '']) {
      assert.throws(
        () => store.listSessions({ limit: 5, cursor }),
        (e: unknown) => e instanceof StoreError && e.code === 'invalid_cursor',
      );
    }
  });
});
