/**
 * How a client applies a session's events (turns.md#ordering, tree.md,
 * sessions.md): tree upserts in order, orphans as missed events, snapshots
 * that replace the tree, partial session updates, seq per session, plan
 * events in seq, a gap as a new turn starts, a cancelled turn, and members it
 * does not know. Most are observed through `_arbor/conformance/state`; the
 * re-attach ones on the wire.
 */
import { Methods } from '@arbor/protocol';
import {
  DeliberateResult,
  hasCapability,
  RpcError,
  timeouts,
  type Connection,
  type Incoming,
  type JsonObject,
} from '../../harness/connection.js';
import { Abort, type Scenario } from '../scenario.js';
import type { ClientContext } from './context.js';
import {
  clientState,
  describe,
  judgeArborRange,
  ready,
  requireClientCapability,
  settledState,
  sleep,
} from './scenarios.js';

const TURN = 'turn-1';

type Node = JsonObject & { id: string };

const node = (
  id: string,
  parentId: string | null,
  status: string,
  extra: JsonObject = {},
): Node => ({
  id,
  parentId,
  kind: parentId === null ? 'turn' : 'tool',
  name: parentId === null ? 'turn' : 'read_file',
  status,
  depth: 0,
  ...extra,
});

const nodesOf = (state: JsonObject): Node[] =>
  ((state.tree as JsonObject | undefined)?.nodes ?? []) as Node[];

const isAttach = (m: Incoming): boolean =>
  m.kind === 'request' && (m.message as JsonObject).method === Methods.SessionAttach.method;

const sinceSeqOf = (m: Incoming | undefined): unknown =>
  ((m?.message as JsonObject | undefined)?.params as JsonObject | undefined)?.sinceSeq;

function startTurn(ctx: ClientContext, conn: Connection, turnId = TURN): void {
  ctx.emit(conn, Methods.SessionState.method, { state: 'running', turnId });
  ctx.emit(conn, Methods.TreeUpdate.method, { turnId, nodes: [node('t', null, 'running')] });
}

/** Answers re-attaches with `answer(sinceSeq)`; the first re-attach's request is returned by `next`. */
function onReattach(
  ctx: ClientContext,
  conn: Connection,
  answer: (sinceSeq: number) => JsonObject | DeliberateResult,
): void {
  conn.handle(Methods.SessionAttach.method, (params) => {
    const p = params as JsonObject;
    if (typeof p.sinceSeq !== 'number')
      return {
        session: ctx.sessionInfo(),
        role: p.role ?? 'controller',
        lastSeq: ctx.lastSeq,
        replay: 'none',
      };
    return answer(p.sinceSeq);
  });
}

export const unknownSession: Scenario<ClientContext> = {
  id: 'client-state-unknown-session',
  role: 'client',
  title: '_arbor/conformance/state for a session the client does not know',
  checks: ['client.conformance.unknown-session', 'client.errors.arbor-range'],
  async run(ctx) {
    const check = 'client.conformance.unknown-session';
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.conformance');
    const answer = await conn.request(
      Methods.ConformanceState.method,
      { sessionId: 'conformance-no-such-session' },
      { noResponseCheck: check },
    );
    if (answer)
      ctx.recorder.expect(
        check,
        answer.error?.code === -33004,
        `state of an unknown session got ${describe(answer)}, expected -33004`,
      );
    judgeArborRange(ctx, conn);
  },
};

export const stateAfterApplied: Scenario<ClientContext> = {
  id: 'client-state-after-applied',
  role: 'client',
  title: '_arbor/conformance/state sent right behind events reflects them',
  checks: ['client.conformance.state-after-applied'],
  async run(ctx) {
    const check = 'client.conformance.state-after-applied';
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.conformance');
    startTurn(ctx, conn);
    ctx.emit(conn, Methods.ChatChunk.method, { turnId: TURN, nodeId: 't', text: 'at once' });
    // No pause: the request follows the events on the wire.
    const state = await clientState(ctx, conn, check);
    if (!state) return;
    ctx.recorder.expect(
      check,
      state.lastSeq === ctx.lastSeq && state.text === 'at once' && state.state === 'running',
      `right after seq ${ctx.lastSeq} the client answered lastSeq ${String(state.lastSeq)}, state ${String(state.state)}, text ${JSON.stringify(state.text)}`,
    );
  },
};

export const treeApplyInOrder: Scenario<ClientContext> = {
  id: 'client-tree-order',
  role: 'client',
  title: 'one tree/update naming a node twice: the later upsert wins',
  checks: ['client.tree.apply-in-order'],
  async run(ctx) {
    const check = 'client.tree.apply-in-order';
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.conformance');
    startTurn(ctx, conn);
    ctx.emit(conn, Methods.TreeUpdate.method, {
      turnId: TURN,
      nodes: [
        node('a', 't', 'running'),
        node('a', 't', 'done', { resultPreview: 'second upsert' }),
      ],
    });
    await sleep(50);
    const state = await clientState(ctx, conn, check);
    if (!state) return;
    const a = nodesOf(state).find((n) => n.id === 'a');
    ctx.recorder.expect(
      check,
      a?.status === 'done' && a.resultPreview === 'second upsert',
      `after [a running, a done] in one update the client shows a as ${JSON.stringify(a)}`,
    );
  },
};

export const unknownParent: Scenario<ClientContext> = {
  id: 'client-tree-unknown-parent',
  role: 'client',
  title: 'a node under a parent the client never saw makes it re-attach',
  checks: ['client.tree.unknown-parent-reattach'],
  async run(ctx) {
    const check = 'client.tree.unknown-parent-reattach';
    const conn = await ready(ctx);
    onReattach(ctx, conn, () => ({
      session: ctx.sessionInfo(),
      role: 'controller',
      lastSeq: ctx.lastSeq,
      replay: 'events',
    }));
    startTurn(ctx, conn);
    const before = ctx.lastSeq;
    const from = conn.messages.length;
    const orphanSeq = ctx.emit(conn, Methods.TreeUpdate.method, {
      turnId: TURN,
      nodes: [node('orphan', 'never-announced', 'running')],
    });
    const reattach = await conn.waitFor(isAttach, timeouts.requestMs, from);
    const since = sinceSeqOf(reattach);
    ctx.recorder.expect(
      check,
      typeof since === 'number' && since >= before && since <= orphanSeq,
      reattach
        ? `the client re-attached with sinceSeq ${JSON.stringify(since)}, expected ${before}`
        : 'the client did not re-attach after a node whose parent it never received',
    );
  },
};

export const snapshotReplay: Scenario<ClientContext> = {
  id: 'client-snapshot-replay',
  role: 'client',
  title: "a re-attach answered with replay: snapshot replaces the running turn's tree",
  checks: ['client.sessions.snapshot-replaces-tree'],
  async run(ctx) {
    const check = 'client.sessions.snapshot-replaces-tree';
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.conformance');
    startTurn(ctx, conn);
    ctx.emit(conn, Methods.TreeUpdate.method, {
      turnId: TURN,
      nodes: [node('gone', 't', 'running')],
    });
    // The daemon's replay buffer no longer reaches back: it answers with a snapshot.
    const snapshotSeq = ctx.lastSeq + 5;
    onReattach(ctx, conn, () => {
      ctx.lastSeq = snapshotSeq;
      return {
        session: { ...ctx.sessionInfo(), state: 'running' },
        role: 'controller',
        lastSeq: snapshotSeq,
        replay: 'snapshot',
        snapshot: {
          turnId: TURN,
          tree: { version: 1, nodes: [node('t', null, 'running'), node('kept', 't', 'done')] },
          texts: [{ nodeId: 't', text: 'from the snapshot' }],
          pendingApprovals: [],
        },
      };
    });
    const from = conn.messages.length;
    ctx.emit(
      conn,
      Methods.TreeUpdate.method,
      { turnId: TURN, nodes: [node('after-gap', 't', 'running')] },
      ctx.lastSeq + 2,
    );
    if (!(await conn.waitFor(isAttach, timeouts.requestMs, from))) {
      ctx.recorder.fail(check, 'the client did not re-attach after a seq gap');
      return;
    }
    const state = await settledState(ctx, conn, check, (s) => s.lastSeq === snapshotSeq);
    if (!state) return;
    const ids = nodesOf(state)
      .map((n) => n.id)
      .sort();
    ctx.recorder.expect(
      check,
      JSON.stringify(ids) === JSON.stringify(['kept', 't']) && state.lastSeq === snapshotSeq,
      `after the snapshot (nodes kept, t; lastSeq ${snapshotSeq}) the client shows nodes ${JSON.stringify(ids)} and lastSeq ${String(state.lastSeq)}`,
    );
  },
};

export const sessionUpdate: Scenario<ClientContext> = {
  id: 'client-session-update',
  role: 'client',
  title: 'session/update: present fields are applied, absent ones keep their value',
  checks: ['client.sessions.update-applies'],
  async run(ctx) {
    const check = 'client.sessions.update-applies';
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.conformance');
    ctx.emit(conn, Methods.SessionUpdate.method, { permissionMode: 'plan' });
    ctx.emit(conn, Methods.SessionUpdate.method, { title: 'renamed by the daemon' });
    await sleep(50);
    const state = await clientState(ctx, conn, check);
    if (!state) return;
    ctx.recorder.expect(
      check,
      state.permissionMode === 'plan',
      `after session/update {permissionMode: plan} then {title} the client shows permissionMode ${JSON.stringify(state.permissionMode)}`,
    );
  },
};

/**
 * True when no re-attach came from `from` on: a probe request sent behind the
 * events is answered (so the client has read them), then 200 ms stay quiet.
 */
async function noReattach(conn: Connection, from: number, check: string): Promise<boolean> {
  await conn.request('conformance/afterEvents', {}, { noResponseCheck: check });
  return conn.quietFor(200, isAttach, from);
}

export const seqPerSession: Scenario<ClientContext> = {
  id: 'client-seq-per-session',
  role: 'client',
  title: "an event of another session (its own seq) is no gap in this session's seq",
  checks: ['client.events.seq-per-session'],
  async run(ctx) {
    const check = 'client.events.seq-per-session';
    const conn = await ready(ctx);
    startTurn(ctx, conn);
    const from = conn.messages.length;
    conn.notify(Methods.SessionState.method, {
      sessionId: 'conformance-other-session',
      seq: ctx.lastSeq + 40,
      state: 'running',
      turnId: 'turn-other',
    });
    ctx.emit(conn, Methods.ChatChunk.method, { turnId: TURN, nodeId: 't', text: 'mine' });
    if (!(await noReattach(conn, from, check))) {
      ctx.recorder.fail(check, "the client re-attached after another session's seq");
      return;
    }
    if (!hasCapability(conn.negotiated, 'client.conformance')) {
      ctx.recorder.pass(check);
      return;
    }
    const state = await clientState(ctx, conn, check);
    if (!state) return;
    ctx.recorder.expect(
      check,
      state.lastSeq === ctx.lastSeq && state.text === 'mine',
      `after its own seq ${ctx.lastSeq} the client shows lastSeq ${String(state.lastSeq)} and text ${JSON.stringify(state.text)}`,
    );
  },
};

export const planSeq: Scenario<ClientContext> = {
  id: 'client-plan-seq',
  role: 'client',
  title: 'plan/update counts in seq: the next event is no gap',
  checks: ['client.plan.seq-counted'],
  async run(ctx) {
    const check = 'client.plan.seq-counted';
    const conn = await ready(ctx);
    startTurn(ctx, conn);
    ctx.emit(conn, Methods.PlanUpdate.method, {
      turnId: TURN,
      entries: [
        { id: 'p1', content: 'Read the file', status: 'completed' },
        { id: 'p2', content: 'Fix the bug', status: 'in_progress' },
      ],
    });
    const from = conn.messages.length;
    ctx.emit(conn, Methods.ChatChunk.method, { turnId: TURN, nodeId: 't', text: 'planned' });
    if (!(await noReattach(conn, from, check))) {
      ctx.recorder.fail(
        check,
        'the client re-attached after plan/update: it did not count its seq',
      );
      return;
    }
    if (!hasCapability(conn.negotiated, 'client.conformance')) {
      ctx.recorder.pass(check);
      return;
    }
    const state = await clientState(ctx, conn, check);
    if (!state) return;
    ctx.recorder.expect(
      check,
      state.lastSeq === ctx.lastSeq,
      `after plan/update and one more event the client shows lastSeq ${String(state.lastSeq)}, expected ${ctx.lastSeq}`,
    );
  },
};

export const planReplace: Scenario<ClientContext> = {
  id: 'client-plan-replace',
  role: 'client',
  title:
    'a plan/update with fewer entries, in another order, replaces the plan; the plan outlives its turn',
  checks: ['client.plan.whole-list', 'client.plan.session-scoped'],
  async run(ctx) {
    const checks = ['client.plan.whole-list', 'client.plan.session-scoped'] as const;
    const skip = (why: string): void => checks.forEach((check) => ctx.recorder.skip(check, why));
    const conn = await ready(ctx);
    if (!hasCapability(conn.negotiated, 'client.conformance')) {
      skip('the client does not advertise capabilities.conformance');
      return;
    }
    startTurn(ctx, conn);
    const from = conn.messages.length;
    ctx.emit(conn, Methods.PlanUpdate.method, {
      turnId: TURN,
      entries: [
        { id: 'p1', content: 'Read the file', status: 'in_progress' },
        { id: 'p2', content: 'Write the test', status: 'pending' },
        { id: 'p3', content: 'Fix the bug', status: 'pending' },
      ],
    });
    const replacement = [
      { id: 'p3', content: 'Fix the bug first', status: 'in_progress' },
      { id: 'p1', content: 'Read the file', status: 'completed' },
    ];
    ctx.emit(conn, Methods.PlanUpdate.method, { turnId: TURN, entries: replacement });
    // A client that takes a plan/update for a gap re-attaches: client.plan.seq-counted judges that.
    if (!(await noReattach(conn, from, checks[0]))) {
      skip('the client re-attached after a plan/update (see client.plan.seq-counted)');
      return;
    }
    // Once every event sent is applied: judging an earlier view is state-after-applied's job.
    const shownPlan = async (check: string): Promise<string | undefined> => {
      const state = await settledState(ctx, conn, check, (s) => s.lastSeq === ctx.lastSeq);
      if (!state) return undefined;
      if (state.plan === undefined) {
        skip('the client reports no plan in _arbor/conformance/state');
        return undefined;
      }
      const plan = state.plan as { id: string; content: string; status: string }[];
      return JSON.stringify(plan.map(({ id, content, status }) => ({ id, content, status })));
    };
    const expected = JSON.stringify(replacement);
    const replaced = await shownPlan(checks[0]);
    if (replaced === undefined) return;
    ctx.recorder.expect(
      checks[0],
      replaced === expected,
      `after two plan/updates the client shows the plan ${replaced}, expected the second list exactly: ${expected}`,
    );
    ctx.emit(conn, Methods.SessionState.method, { state: 'idle', stopReason: 'end_turn' });
    startTurn(ctx, conn, 'turn-2');
    const kept = await shownPlan(checks[1]);
    if (kept === undefined) return;
    // Judged against what the client showed before, so a wrong replacement is whole-list's alone.
    ctx.recorder.expect(
      checks[1],
      kept === replaced,
      `a new turn began without a plan/update and the client shows the plan ${kept}, where it showed ${replaced} before`,
    );
  },
};

export const gapNewTurn: Scenario<ClientContext> = {
  id: 'client-gap-new-turn',
  role: 'client',
  title: "a new turn's first event is lost: the client re-attaches, then shows the new turn only",
  checks: ['client.driver.gap-new-turn'],
  async run(ctx) {
    const check = 'client.driver.gap-new-turn';
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.conformance');
    startTurn(ctx, conn);
    ctx.emit(conn, Methods.ChatChunk.method, { turnId: TURN, nodeId: 't', text: 'first turn' });
    ctx.emit(conn, Methods.TreeUpdate.method, { turnId: TURN, nodes: [node('t', null, 'done')] });
    ctx.emit(conn, Methods.SessionState.method, {
      state: 'idle',
      turnId: TURN,
      stopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    const base = ctx.lastSeq;
    const next: [string, JsonObject][] = [
      [Methods.SessionState.method, { state: 'running', turnId: 'turn-2' }],
      [Methods.TreeUpdate.method, { turnId: 'turn-2', nodes: [node('t2', null, 'running')] }],
      [Methods.ChatChunk.method, { turnId: 'turn-2', nodeId: 't2', text: 'second turn' }],
    ];
    let replayed = false;
    onReattach(ctx, conn, (sinceSeq) => {
      if (!replayed) {
        replayed = true;
        setTimeout(() => {
          for (const [i, [method, body]] of next.entries())
            if (base + i + 1 > sinceSeq) ctx.emit(conn, method, body, base + i + 1);
        }, 10);
      }
      return {
        session: ctx.sessionInfo(),
        role: 'controller',
        lastSeq: base + next.length,
        replay: 'events',
      };
    });
    const from = conn.messages.length;
    // The new turn's running state (base+1) is lost; its tree/update (base+2) shows the gap.
    const [method, body] = next[1]!;
    ctx.emit(conn, method, body, base + 2);
    const reattach = await conn.waitFor(isAttach, timeouts.requestMs, from);
    const state = await settledState(ctx, conn, check, (s) => s.lastSeq === base + next.length);
    if (!state) return;
    const ids = nodesOf(state).map((n) => n.id);
    const problems: string[] = [];
    if (sinceSeqOf(reattach) !== base)
      problems.push(
        reattach
          ? `re-attached with sinceSeq ${JSON.stringify(sinceSeqOf(reattach))}, expected ${base}`
          : `no re-attach after seq jumped from ${base} to ${base + 2}`,
      );
    if (state.lastSeq !== base + next.length)
      problems.push(`lastSeq ${String(state.lastSeq)}, expected ${base + next.length}`);
    if (state.state !== 'running') problems.push(`state ${String(state.state)}, expected running`);
    if (state.text !== 'second turn') problems.push(`text ${JSON.stringify(state.text)}`);
    if (JSON.stringify(ids) !== '["t2"]')
      problems.push(`tree ${JSON.stringify(ids)}, expected [t2]`);
    ctx.recorder.expect(check, problems.length === 0, problems.join('; '));
  },
};

export const cancelledTurn: Scenario<ClientContext> = {
  id: 'client-cancelled-turn',
  role: 'client',
  title: 'a cancelled turn: its final tree and partial text stay; only idle ends it',
  checks: ['client.turns.cancelled-tree'],
  async run(ctx) {
    const check = 'client.turns.cancelled-tree';
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.conformance');
    startTurn(ctx, conn);
    ctx.emit(conn, Methods.TreeUpdate.method, { turnId: TURN, nodes: [node('x', 't', 'running')] });
    // Chunk boundaries carry no meaning: "Par" + "tial " + "answ" + "er".
    for (const text of ['Par', 'tial ', 'answ', 'er'])
      ctx.emit(conn, Methods.ChatChunk.method, { turnId: TURN, nodeId: 't', text });
    ctx.emit(conn, Methods.TreeUpdate.method, {
      turnId: TURN,
      nodes: [node('x', 't', 'cancelled'), node('t', null, 'cancelled')],
    });
    const usage = { inputTokens: 5, outputTokens: 2 };
    ctx.emit(conn, Methods.CostSummary.method, {
      turnId: TURN,
      usage,
      cost: 0,
      currency: 'USD',
      byModel: [{ provider: 'scripted', model: 'scripted', calls: 1, usage, cost: 0 }],
    });
    await sleep(50);
    const during = await clientState(ctx, conn, check);
    if (!during) return;
    if (during.state === 'idle') {
      ctx.recorder.fail(
        check,
        'the client shows the turn ended (idle) before its idle session/state: on final node statuses or cost/summary',
      );
      return;
    }
    ctx.emit(conn, Methods.SessionState.method, {
      state: 'idle',
      turnId: TURN,
      stopReason: 'cancelled',
      usage,
    });
    await sleep(50);
    const after = await clientState(ctx, conn, check);
    if (!after) return;
    const statuses = Object.fromEntries(nodesOf(after).map((n) => [n.id, n.status]));
    ctx.recorder.expect(
      check,
      after.state === 'idle' &&
        after.text === 'Partial answer' &&
        statuses.t === 'cancelled' &&
        statuses.x === 'cancelled' &&
        Object.keys(statuses).length === 2,
      `after the cancelled turn the client shows state ${String(after.state)}, text ${JSON.stringify(after.text)}, nodes ${JSON.stringify(statuses)}`,
    );
  },
};

export const unknownFields: Scenario<ClientContext> = {
  id: 'client-unknown-fields',
  role: 'client',
  title: 'unknown members, unknown capability fields and `_meta` on every object change nothing',
  checks: ['client.versioning.unknown-fields-ignored'],
  async run(ctx) {
    const check = 'client.versioning.unknown-fields-ignored';
    const meta = { 'dev.conformance/trace': 'ignore-me' };
    const conn = await ctx.accept();
    await ctx.handshake(conn, {
      initializeResult: (result) => ({
        ...result,
        futureMember: { nested: true },
        _meta: meta,
        capabilities: {
          ...(result.capabilities as JsonObject),
          conformanceFuture: { level: 3 },
          sessions: { persistence: false, futureFlag: true, _meta: meta },
          _meta: meta,
        },
      }),
    });
    requireClientCapability(conn, 'client.conformance');
    ctx.emit(conn, Methods.SessionState.method, {
      state: 'running',
      turnId: TURN,
      futureField: 1,
      _meta: meta,
    });
    ctx.emit(conn, Methods.TreeUpdate.method, {
      turnId: TURN,
      _meta: meta,
      nodes: [node('t', null, 'running', { futureNodeField: 'x', _meta: meta })],
    });
    ctx.emit(conn, Methods.ChatChunk.method, {
      turnId: TURN,
      nodeId: 't',
      text: 'still read',
      _meta: { 'dev.conformance/hint': 'drop-this-chunk' },
    });
    await sleep(50);
    const answer = await conn.request(
      Methods.ConformanceState.method,
      { sessionId: ctx.sessionId, _meta: meta },
      { noResponseCheck: check },
    );
    if (!answer) return;
    const state = (answer.result ?? {}) as JsonObject;
    const t = nodesOf(state).find((n) => n.id === 't');
    ctx.recorder.expect(
      check,
      state.state === 'running' &&
        state.text === 'still read' &&
        t?.status === 'running' &&
        state.lastSeq === ctx.lastSeq,
      answer.result
        ? `with unknown members and _meta the client shows state ${String(state.state)}, text ${JSON.stringify(state.text)}, node t ${JSON.stringify(t)}, lastSeq ${String(state.lastSeq)}`
        : `_arbor/conformance/state with _meta got ${describe(answer)}`,
    );
  },
};

/** A gap in a running turn: one tree/update two seqs ahead; resolves with the re-attach, if any. */
async function gapAndReattach(ctx: ClientContext, conn: Connection): Promise<Incoming | undefined> {
  const from = conn.messages.length;
  ctx.emit(
    conn,
    Methods.TreeUpdate.method,
    { turnId: TURN, nodes: [node('after-gap', 't', 'running')] },
    ctx.lastSeq + 2,
  );
  return conn.waitFor(isAttach, timeouts.requestMs, from);
}

export const snapshotVersion: Scenario<ClientContext> = {
  id: 'client-snapshot-version',
  role: 'client',
  title: 'a replay snapshot of a tree version the client does not know is refused, not guessed',
  checks: ['client.tree.snapshot-version'],
  async run(ctx) {
    const check = 'client.tree.snapshot-version';
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.conformance');
    startTurn(ctx, conn);
    // A future layout: outside v1's schema on purpose, so sent as it is.
    onReattach(
      ctx,
      conn,
      () =>
        new DeliberateResult({
          session: { ...ctx.sessionInfo(), state: 'running' },
          role: 'controller',
          lastSeq: ctx.lastSeq + 5,
          replay: 'snapshot',
          snapshot: {
            turnId: TURN,
            tree: {
              version: 2,
              root: { id: 't', children: ['guessed'] },
              nodes: [node('t', null, 'running'), node('guessed', 't', 'done')],
            },
            pendingApprovals: [],
          },
        }),
    );
    if (!(await gapAndReattach(ctx, conn)))
      throw new Abort(
        'the client did not re-attach after a seq gap (client.events.seq-gap-reattach)',
      );
    await sleep(200);
    const state = await clientState(ctx, conn, check);
    if (!state) return;
    const ids = nodesOf(state).map((n) => n.id);
    ctx.recorder.expect(
      check,
      !ids.includes('guessed'),
      `after a snapshot of tree version 2 the client shows its nodes: ${JSON.stringify(ids)}`,
    );
  },
};

export const unknownErrorCode: Scenario<ClientContext> = {
  id: 'client-unknown-error-code',
  role: 'client',
  title: 'an error code the client does not know fails that request only',
  checks: ['client.errors.unknown-code'],
  async run(ctx) {
    const check = 'client.errors.unknown-code';
    const conn = await ready(ctx);
    startTurn(ctx, conn);
    onReattach(ctx, conn, () => {
      throw new RpcError(-32042, 'A failure this client has no name for');
    });
    if (!(await gapAndReattach(ctx, conn)))
      throw new Abort(
        'the client did not re-attach after a seq gap (client.events.seq-gap-reattach)',
      );
    await sleep(50);
    const probe = await conn.request('conformance/stillThere', {}, { noResponseCheck: check });
    if (probe) ctx.recorder.pass(check);
  },
};
