import { strict as assert } from 'node:assert';
import { SessionView, type AttachResult } from '../../src/client/index.js';
import { approvalRequest, ev, node, outline, SESSION, sessionInfo, TURN } from './builders.js';

/** A reattach callback the test answers by hand, recording every sinceSeq asked for. */
function manualReattach() {
  const calls: { sinceSeq: number; answer: (r: AttachResult) => void; fail: (e: Error) => void }[] =
    [];
  const reattach = (sinceSeq: number) =>
    new Promise<AttachResult>((answer, fail) => calls.push({ sinceSeq, answer, fail }));
  return { calls, reattach };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

function shape(view: SessionView): string[] {
  return outline(view.tree.roots(), (id) => view.tree.children(id));
}

describe('SessionView: seq order', () => {
  it('applies events in seq order and ignores duplicates (seq <= last)', () => {
    const view = new SessionView(SESSION);
    view.receive(ev.tree(1, [node('t', null)]));
    view.receive(ev.chunk(2, 'Hello'));
    view.receive(ev.chunk(2, 'Hello'));
    view.receive(ev.chunk(3, ', world'));
    view.receive(ev.chunk(1, 'stale'));
    assert.equal(view.turnText(), 'Hello, world');
    assert.equal(view.lastSeq, 3);
  });

  it('on a gap, holds later events and re-attaches with sinceSeq = last applied seq', async () => {
    const { calls, reattach } = manualReattach();
    const view = new SessionView(SESSION, { reattach });
    const gaps: unknown[] = [];
    view.on('gap', (g) => gaps.push(g));
    view.receive(ev.tree(1, [node('t', null)]));
    view.receive(ev.chunk(2, 'one '));
    view.receive(ev.chunk(5, 'four'));
    view.receive(ev.chunk(6, ' five'));
    assert.deepEqual(
      calls.map((c) => c.sinceSeq),
      [2],
      'one re-attach from seq 2, not one per held event',
    );
    assert.deepEqual(gaps, [{ reason: 'seq', sinceSeq: 2, nextSeen: 5 }]);
    assert.equal(view.turnText(), 'one ', 'nothing after the gap is shown yet');
    assert.equal(view.resyncing, true);

    calls[0]!.answer({
      session: sessionInfo({ state: 'running' }),
      role: 'controller',
      lastSeq: 6,
      replay: 'events',
    });
    await flush();
    // The daemon replays 3..6 with their original seq; 5 and 6 are duplicates of held events.
    view.receive(ev.chunk(3, 'two '));
    view.receive(ev.chunk(4, 'three '));
    view.receive(ev.chunk(5, 'four'));
    view.receive(ev.chunk(6, ' five'));
    assert.equal(view.turnText(), 'one two three four five');
    assert.equal(view.lastSeq, 6);
    assert.equal(view.resyncing, false);
    view.receive(ev.chunk(8, '!'));
    assert.deepEqual(
      calls.map((c) => c.sinceSeq),
      [2, 6],
      'a new gap after the replay is a new re-attach',
    );
  });

  it('a snapshot with parts keeps the stream order; live events extend it (sessions.md#stored-parts)', async () => {
    const { calls, reattach } = manualReattach();
    const view = new SessionView(SESSION, { reattach });
    view.receive(ev.tree(1, [node('t', null)]));
    view.receive(ev.tree(3, [node('x', 't')]));
    calls[0]!.answer({
      session: sessionInfo({ state: 'running' }),
      role: 'controller',
      lastSeq: 4,
      replay: 'snapshot',
      snapshot: {
        turnId: TURN,
        tree: { version: 1, nodes: [node('t', null), node('a', 't')] },
        texts: [{ nodeId: 't', text: 'Looking. Found it.' }],
        parts: [
          { type: 'text', nodeId: 't', text: 'Looking. ' },
          { type: 'node', nodeId: 'a' },
          { type: 'text', nodeId: 't', text: 'Found it.' },
        ],
        pendingApprovals: [],
      },
    });
    await flush();
    view.receive(ev.tree(5, [node('b', 't')]));
    assert.deepEqual(view.transcript.parts, [
      { type: 'text', nodeId: 't', text: 'Looking. ' },
      { type: 'node', nodeId: 'a' },
      { type: 'text', nodeId: 't', text: 'Found it.' },
      { type: 'node', nodeId: 'b' },
    ]);
  });

  it('a replay too old for events comes as a snapshot: the tree is reset from it', async () => {
    const { calls, reattach } = manualReattach();
    const view = new SessionView(SESSION, { reattach });
    const resets: unknown[] = [];
    view.on('reset', (r) => resets.push(r));
    view.receive(ev.tree(1, [node('t', null), node('stale', 't')]));
    view.receive(ev.chunk(2, 'partial'));
    view.approvals.add(approvalRequest('old'));
    view.receive(ev.tree(40, [node('late', 't')]));
    view.receive(ev.tree(51, [node('after', 't')]));
    view.receive(ev.chunk(52, ' and more'));
    assert.equal(calls[0]?.sinceSeq, 2);

    calls[0]!.answer({
      session: sessionInfo({ state: 'requires_action', permissionMode: 'auto' }),
      role: 'controller',
      lastSeq: 50,
      replay: 'snapshot',
      snapshot: {
        turnId: TURN,
        tree: {
          version: 1,
          nodes: [node('t', null), node('a', 't', { status: 'done' }), node('b', 't')],
        },
        texts: [{ nodeId: 't', text: 'The whole text so far' }],
        pendingApprovals: [approvalRequest('now')],
      },
    });
    await flush();
    assert.deepEqual(
      shape(view),
      ['t', '  a', '  b', '  after'],
      'seq 40 is covered by the snapshot, 51 follows it',
    );
    assert.equal(view.tree.get('a')?.status, 'done');
    assert.equal(view.lastSeq, 52);
    assert.equal(
      view.turnText(),
      'The whole text so far and more',
      'text from the snapshot, then live chunks',
    );
    assert.equal(view.state, 'requires_action');
    assert.equal(view.permissionMode, 'auto');
    assert.deepEqual(
      view.approvals.pending().map((a) => a.request.toolCallId),
      ['now'],
    );
    assert.deepEqual(resets, [{ turnId: TURN }]);
  });

  it('a tree node under an unknown parent counts as missed events: re-attach from the last seq', () => {
    const { calls, reattach } = manualReattach();
    const view = new SessionView(SESSION, { reattach });
    const gaps: unknown[] = [];
    view.on('gap', (g) => gaps.push(g));
    view.receive(ev.tree(1, [node('t', null)]));
    view.receive(ev.tree(2, [node('child', 'never-announced')]));
    assert.deepEqual(gaps, [{ reason: 'unknownParent', sinceSeq: 2, nextSeen: 2 }]);
    assert.deepEqual(
      calls.map((c) => c.sinceSeq),
      [2],
    );
    assert.deepEqual(
      view.tree.detached().map((n) => n.id),
      ['child'],
      'held meanwhile, not dropped',
    );
  });

  it('holds events until the first attach result gives the baseline', () => {
    const view = new SessionView(SESSION, { lastSeq: undefined });
    view.receive(ev.chunk(11, 'live'));
    assert.equal(view.turnText(), '');
    view.applyAttach({
      session: sessionInfo({ state: 'running' }),
      role: 'observer',
      lastSeq: 10,
      replay: 'none',
      snapshot: {
        turnId: TURN,
        tree: { version: 1, nodes: [node('t', null)] },
        pendingApprovals: [],
      },
    });
    assert.deepEqual(shape(view), ['t']);
    assert.equal(view.turnText(), 'live');
    assert.equal(view.lastSeq, 11);
    assert.equal(view.state, 'running');
  });

  it('a failed re-attach is reported and the next gap tries again', async () => {
    const { calls, reattach } = manualReattach();
    const view = new SessionView(SESSION, { reattach });
    const errors: Error[] = [];
    view.on('error', (e) => errors.push(e));
    view.receive(ev.chunk(3, 'x'));
    calls[0]!.fail(new Error('socket closed'));
    await flush();
    assert.equal(errors[0]?.message, 'socket closed');
    view.receive(ev.chunk(4, 'y'));
    assert.deepEqual(
      calls.map((c) => c.sinceSeq),
      [0, 0],
    );
  });

  it('ignores events of other sessions', () => {
    const view = new SessionView('other');
    view.receive(ev.chunk(1, 'not mine'));
    assert.equal(view.lastSeq, 0);
    assert.equal(view.turnText(), '');
  });
});

describe('SessionView: what a client shows', () => {
  it('turn state, its end, and the permission mode', () => {
    const view = new SessionView(SESSION);
    const states: string[] = [];
    const ends: unknown[] = [];
    const modes: string[] = [];
    view.on('state', (s) => states.push(s.state));
    view.on('turnEnded', (e) => ends.push([e.turnId, e.stopReason]));
    view.on('permissionMode', (m) => modes.push(m));
    view.receive(ev.state(1, 'running'));
    view.receive(ev.state(2, 'requires_action'));
    view.receive(ev.update(3, { permissionMode: 'plan' }));
    view.receive(ev.update(4, { title: 'renamed' }));
    view.receive(
      ev.state(5, 'idle', { stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 2 } }),
    );
    assert.deepEqual(states, ['running', 'requires_action', 'idle']);
    assert.deepEqual(ends, [[TURN, 'end_turn']]);
    assert.deepEqual(modes, ['plan'], 'a title change is not a mode change');
    assert.equal(view.permissionMode, 'plan');
    assert.equal(view.title, 'renamed');
    assert.equal(view.state, 'idle');
    assert.equal(view.lastStateEvent?.stopReason, 'end_turn');
  });

  it('plan entries, budget notices and the cost summary', () => {
    const view = new SessionView(SESSION);
    const seen: string[] = [];
    view.on('plan', () => seen.push('plan'));
    view.on('budget', (b) => seen.push(`budget:${b.kind}`));
    view.on('cost', (c) => seen.push(`cost:${c.cost}`));
    view.receive(ev.plan(1, [{ id: 'p1', content: 'Read the code', status: 'in_progress' }]));
    view.receive(
      ev.plan(2, [
        { id: 'p1', content: 'Read the code', status: 'completed' },
        { id: 'p2', content: 'Fix it', status: 'pending' },
      ]),
    );
    view.receive(ev.budget(3, { kind: 'depth', limit: 3, observed: 4 }));
    view.receive(ev.cost(4, 0.25));
    assert.deepEqual(seen, ['plan', 'plan', 'budget:depth', 'cost:0.25']);
    assert.deepEqual(
      view.plan.map((e) => `${e.id}:${e.status}`),
      ['p1:completed', 'p2:pending'],
      'the whole list replaces the previous one',
    );
    assert.deepEqual(
      view.budgetNotices.map((b) => [b.kind, b.limit, b.observed]),
      [['depth', 3, 4]],
    );
    assert.equal(view.cost?.cost, 0.25);
    assert.equal(view.costOf(TURN)?.usage.inputTokens, 100);
  });

  it('a plan from session/load shows until a plan/update replaces it, and never replaces a newer one', () => {
    const stored = [{ id: 'p1', content: 'Read the code', status: 'completed' as const }];
    const view = new SessionView(SESSION);
    view.seedPlan(stored);
    assert.deepEqual(view.plan, stored);
    const live = [{ id: 'p2', content: 'Fix it', status: 'in_progress' as const }];
    view.receive(ev.plan(1, live));
    assert.deepEqual(view.plan, live);
    view.seedPlan(stored);
    assert.deepEqual(view.plan, live, 'the load was older than the plan/update already applied');
  });

  it('a new turn starts with an empty tree and text', () => {
    const view = new SessionView(SESSION);
    view.receive(ev.tree(1, [node('t', null)]));
    view.receive(ev.chunk(2, 'first answer'));
    const started: string[] = [];
    view.on('turnStarted', (t) => started.push(t.turnId));
    view.receive(ev.state(3, 'running', { turnId: 'turn_2' }));
    view.receive(ev.tree(4, [node('t2', null)], 'turn_2'));
    assert.deepEqual(started, ['turn_2']);
    assert.equal(view.turnId, 'turn_2');
    assert.deepEqual(shape(view), ['t2']);
    assert.equal(view.turnText(), '');
  });

  it('tool/approvalResolved closes the card in the queue', () => {
    const view = new SessionView(SESSION);
    view.approvals.add(approvalRequest('c1'));
    view.approvals.add(approvalRequest('c2'));
    view.receive(ev.resolved(1, 'c1', { decidedBy: 'client_other', decision: 'allow' }));
    assert.deepEqual(
      view.approvals.pending().map((a) => a.request.toolCallId),
      ['c2'],
    );
  });

  it('reports its state for _arbor/conformance/state', () => {
    const view = new SessionView(SESSION);
    view.receive(ev.update(1, { permissionMode: 'auto' }));
    view.receive(ev.tree(2, [node('t', null), node('a', 't')]));
    view.receive(ev.chunk(3, 'Done.'));
    view.receive(ev.state(4, 'requires_action'));
    view.receive(
      ev.plan(5, [
        { id: 'p1', content: 'Read', status: 'in_progress' },
        { id: 'p2', content: 'Fix', status: 'pending' },
      ]),
    );
    // The whole list each time: the second replaces the first (plan-whole-list).
    view.receive(ev.plan(6, [{ id: 'p2', content: 'Fix', status: 'in_progress' }]));
    view.approvals.add(approvalRequest('c9'));
    assert.deepEqual(view.conformanceState(), {
      sessionId: SESSION,
      lastSeq: 6,
      state: 'requires_action',
      permissionMode: 'auto',
      tree: { version: 1, nodes: [node('t', null), node('a', 't')] },
      pendingApprovals: ['c9'],
      pendingQuestions: [],
      text: 'Done.',
      plan: [{ id: 'p2', content: 'Fix', status: 'in_progress' }],
    });
  });
});
