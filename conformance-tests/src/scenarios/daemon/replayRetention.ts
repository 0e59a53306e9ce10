/**
 * Replay at the edge of what the daemon keeps (sessions.md#replay): a session
 * gets more events than the advertised `attach.replayRetention` (mode
 * changes); an attach whose missed events all lie within the retention is
 * replayed event by event, and one reaching further back, while a turn waits
 * for an approval, may be answered with a snapshot, which must then describe
 * that turn and its pending approval.
 */
import { Methods } from '@arbor/protocol';
import type { Connection, Incoming, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Skip } from '../scenario.js';
import { type DaemonContext, describe, notes, requireDaemonCapability, sleep } from './context.js';
import { WRITE_TOOL, show, until, untilCancelled } from './approvals.js';
import { scriptedSession, send, waitTurnEnd } from './turns.js';

const RETENTION = 'daemon.sessions.replay-retention';
const SNAPSHOT = 'daemon.sessions.replay-snapshot';
/** A retention above this takes too long to exceed with one request per event. */
const MAX_RETENTION = 20_000;
/** Mode changes in flight at once. */
const BATCH = 250;

const hasSeq =
  (sessionId: string, seq: number) =>
  (m: Incoming): boolean => {
    const p = (m.message as JsonObject | undefined)?.params as JsonObject | undefined;
    return m.kind === 'notification' && p?.sessionId === sessionId && p.seq === seq;
  };

/** The seq of the newest event of the session this connection got. */
const newestSeq = (conn: Connection, sessionId: string): number =>
  Math.max(0, ...notes(conn, sessionId).map((n) => Number(n.params.seq ?? 0)));

export const replayRetention: Scenario<DaemonContext> = {
  id: 'daemon-replay-retention',
  role: 'daemon',
  title:
    'more events than attach.replayRetention: the newest replayRetention are replayed as events; an attach from further back during a turn awaiting approval gets them or a snapshot of that turn and approval',
  checks: [RETENTION, SNAPSHOT],
  async run(ctx) {
    const r = ctx.recorder;
    const callId = 'conformance-retention-1';
    const asked: JsonObject[] = [];
    const never = untilCancelled(20_000);
    const c = await ctx.connect('controller', {
      capabilities: { approvals: {}, clientTools: {} },
      tools: [WRITE_TOOL],
    });
    requireDaemonCapability(c.init, 'clientTools');
    c.conn.handle(Methods.ApprovalRequest.method, (params, message) => {
      asked.push(params as JsonObject);
      return never(params as JsonObject, message.id as string | number, c.conn);
    });
    const attach = (c.init.capabilities as JsonObject).attach as JsonObject | undefined;
    const retention = attach?.replayRetention;
    if (attach?.replay !== true || typeof retention !== 'number')
      throw new Skip('the daemon does not advertise attach.replay with a replayRetention');
    if (retention > MAX_RETENTION)
      throw new Skip(`attach.replayRetention ${retention} is more events than the suite makes`);
    const sessionId = await scriptedSession(
      ctx,
      c,
      {
        '*': [
          { toolCalls: [{ id: callId, name: WRITE_TOOL.name, arguments: { n: 1 } }] },
          { text: 'Finished.' },
        ],
      },
      'default',
      'editor',
    );

    // A tenth more events than the retention (a daemon may drop old ones in batches): mode
    // changes, each one session/update, ending in default.
    const changes = retention + 2 * Math.ceil(retention / 20) + 6;
    for (let i = 0; i < changes; i += BATCH) {
      const batch: Promise<unknown>[] = [];
      for (let j = i; j < Math.min(changes, i + BATCH); j++)
        batch.push(
          c.conn.request(Methods.SessionSetPermissionMode.method, {
            sessionId,
            mode: j % 2 === 0 ? 'plan' : 'default',
          }),
        );
      await Promise.all(batch);
    }
    await sleep(300);
    const lastSeq = newestSeq(c.conn, sessionId);
    if (lastSeq <= retention)
      throw new Skip(`${changes} mode changes gave the session only ${lastSeq} events`);

    // Every missed event is among the newest `retention`: replayed, each of them. The same
    // connection attaches again (a fresh attach), so this runs on stdio too.
    const sinceSeq = lastSeq - retention;
    const from = c.conn.messages.length;
    const answer = await c.conn.request(
      Methods.SessionAttach.method,
      { sessionId, role: 'controller', sinceSeq },
      { noResponseCheck: RETENTION },
    );
    const result = answer?.result as JsonObject | undefined;
    if (result?.replay === 'events') {
      // A slow link (a daemon writing a byte at a time) takes long for a thousand events:
      // wait as long as they keep coming.
      for (let seen = -1; seen !== c.conn.messages.length;) {
        seen = c.conn.messages.length;
        if (await c.conn.waitFor(hasSeq(sessionId, lastSeq), 10_000, from)) break;
      }
      await sleep(200);
    }
    const got = notes(c.conn, sessionId)
      .filter((n) => n.index >= from)
      .map((n) => Number(n.params.seq))
      .filter((seq) => seq > sinceSeq && seq <= lastSeq);
    const complete = got.length === retention && got.every((seq, i) => seq === sinceSeq + 1 + i);
    r.expect(
      RETENTION,
      result?.replay === 'events' && complete,
      result?.replay !== 'events'
        ? `the session has ${lastSeq} events; attach with sinceSeq ${sinceSeq} (the newest ${retention}, the advertised replayRetention) got ${result ? `replay ${show(result.replay)}` : describe(answer)}, expected replay "events"`
        : `attach with sinceSeq ${sinceSeq} replayed ${got.length} of the ${retention} events seq ${sinceSeq + 1}..${lastSeq}`,
    );

    // From further back than the retention, while a turn waits for approval.
    const turnId = await send(ctx, c.conn, sessionId, 'conformance: beyond the retention');
    if (!(await until(() => asked.some((p) => p.toolCallId === callId), 5000))) {
      r.skip(SNAPSHOT, 'the write call was not asked within 5 s');
      await c.conn.request(Methods.ChatCancel.method, { sessionId, turnId });
      return;
    }
    const lateFrom = c.conn.messages.length;
    const beyond = await c.conn.request(
      Methods.SessionAttach.method,
      { sessionId, role: 'controller', sinceSeq: 0 },
      { noResponseCheck: SNAPSHOT },
    );
    const attached = beyond?.result as JsonObject | undefined;
    await sleep(500);
    await c.conn.request(Methods.ChatCancel.method, { sessionId, turnId });
    await waitTurnEnd(ctx, c.conn, sessionId, turnId);
    if (attached?.replay === 'events') {
      r.skip(SNAPSHOT, 'the daemon still held every event: it replayed them');
      return;
    }
    const snapshot = attached?.snapshot as JsonObject | undefined;
    const problems: string[] = [];
    if (attached?.replay !== 'snapshot' || snapshot === undefined)
      problems.push(
        `attach with sinceSeq 0 got ${describe(beyond)}, expected replay events or a snapshot`,
      );
    else {
      const at = Number(attached.lastSeq);
      if (snapshot.turnId !== turnId)
        problems.push(`snapshot.turnId ${show(snapshot.turnId)}, expected the running ${turnId}`);
      const nodes = (snapshot.tree as JsonObject | undefined)?.nodes;
      const live = new Set(
        notes(c.conn, sessionId)
          .filter((n) => n.index < lateFrom)
          .filter((n) => n.method === Methods.TreeUpdate.method && n.params.turnId === turnId)
          .filter((n) => Number(n.params.seq) <= at)
          .flatMap((n) => ((n.params.nodes ?? []) as JsonObject[]).map((x) => String(x.id))),
      );
      const stored = new Set(
        Array.isArray(nodes) ? (nodes as JsonObject[]).map((n) => String(n.id)) : [],
      );
      const missing = [...live].filter((id) => !stored.has(id));
      if (!Array.isArray(nodes) || missing.length > 0)
        problems.push(
          `snapshot.tree ${Array.isArray(nodes) ? `lacks node(s) ${missing.join(', ')}` : 'is missing'}`,
        );
      const streamed = notes(c.conn, sessionId).some(
        (n) =>
          n.index < lateFrom &&
          n.method === Methods.ChatChunk.method &&
          n.params.turnId === turnId &&
          Number(n.params.seq) <= at,
      );
      if (streamed && !Array.isArray(snapshot.texts))
        problems.push('snapshot.texts is missing though the turn streamed text');
      const pending = (snapshot.pendingApprovals ?? []) as JsonObject[];
      if (!Array.isArray(pending) || !pending.some((p) => p.toolCallId === callId))
        problems.push(`snapshot.pendingApprovals ${show(pending)} lacks the approval of ${callId}`);
      const old = notes(c.conn, sessionId).filter(
        (n) => n.index >= lateFrom && Number(n.params.seq) <= at,
      );
      if (old.length > 0)
        problems.push(
          `after the snapshot came ${old[0]!.method} seq ${String(old[0]!.params.seq)} ≤ lastSeq ${at}`,
        );
    }
    r.expect(SNAPSHOT, problems.length === 0, problems.join('; '));
  },
};
