/** Sessions, attach, roles and deletion (sessions.md). */
import { Methods } from '@arbor/protocol';
import path from 'node:path';
import type { Connection, Incoming, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort } from '../scenario.js';
import { type DaemonContext, type Note, describe, errorCode, notes, sleep } from './context.js';
import { isTurnEvent, scriptedSession, send } from './turns.js';

/** Models no daemon can take: no provider:model form, or a provider nobody ships. */
const INVALID_MODELS = ['nocolon', 'bogusprovider:x', ':'];

/** The session's events (notifications with a seq) one client received, in order. */
function events(conn: Connection, sessionId: string): Note[] {
  return notes(conn, sessionId).filter((n) => typeof n.params.seq === 'number');
}

const isDeletedOf =
  (sessionId: string) =>
  (m: Incoming): boolean => {
    const msg = m.message as JsonObject;
    return (
      m.kind === 'notification' &&
      msg.method === Methods.SessionDeleted.method &&
      (msg.params as JsonObject | undefined)?.sessionId === sessionId
    );
  };

/**
 * The first client deletes the session; every client in `clients` is
 * attached to it. Judges session/deleted as the last event of each, the
 * answer after all of them, -33004 afterwards and, when `turnId` was
 * running, its cancelled end for each (sessions.md#session-delete).
 */
async function deleteAndJudge(
  ctx: DaemonContext,
  sessionId: string,
  clients: { label: string; conn: Connection }[],
  turnId?: string,
): Promise<void> {
  const r = ctx.recorder;
  const deleter = clients[0]!.conn;
  const response = await deleter.request(
    Methods.SessionDelete.method,
    { sessionId },
    { noResponseCheck: 'daemon.sessions.delete-answer-last' },
  );
  if (!response) return;
  if (response.error) {
    r.fail('daemon.sessions.delete-answer-last', `session/delete got ${describe(response)}`);
    return;
  }
  // Events a daemon sends too late still count against it: wait for them.
  await Promise.all(clients.map(({ conn }) => conn.waitFor(isDeletedOf(sessionId), 2000)));
  await sleep(150);

  const notified: string[] = [];
  const ended: string[] = [];
  for (const { label, conn } of clients) {
    const seen = events(conn, sessionId);
    const deleted = seen.filter((e) => e.method === Methods.SessionDeleted.method);
    // Last as received; its seq is the seq checks' to judge.
    const last = seen[seen.length - 1]!;
    if (deleted.length !== 1)
      notified.push(`${label} got ${deleted.length} session/deleted (expected 1)`);
    else if (last !== deleted[0])
      notified.push(`${label} got ${last.method} after session/deleted`);
    if (turnId === undefined) continue;
    const ofTurn = seen.filter((e) => e.params.turnId === turnId);
    const costs = ofTurn.filter((e) => e.method === Methods.CostSummary.method);
    const idles = seen.filter(
      (e) =>
        e.method === Methods.SessionState.method &&
        e.params.state === 'idle' &&
        (e.params.turnId === turnId || e.params.turnId === undefined),
    );
    if (costs.length === 0 || idles.length !== 1 || idles[0]!.params.stopReason !== 'cancelled')
      ended.push(
        `${label} got ${costs.length} cost/summary and ${idles.length} session/state idle (stopReason ${idles.map((e) => String(e.params.stopReason)).join(', ') || 'none'}) of the turn running at session/delete`,
      );
  }
  r.expect(
    'daemon.sessions.delete-notifies',
    notified.length === 0,
    `after session/delete: ${notified.join('; ')}`,
  );
  if (turnId !== undefined)
    r.expect(
      'daemon.sessions.delete-cancels-turn',
      ended.length === 0,
      `${ended.join('; ')}; expected its cost/summary and one idle with stopReason cancelled`,
    );
  const answeredAt = deleter.messages.findIndex(
    (m) => m.kind === 'response' && (m.message as JsonObject).id === response.id,
  );
  const late = events(deleter, sessionId).filter((e) => e.index > answeredAt);
  r.expect(
    'daemon.sessions.delete-answer-last',
    late.length === 0,
    `the deleting client got ${late.map((e) => e.method).join(', ')} after the session/delete result`,
  );

  const served: string[] = [];
  for (const [method, params] of [
    [Methods.SessionLoad.method, { sessionId }],
    [Methods.SessionAttach.method, { sessionId, role: 'controller' }],
    [Methods.ChatSend.method, { sessionId, text: 'conformance: a deleted session' }],
  ] as const) {
    const answer = await deleter.request(method, params, {
      noResponseCheck: 'daemon.sessions.delete-detaches',
    });
    if (answer && errorCode(answer) !== -33004) served.push(`${method} got ${describe(answer)}`);
  }
  r.expect(
    'daemon.sessions.delete-detaches',
    served.length === 0,
    `after session/delete: ${served.join('; ')}; expected -33004`,
  );
}

export const sessions: Scenario<DaemonContext> = {
  id: 'daemon-sessions',
  role: 'daemon',
  title:
    'new, list, load, unknown ids, bad roots and models, delete, attach as observer, observers cannot chat',
  checks: [
    'daemon.sessions.new',
    'daemon.sessions.invalid-workspace-root',
    'daemon.sessions.invalid-model',
    'daemon.sessions.delete-notifies',
    'daemon.sessions.delete-answer-last',
    'daemon.sessions.delete-detaches',
    'daemon.sessions.list',
    'daemon.sessions.load',
    'daemon.sessions.not-found',
    'daemon.sessions.attach-role',
    'daemon.sessions.observer-cannot-control',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const { conn } = await ctx.connect();
    const created = await conn.request(
      Methods.SessionNew.method,
      { workspaceRoot: ctx.workspace, permissionMode: 'plan' },
      { noResponseCheck: 'daemon.sessions.new' },
    );
    const info = created?.result as JsonObject | undefined;
    if (!info) {
      r.fail('daemon.sessions.new', `session/new got ${describe(created)}`);
      throw new Abort('no session');
    }
    r.expect(
      'daemon.sessions.new',
      info.state === 'idle' &&
        info.workspaceRoot === ctx.workspace &&
        info.permissionMode === 'plan',
      `session/new answered state ${String(info.state)}, root ${String(info.workspaceRoot)}, mode ${String(info.permissionMode)}; expected idle, ${ctx.workspace}, plan`,
    );
    const sessionId = info.sessionId as string;

    for (const root of [path.join(ctx.workspace, 'does-not-exist'), 'relative/root']) {
      const bad = await conn.request(
        Methods.SessionNew.method,
        { workspaceRoot: root },
        { noResponseCheck: 'daemon.sessions.invalid-workspace-root' },
      );
      if (bad)
        r.expect(
          'daemon.sessions.invalid-workspace-root',
          errorCode(bad) === -33009,
          `session/new with root ${root} got ${describe(bad)}, expected -33009`,
        );
    }

    for (const model of INVALID_MODELS) {
      const bad = await conn.request(
        Methods.SessionNew.method,
        { workspaceRoot: ctx.workspace, model },
        { noResponseCheck: 'daemon.sessions.invalid-model' },
      );
      if (bad)
        r.expect(
          'daemon.sessions.invalid-model',
          errorCode(bad) === -33011,
          `session/new with model ${JSON.stringify(model)} got ${describe(bad)}, expected -33011`,
        );
    }

    const list = await conn.request(
      Methods.SessionList.method,
      {},
      { noResponseCheck: 'daemon.sessions.list' },
    );
    const listed = ((list?.result as JsonObject | undefined)?.sessions ?? []) as JsonObject[];
    r.expect(
      'daemon.sessions.list',
      listed.some((s) => s.sessionId === sessionId),
      `session/list does not include the new session: ${describe(list)}`,
    );

    const load = await conn.request(
      Methods.SessionLoad.method,
      { sessionId },
      { noResponseCheck: 'daemon.sessions.load' },
    );
    const loaded = load?.result as { session?: JsonObject; messages?: unknown } | undefined;
    r.expect(
      'daemon.sessions.load',
      loaded?.session?.sessionId === sessionId && Array.isArray(loaded?.messages),
      `session/load got ${describe(load)}`,
    );

    const missing = await conn.request(
      Methods.SessionLoad.method,
      { sessionId: 'conformance-no-such-session' },
      { noResponseCheck: 'daemon.sessions.not-found' },
    );
    if (missing)
      r.expect(
        'daemon.sessions.not-found',
        errorCode(missing) === -33004,
        `session/load of an unknown id got ${describe(missing)}, expected -33004`,
      );

    // A session without a turn: its creator, attached, is told and answered last.
    const doomed = await conn.request(Methods.SessionNew.method, { workspaceRoot: ctx.workspace });
    const doomedId = (doomed?.result as JsonObject | undefined)?.sessionId;
    if (typeof doomedId === 'string')
      await deleteAndJudge(ctx, doomedId, [{ label: 'creator', conn }]);

    // Re-attach the creator as an observer: then it may watch but not drive.
    await conn.request(Methods.SessionDetach.method, { sessionId });
    const attach = await conn.request(
      Methods.SessionAttach.method,
      { sessionId, role: 'observer' },
      { noResponseCheck: 'daemon.sessions.attach-role' },
    );
    const attached = attach?.result as JsonObject | undefined;
    if (
      !r.expect(
        'daemon.sessions.attach-role',
        attached?.role === 'observer',
        `session/attach as observer got ${describe(attach)}`,
      )
    )
      return;
    const chat = await conn.request(
      Methods.ChatSend.method,
      { sessionId, text: 'an observer may not start a turn' },
      { noResponseCheck: 'daemon.sessions.observer-cannot-control' },
    );
    if (chat)
      r.expect(
        'daemon.sessions.observer-cannot-control',
        errorCode(chat) === -33006,
        `chat/send by an observer got ${describe(chat)}, expected -33006`,
      );
  },
};

export const deleteDuringTurn: Scenario<DaemonContext> = {
  id: 'daemon-session-delete-turn',
  role: 'daemon',
  title:
    "session/delete while a turn runs: each attached client gets the turn's cancelled end, then session/deleted, all before the result",
  checks: [
    'daemon.sessions.delete-cancels-turn',
    'daemon.sessions.delete-notifies',
    'daemon.sessions.delete-answer-last',
    'daemon.sessions.delete-detaches',
  ],
  async run(ctx) {
    const a = await ctx.connect('controller');
    const sessionId = await scriptedSession(ctx, a, {
      '*': [{ text: 'This reply takes a while.', delayMs: 5000 }],
    });
    const clients = [{ label: 'controller', conn: a.conn }];
    if (ctx.target.kind === 'socket') {
      // Another connection's client is told too (on stdio each connection is its own daemon).
      const b = await ctx.connect('observer');
      const attach = await b.conn.request(Methods.SessionAttach.method, {
        sessionId,
        role: 'observer',
      });
      if ((attach?.result as JsonObject | undefined)?.role !== 'observer') {
        ctx.recorder.fail(
          'daemon.sessions.attach-role',
          `session/attach as observer got ${describe(attach)}`,
        );
        throw new Abort('attach failed');
      }
      clients.push({ label: 'observer', conn: b.conn });
    }
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: delete while a turn runs');
    await Promise.all(
      clients.map(({ conn }) => conn.waitFor(isTurnEvent(sessionId, turnId), 3000)),
    );
    await deleteAndJudge(ctx, sessionId, clients, turnId);
  },
};
