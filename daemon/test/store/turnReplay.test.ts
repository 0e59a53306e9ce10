/** Rebuilding an interrupted turn's partial answer and tree from its stored events. */
import { strict as assert } from 'node:assert';
import type { ExecutionTreeNode } from '@arbor/protocol';
import { EVENT_PRUNE_BATCH, openStore } from '../../src/store/index.js';
import { replayTurn, type StoredEventRow } from '../../src/store/turnReplay.js';
import { newSession, rawDb, removeScratchDirs, scratchDir } from './helpers.js';

const SESSION = 'ses_1';
const T = 'turn_1';

/** Stamps events the way the event bus stores them: JSON text with sessionId and seq. */
function log(...events: [method: string, params: Record<string, unknown>][]): StoredEventRow[] {
  return events.map(([method, params], i) => ({
    method,
    params: JSON.stringify({ ...params, sessionId: SESSION, seq: i + 1 }),
  }));
}

const node = (
  id: string,
  parentId: string | null,
  status: ExecutionTreeNode['status'],
  extra: Partial<ExecutionTreeNode> = {},
): ExecutionTreeNode => ({
  id,
  parentId,
  kind: parentId === null ? 'turn' : 'tool',
  name: parentId === null ? 'turn' : 'read_file',
  status,
  depth: 0,
  ...extra,
});

const tree = (turnId: string, ...nodes: ExecutionTreeNode[]) =>
  ['tree/update', { turnId, nodes }] as [string, Record<string, unknown>];
const chunk = (turnId: string, nodeId: string, text: string) =>
  ['chat/chunk', { turnId, nodeId, text }] as [string, Record<string, unknown>];

describe('store: replaying an interrupted turn', () => {
  it('merges upserts by id, keeps the turn node’s text only, and closes live nodes', () => {
    const replayed = replayTurn(
      T,
      log(
        ['session/state', { state: 'running', turnId: T }],
        tree(T, node(T, null, 'running', { startedAt: '2025-01-01T00:00:00.000Z' })),
        chunk(T, T, 'Let me '),
        chunk(T, T, 'look.'),
        tree(
          T,
          node('n1', T, 'pending', { argsPreview: '{"path":"a"}' }),
          node('n2', T, 'pending'),
          { ...node('n3', T, 'running'), kind: 'subtask', name: 'run_subtask', title: 'Dig' },
        ),
        tree(T, node('n1', T, 'done', { resultPreview: 'contents' })),
        tree(T, node('n2', T, 'awaiting_approval')),
        chunk(T, 'n3', 'subtask text'),
        tree(T, { ...node('n4', 'n3', 'running'), depth: 1 }),
        tree('turn_other', node('turn_other', null, 'running')),
        chunk('turn_other', 'turn_other', 'another turn'),
        ['budget/exceeded', { turnId: T, kind: 'depth', limit: 1, observed: 2 }],
      ),
    );
    assert.ok(replayed);
    assert.equal(replayed.text, 'Let me look.');
    assert.deepEqual(replayed.tree, {
      version: 1,
      nodes: [
        node(T, null, 'error', { startedAt: '2025-01-01T00:00:00.000Z' }),
        node('n1', T, 'done', { argsPreview: '{"path":"a"}', resultPreview: 'contents' }),
        node('n2', T, 'cancelled', { approval: 'cancelled' }),
        { ...node('n3', T, 'cancelled'), kind: 'subtask', name: 'run_subtask', title: 'Dig' },
        { ...node('n4', 'n3', 'cancelled'), depth: 1 },
      ],
    });
    // What the user saw, in stream order: the other turn's events are not part of it.
    assert.deepEqual(replayed.parts, [
      { type: 'text', nodeId: T, text: 'Let me look.' },
      { type: 'node', nodeId: 'n1' },
      { type: 'node', nodeId: 'n2' },
      { type: 'node', nodeId: 'n3' },
      { type: 'text', nodeId: 'n3', text: 'subtask text' },
      { type: 'node', nodeId: 'n4' },
    ]);
    assert.equal(replayed.cost, undefined, 'no cost/summary was sent');
  });

  it('keeps the turn’s cost/summary, without the fields that place it in the session', () => {
    const byModel = [
      {
        provider: 'openai',
        model: 'gpt-4.1',
        calls: 1,
        usage: { inputTokens: 3, outputTokens: 2 },
        cost: 0.5,
      },
    ];
    const replayed = replayTurn(
      T,
      log(tree(T, node(T, null, 'running')), [
        'cost/summary',
        {
          turnId: T,
          usage: { inputTokens: 3, outputTokens: 2 },
          cost: 0.5,
          currency: 'USD',
          byModel,
        },
      ]),
    );
    assert.deepEqual(replayed?.cost, {
      usage: { inputTokens: 3, outputTokens: 2 },
      cost: 0.5,
      currency: 'USD',
      byModel,
    });
  });

  it('keeps final statuses as they were', () => {
    const replayed = replayTurn(
      T,
      log(
        tree(T, node(T, null, 'running')),
        tree(T, node('n1', T, 'denied', { approval: 'rejected' })),
        tree(T, node('n2', T, 'error', { isError: true })),
        tree(T, node(T, null, 'done')),
      ),
    );
    assert.deepEqual(
      replayed?.tree.nodes.map((n) => [n.id, n.status, n.approval]),
      [
        [T, 'done', undefined],
        ['n1', 'denied', 'rejected'],
        ['n2', 'error', undefined],
      ],
    );
    assert.equal(replayed.text, '');
  });

  it('skips rows that are not valid JSON or do not match the protocol', () => {
    const good = log(tree(T, node(T, null, 'running')), chunk(T, T, 'kept'));
    const replayed = replayTurn(T, [
      { method: 'tree/update', params: '{not json' },
      { method: 'tree/update', params: 42 },
      { method: 'tree/update', params: null },
      { method: 'tree/update', params: JSON.stringify({ turnId: T, nodes: [] }) },
      {
        method: 'tree/update',
        params: JSON.stringify({ sessionId: SESSION, seq: 9, turnId: T, nodes: [{ id: 'n9' }] }),
      },
      {
        method: 'tree/update',
        params: JSON.stringify({
          sessionId: SESSION,
          seq: 10,
          turnId: T,
          nodes: [{ ...node('n8', T, 'running'), status: 'exploded' }],
        }),
      },
      { method: 'chat/chunk', params: JSON.stringify({ sessionId: SESSION, seq: 11, turnId: T }) },
      { method: 'chat/chunk', params: JSON.stringify('text') },
      ...good,
      { method: 'chat/chunk', params: JSON.stringify({ turnId: T, nodeId: T, text: 'no seq' }) },
    ]);
    assert.deepEqual(replayed, {
      text: 'kept',
      tree: { version: 1, nodes: [node(T, null, 'error')] },
      parts: [{ type: 'text', nodeId: T, text: 'kept' }],
    });
  });

  it('returns nothing when no event of the turn is left', () => {
    assert.equal(replayTurn(T, []), undefined);
    assert.equal(
      replayTurn(
        T,
        log(['session/state', { state: 'running', turnId: T }], chunk('turn_other', 'x', 'y')),
      ),
      undefined,
    );
  });

  it('after pruning: a bare turn node stands in, parents come first, unplaceable nodes are left out', () => {
    const replayed = replayTurn(
      T,
      log(
        // n1's announcement and the turn node's are gone; n2 and n3 reach the turn through n1.
        tree(T, { ...node('n2', 'n1', 'done'), depth: 1 }),
        tree(T, { ...node('n3', 'n2', 'running'), depth: 1 }),
        chunk(T, T, 'tail of the answer'),
        tree(T, { ...node('n1', T, 'running'), kind: 'subtask', name: 'run_subtask' }),
        // n5's parent n4 left no event at all; a cycle never reaches the turn either.
        tree(T, { ...node('n5', 'n4', 'done'), depth: 1 }),
        tree(T, node('c1', 'c2', 'done'), node('c2', 'c1', 'done')),
      ),
    );
    assert.ok(replayed);
    assert.equal(replayed.text, 'tail of the answer');
    assert.deepEqual(
      replayed.tree.nodes.map((n) => [n.id, n.parentId, n.status]),
      [
        [T, null, 'error'],
        ['n1', T, 'cancelled'],
        ['n2', 'n1', 'done'],
        ['n3', 'n2', 'cancelled'],
      ],
    );
    assert.deepEqual(
      replayed.parts,
      [
        { type: 'node', nodeId: 'n2' },
        { type: 'node', nodeId: 'n3' },
        { type: 'text', nodeId: T, text: 'tail of the answer' },
        { type: 'node', nodeId: 'n1' },
      ],
      'parts naming nodes left out of the tree are left out too',
    );
    assert.deepEqual(replayed.tree.nodes[0], node(T, null, 'error'));
  });
});

describe('store: markInterruptedTurns keeps the partial answer', () => {
  afterEach(removeScratchDirs);

  it('stores the folded text and tree with the interrupted turn, as session/load returns them', () => {
    const store = openStore(scratchDir());
    const { sessionId } = store.createSession(newSession());
    store.appendUserMessage(sessionId, T, 'question');
    let seq = 0;
    const append = (method: string, params: Record<string, unknown>) =>
      store.appendEvent(sessionId, ++seq, method, { ...params, sessionId, seq });
    append('session/state', { state: 'running', turnId: T });
    append('tree/update', { turnId: T, nodes: [node(T, null, 'running')] });
    append('chat/chunk', { turnId: T, nodeId: T, text: 'Half an ' });
    append('tree/update', { turnId: T, nodes: [node('n1', T, 'running')] });
    append('chat/chunk', { turnId: T, nodeId: T, text: 'answer' });

    assert.deepEqual(store.markInterruptedTurns(), [T]);
    const messages = store.loadSession(sessionId)!.messages;
    assert.deepEqual(
      messages.map((m) => [m.role, m.content, m.status]),
      [
        ['user', 'question', 'interrupted'],
        ['assistant', 'Half an answer', 'interrupted'],
      ],
    );
    assert.deepEqual(messages[1]!.tree, {
      version: 1,
      nodes: [node(T, null, 'error'), node('n1', T, 'cancelled')],
    });
    // The partial answer is history for the next turn, like a cancelled turn's.
    assert.deepEqual(store.historyForNextTurn(sessionId, 1000), [
      { role: 'user', content: 'question' },
      { role: 'assistant', content: 'Half an answer' },
    ]);
    assert.deepEqual(store.markInterruptedTurns(), [], 'recovered once');
    assert.equal(store.loadSession(sessionId)!.messages.length, 2);
    store.close();
  });

  it('rebuilds from what retention left of the log', () => {
    const store = openStore(scratchDir(), { eventRetention: 10 });
    const { sessionId } = store.createSession(newSession());
    store.appendUserMessage(sessionId, T, 'long one');
    let seq = 0;
    const append = (method: string, params: Record<string, unknown>) =>
      store.appendEvent(sessionId, ++seq, method, { ...params, sessionId, seq });
    append('tree/update', { turnId: T, nodes: [node(T, null, 'running')] });
    for (let i = 0; i < EVENT_PRUNE_BATCH; i++)
      append('chat/chunk', { turnId: T, nodeId: T, text: `${i} ` });
    assert.ok('beyondRetention' in store.eventsSince(sessionId, 0), 'the start was pruned');
    // Another connection sees the events once committed (at the latest when this pass ends).
    store.commitPending();

    const db = rawDb(store.path);
    const left = db
      .prepare(`SELECT params FROM events WHERE session_id = ? ORDER BY seq`)
      .pluck()
      .all(sessionId) as string[];
    db.close();
    const kept = left.map((params) => (JSON.parse(params) as { text: string }).text).join('');

    store.markInterruptedTurns();
    const answer = store.loadSession(sessionId)!.messages[1]!;
    assert.ok(kept.endsWith(`${EVENT_PRUNE_BATCH - 1} `) && !kept.startsWith('0 '));
    assert.equal(answer.content, kept);
    assert.deepEqual(answer.tree, { version: 1, nodes: [node(T, null, 'error')] });
    store.close();
  });
});
