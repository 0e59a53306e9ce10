/** Replay on attach, the snapshot of a running turn, and what detaching leaves running (sessions.md). */
import { Methods } from '@arbor/protocol';
import type { Connection, Incoming, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort, Skip } from '../scenario.js';
import { type DaemonContext, describe, notes, requireSocket, sleep } from './context.js';
import { newSession } from './sessionRules.js';
import { isTurnEvent, scriptedSession, send } from './turns.js';

/** Events (notifications with a seq) of a session one client got after message index `from`. */
const eventsAfter = (
  conn: Connection,
  sessionId: string,
  from: number,
): { method: string; params: JsonObject }[] =>
  notes(conn, sessionId)
    .filter((n) => n.index > from && typeof n.params.seq === 'number')
    .map((n) => ({ method: n.method, params: n.params }));

/** A notification of the session with this seq. */
const hasSeq =
  (sessionId: string, seq: number) =>
  (m: Incoming): boolean => {
    const p = (m.message as JsonObject | undefined)?.params as JsonObject | undefined;
    return m.kind === 'notification' && p?.sessionId === sessionId && p.seq === seq;
  };

const indexOfResponse = (conn: Connection, id: string | number | null): number =>
  conn.messages.findIndex((m) => m.kind === 'response' && (m.message as JsonObject).id === id);

export const replay: Scenario<DaemonContext> = {
  id: 'daemon-attach-replay',
  role: 'daemon',
  title:
    'attach with sinceSeq: the response, then exactly the missed events as they were; nothing when none was missed; every later event',
  checks: ['daemon.sessions.replay-events'],
  async run(ctx) {
    const check = 'daemon.sessions.replay-events';
    const c = await ctx.connect();
    const { sessionId } = await newSession(ctx, c.conn, { permissionMode: 'default' });
    // Three events the daemon must keep: three mode changes.
    for (const mode of ['plan', 'auto', 'default'])
      await c.conn.request(Methods.SessionSetPermissionMode.method, { sessionId, mode });
    await sleep(100);
    const original = eventsAfter(c.conn, sessionId, -1);
    if (original.length < 3) throw new Abort(`3 mode changes gave ${original.length} events`);
    const problems: string[] = [];

    const from = c.conn.messages.length;
    const attach = await c.conn.request(
      Methods.SessionAttach.method,
      { sessionId, role: 'controller', sinceSeq: 1 },
      { noResponseCheck: check },
    );
    const result = attach?.result as JsonObject | undefined;
    if (!result)
      return ctx.recorder.fail(check, `session/attach with sinceSeq 1 got ${describe(attach)}`);
    const advertised = (c.init.capabilities as { attach?: { replay?: boolean } }).attach?.replay;
    if (result.replay === 'snapshot' && advertised !== true)
      throw new Skip('the daemon does not advertise attach.replay and answered with a snapshot');
    const lastSeq = result.lastSeq as number;
    // A replay may take a moment; what comes after the last missed event is still counted.
    await c.conn.waitFor(hasSeq(sessionId, lastSeq), 3000, from);
    await sleep(150);
    const replayed = c.conn.messages
      .slice(from)
      .filter(
        (m) =>
          m.kind === 'notification' &&
          ((m.message as JsonObject).params as JsonObject | undefined)?.sessionId === sessionId,
      );
    const expected = original.filter(
      (e) => (e.params.seq as number) > 1 && (e.params.seq as number) <= lastSeq,
    );
    if (result.replay !== 'events')
      problems.push(
        `attach with sinceSeq 1 of ${lastSeq} answered replay ${String(result.replay)}, expected events`,
      );
    else {
      const got = replayed.map((m) => m.message as JsonObject);
      if (
        JSON.stringify(got.map((m) => [m.method, m.params])) !==
        JSON.stringify(expected.map((e) => [e.method, e.params]))
      )
        problems.push(
          `after sinceSeq 1 came ${got.map((m) => `${String(m.method)} seq ${String((m.params as JsonObject).seq)}`).join(', ') || 'nothing'}; expected the events seq 2..${lastSeq} as first sent`,
        );
      if (replayed.some((m) => m.index < indexOfResponse(c.conn, attach!.id)))
        problems.push('replayed events came before the session/attach response');
    }

    // Nothing was missed: nothing is replayed.
    const from2 = c.conn.messages.length;
    const upToDate = await c.conn.request(
      Methods.SessionAttach.method,
      { sessionId, role: 'controller', sinceSeq: lastSeq },
      { noResponseCheck: check },
    );
    await sleep(200);
    const again = eventsAfter(c.conn, sessionId, from2 - 1);
    if ((upToDate?.result as JsonObject | undefined)?.replay !== 'events' || again.length > 0)
      problems.push(
        `attach with sinceSeq = lastSeq got ${describe(upToDate)} and ${again.length} events, expected replay events and none`,
      );

    // From the attach on: every new event (told apart by what it says; seq is judged elsewhere).
    const isPlan = (m: Incoming): boolean => {
      const p = (m.message as JsonObject).params as JsonObject | undefined;
      return m.kind === 'notification' && p?.sessionId === sessionId && p.permissionMode === 'plan';
    };
    await c.conn.request(Methods.SessionSetPermissionMode.method, { sessionId, mode: 'plan' });
    const next = await c.conn.waitFor(isPlan, 3000, from2);
    if (!next)
      problems.push(
        'after the attach the next event of the session (session/update, mode plan) did not come',
      );
    ctx.recorder.expect(check, problems.length === 0, problems.join('; '));
  },
};

export const attachMidTurn: Scenario<DaemonContext> = {
  id: 'daemon-attach-mid-turn',
  role: 'daemon',
  title:
    'attaching without sinceSeq while a turn runs: a snapshot of the running turn, then its events',
  checks: ['daemon.sessions.attach-mid-turn'],
  async run(ctx) {
    const check = 'daemon.sessions.attach-mid-turn';
    const a = await ctx.connect('controller');
    // A reply with a tool call (of a tool nobody has) keeps the turn going into the delayed one.
    const sessionId = await scriptedSession(ctx, a, {
      '*': [
        { text: 'Part one. ', toolCalls: [{ id: 'c1', name: 'conformance_no_such_tool' }] },
        { text: 'Part two.', delayMs: 2500 },
      ],
    });
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: attach while I run');
    // Wait until the text has streamed and the turn sits in its delay.
    await a.conn.waitFor(
      (m) =>
        isTurnEvent(sessionId, turnId)(m) &&
        (m.message as JsonObject).method === Methods.ChatChunk.method,
      3000,
    );
    await sleep(300);
    const b = ctx.target.kind === 'socket' ? await ctx.connect('late') : a;
    // What was sent before the attach: the snapshot stands for it, none of it may follow.
    const before = new Set(
      eventsAfter(a.conn, sessionId, -1).map((e) => JSON.stringify([e.method, e.params])),
    );
    const attach = await b.conn.request(
      Methods.SessionAttach.method,
      { sessionId, role: 'observer' },
      { noResponseCheck: check },
    );
    const result = attach?.result as JsonObject | undefined;
    if (!result) return ctx.recorder.fail(check, `session/attach mid-turn got ${describe(attach)}`);
    const snapshot = result.snapshot as
      { turnId?: string; tree?: { nodes?: JsonObject[] }; texts?: { text?: string }[] } | undefined;
    const texts = (snapshot?.texts ?? []).map((t) => t.text ?? '').join('');
    const problems: string[] = [];
    if (result.replay !== 'snapshot' || !snapshot)
      problems.push(`the attach answered replay ${String(result.replay)} without a snapshot`);
    else {
      if (snapshot.turnId !== turnId)
        problems.push(`the snapshot names turn ${String(snapshot.turnId)}, expected ${turnId}`);
      if (!snapshot.tree?.nodes?.some((n) => n.kind === 'turn'))
        problems.push('the snapshot tree has no turn node');
      if (!texts.includes('Part one.'))
        problems.push(
          `the snapshot texts (${JSON.stringify(texts)}) lack the text streamed so far`,
        );
    }
    // Only later events follow, among them the turn's end.
    const from = indexOfResponse(b.conn, attach!.id);
    await b.conn.waitFor(
      (m) =>
        m.index > from &&
        isTurnEvent(sessionId, turnId)(m) &&
        ((m.message as JsonObject).params as JsonObject).state === 'idle',
      6000,
    );
    const after = eventsAfter(b.conn, sessionId, from);
    const again = after.filter((e) => before.has(JSON.stringify([e.method, e.params])));
    if (again.length > 0)
      problems.push(
        `events sent before the attach followed the snapshot: ${again.map((e) => `${e.method} seq ${String(e.params.seq)}`).join(', ')}`,
      );
    if (!after.some((e) => e.method === Methods.SessionState.method && e.params.state === 'idle'))
      problems.push('the end of the running turn did not follow the attach');
    ctx.recorder.expect(check, problems.length === 0, problems.join('; '));
  },
};

/** The session's last assistant message, as session/load returns it. */
async function lastAnswer(conn: Connection, sessionId: string): Promise<JsonObject | undefined> {
  const load = await conn.request(Methods.SessionLoad.method, { sessionId });
  const messages = ((load?.result as JsonObject | undefined)?.messages ?? []) as JsonObject[];
  return [...messages].reverse().find((m) => m.role === 'assistant');
}

/**
 * Waits, by polling session/list (which attaches nobody), until the session's
 * state is idle; false if it is not within `ms`. A detached client gets no
 * session/state of its own to wait for.
 */
async function idleWithin(
  conn: Connection,
  workspaceRoot: string,
  sessionId: string,
  ms: number,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    const list = await conn.request(Methods.SessionList.method, { workspaceRoot });
    const sessions = ((list?.result as JsonObject | undefined)?.sessions ?? []) as JsonObject[];
    if (sessions.some((s) => s.sessionId === sessionId && s.state === 'idle')) return true;
    if (Date.now() >= deadline) return false;
    await sleep(200);
  }
}

export const detachTurn: Scenario<DaemonContext> = {
  id: 'daemon-detach-turn',
  role: 'daemon',
  title:
    'after session/detach no event of the session comes, and the running turn goes on to its end',
  checks: ['daemon.sessions.detach'],
  async run(ctx) {
    const check = 'daemon.sessions.detach';
    const c = await ctx.connect();
    const sessionId = await scriptedSession(ctx, c, {
      '*': [{ text: 'Finished after the detach.', delayMs: 1200 }],
    });
    const turnId = await send(ctx, c.conn, sessionId, 'conformance: detach while I run');
    await c.conn.waitFor(isTurnEvent(sessionId, turnId), 3000);
    // An unanswered detach is the response check's to blame; this one judges what follows it.
    const detach = await c.conn.request(Methods.SessionDetach.method, { sessionId });
    if (!detach) throw new Abort('session/detach was not answered');
    if (!detach.result) return ctx.recorder.fail(check, `session/detach got ${describe(detach)}`);
    const answeredAt = indexOfResponse(c.conn, detach.id);
    // The turn's end (its delay is 1.2 s; a loaded machine may take far longer), then a
    // moment for anything a daemon still sends the detached client about it.
    const ended = await idleWithin(c.conn, ctx.workspace, sessionId, 30_000);
    await sleep(300);
    const problems: string[] = [];
    if (!ended) problems.push('the turn running at the detach did not end within 30 s');
    const late = eventsAfter(c.conn, sessionId, answeredAt);
    if (late.length > 0)
      problems.push(`after the detach result came ${late.map((e) => String(e.method)).join(', ')}`);
    const answer = await lastAnswer(c.conn, sessionId);
    if (answer?.status !== 'complete')
      problems.push(
        `the turn running at the detach ended with status ${String(answer?.status)}, expected complete`,
      );
    ctx.recorder.expect(check, problems.length === 0, problems.join('; '));
  },
};

export const disconnectTurn: Scenario<DaemonContext> = {
  id: 'daemon-disconnect-turn',
  role: 'daemon',
  title: 'a connection that closes is detached; its session and the running turn go on',
  checks: ['daemon.sessions.disconnect-continues'],
  async run(ctx) {
    requireSocket(ctx.target, 'on stdio the connection is the daemon');
    const check = 'daemon.sessions.disconnect-continues';
    const a = await ctx.connect('leaving');
    const sessionId = await scriptedSession(ctx, a, {
      '*': [{ text: 'Finished after the disconnect.', delayMs: 1200 }],
    });
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: disconnect while I run');
    await a.conn.waitFor(isTurnEvent(sessionId, turnId), 3000);
    a.conn.close();
    const b = await ctx.connect('later');
    const ended = await idleWithin(b.conn, ctx.workspace, sessionId, 30_000);
    const answer = await lastAnswer(b.conn, sessionId);
    ctx.recorder.expect(
      check,
      ended && answer?.status === 'complete',
      ended
        ? `the turn running when its controller disconnected ended with status ${String(answer?.status)}, expected complete`
        : 'the turn running when its controller disconnected did not end within 30 s',
    );
  },
};
