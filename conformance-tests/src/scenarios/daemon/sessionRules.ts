/** Who may do what to a session, paging, mode and model changes, closed enums (sessions.md, versioning.md). */
import { Methods } from '@arbor/protocol';
import type {
  Connection,
  Incoming,
  JsonObject,
  ResponseMessage,
} from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort, Skip } from '../scenario.js';
import {
  type DaemonContext,
  type Initialized,
  describe,
  errorCode,
  notes,
  requireDaemonCapability,
  requireSocket,
  sleep,
} from './context.js';

/** A session created by `c` (so `c` is its controller). */
export async function newSession(
  ctx: DaemonContext,
  conn: Connection,
  params: JsonObject = {},
): Promise<JsonObject & { sessionId: string }> {
  const created = await conn.request(Methods.SessionNew.method, {
    workspaceRoot: ctx.workspace,
    ...params,
  });
  const info = created?.result as (JsonObject & { sessionId: string }) | undefined;
  if (typeof info?.sessionId !== 'string') {
    ctx.recorder.fail('daemon.sessions.new', `session/new got ${describe(created)}`);
    throw new Abort('no session');
  }
  return info;
}

/** The session/update notifications of a session one client got. */
const updatesOf = (conn: Connection, sessionId: string): JsonObject[] =>
  notes(conn, sessionId)
    .filter((n) => n.method === Methods.SessionUpdate.method)
    .map((n) => n.params);

export const notAttached: Scenario<DaemonContext> = {
  id: 'daemon-not-attached',
  role: 'daemon',
  title:
    'chat/send, chat/cancel, setPermissionMode and detach from a client not attached get -33007',
  checks: ['daemon.sessions.not-attached'],
  async run(ctx) {
    const { conn } = await ctx.connect();
    const { sessionId } = await newSession(ctx, conn);
    const detach = await conn.request(Methods.SessionDetach.method, { sessionId });
    if (!detach?.result) throw new Abort(`session/detach got ${describe(detach)}`);
    const served: string[] = [];
    for (const [method, params] of [
      [Methods.ChatSend.method, { sessionId, text: 'conformance: not attached' }],
      [Methods.ChatCancel.method, { sessionId }],
      [Methods.SessionSetPermissionMode.method, { sessionId, mode: 'plan' }],
      [Methods.SessionDetach.method, { sessionId }],
    ] as const) {
      const answer = await conn.request(method, params, {
        noResponseCheck: 'daemon.sessions.not-attached',
      });
      if (answer && errorCode(answer) !== -33007) served.push(`${method} got ${describe(answer)}`);
    }
    ctx.recorder.expect(
      'daemon.sessions.not-attached',
      served.length === 0,
      `from a client not attached to the session: ${served.join('; ')}; expected -33007`,
    );
  },
};

export const reattach: Scenario<DaemonContext> = {
  id: 'daemon-reattach',
  role: 'daemon',
  title: 'attaching again is a fresh attach: the controller that re-attaches as observer is one',
  checks: ['daemon.sessions.reattach'],
  async run(ctx) {
    const { conn } = await ctx.connect();
    const { sessionId } = await newSession(ctx, conn);
    const again = await conn.request(
      Methods.SessionAttach.method,
      { sessionId, role: 'observer' },
      { noResponseCheck: 'daemon.sessions.reattach' },
    );
    if (
      !ctx.recorder.expect(
        'daemon.sessions.reattach',
        (again?.result as JsonObject | undefined)?.role === 'observer',
        `the creator attaching again as observer got ${describe(again)}`,
      )
    )
      return;
    // A controller's request an observer is refused (sessions.md#sessions-observer-refused).
    const mode = await conn.request(
      Methods.SessionSetPermissionMode.method,
      { sessionId, mode: 'plan' },
      { noResponseCheck: 'daemon.sessions.reattach' },
    );
    if (mode)
      ctx.recorder.expect(
        'daemon.sessions.reattach',
        errorCode(mode) === -33006,
        `session/setPermissionMode after re-attaching as observer got ${describe(mode)}, expected -33006: the old role stayed`,
      );
  },
};

export const listPages: Scenario<DaemonContext> = {
  id: 'daemon-session-list-pages',
  role: 'daemon',
  title: 'session/list: newest first, at most limit, nextCursor until the last page',
  checks: ['daemon.sessions.list-order'],
  async run(ctx) {
    const check = 'daemon.sessions.list-order';
    const { conn } = await ctx.connect();
    // Three sessions of this scenario's own root, so sessions of other scenarios stay out.
    const created: string[] = [];
    for (let i = 0; i < 3; i++) {
      created.push((await newSession(ctx, conn, { title: `conformance page ${i}` })).sessionId);
      await sleep(15); // distinct updatedAt
    }
    const newestFirst = [...created].reverse();
    const seen: string[] = [];
    const problems: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 3; page++) {
      const answer = await conn.request(
        Methods.SessionList.method,
        { workspaceRoot: ctx.workspace, limit: 2, ...(cursor ? { cursor } : {}) },
        { noResponseCheck: check },
      );
      const result = answer?.result as { sessions?: JsonObject[]; nextCursor?: string } | undefined;
      if (!result?.sessions) {
        problems.push(`page ${page + 1} got ${describe(answer)}`);
        break;
      }
      if (result.sessions.length > 2)
        problems.push(`page ${page + 1} has ${result.sessions.length} sessions, limit 2`);
      seen.push(...result.sessions.map((s) => String(s.sessionId)));
      cursor = result.nextCursor;
      if (seen.length < 3 && cursor === undefined) {
        problems.push(`page ${page + 1} has no nextCursor, yet ${3 - seen.length} sessions follow`);
        break;
      }
      if (seen.length >= 3) {
        if (cursor !== undefined) problems.push('the last page still has a nextCursor');
        break;
      }
    }
    if (problems.length === 0 && seen.join() !== newestFirst.join())
      problems.push(
        `the pages listed ${seen.join(', ')}; newest first is ${newestFirst.join(', ')}`,
      );
    ctx.recorder.expect(check, problems.length === 0, problems.join('; '));
  },
};

export const modeUpdate: Scenario<DaemonContext> = {
  id: 'daemon-mode-update',
  role: 'daemon',
  title:
    'a mode change reaches every attached client as session/update, the creator (seq 1) and the one that asked included',
  checks: ['daemon.sessions.mode-update'],
  async run(ctx) {
    const check = 'daemon.sessions.mode-update';
    const a = await ctx.connect('creator');
    const { sessionId } = await newSession(ctx, a.conn, { permissionMode: 'default' });
    const clients: { label: string; conn: Connection }[] = [{ label: 'creator', conn: a.conn }];
    if (ctx.target.kind === 'socket') {
      const b = await ctx.connect('observer');
      const attach = await b.conn.request(Methods.SessionAttach.method, {
        sessionId,
        role: 'observer',
      });
      if (!attach?.result) throw new Abort(`session/attach got ${describe(attach)}`);
      clients.push({ label: 'observer', conn: b.conn });
    }
    const changed = await a.conn.request(
      Methods.SessionSetPermissionMode.method,
      { sessionId, mode: 'plan' },
      { noResponseCheck: check },
    );
    if (!changed?.result) {
      ctx.recorder.fail(check, `session/setPermissionMode got ${describe(changed)}`);
      return;
    }
    const isPlanUpdate = (m: Incoming): boolean => {
      const msg = m.message as JsonObject;
      const p = msg.params as JsonObject | undefined;
      return (
        msg.method === Methods.SessionUpdate.method &&
        p?.sessionId === sessionId &&
        p.permissionMode === 'plan'
      );
    };
    await Promise.all(clients.map(({ conn }) => conn.waitFor(isPlanUpdate, 3000)));
    const problems: string[] = [];
    for (const { label, conn } of clients) {
      const updates = updatesOf(conn, sessionId);
      if (!updates.some((u) => u.permissionMode === 'plan'))
        problems.push(`${label} got no session/update with permissionMode plan`);
    }
    const first = notes(a.conn, sessionId).find((n) => typeof n.params.seq === 'number');
    if (first && first.params.seq !== 1)
      problems.push(
        `the creator's first event of the session has seq ${String(first.params.seq)}, expected 1`,
      );
    ctx.recorder.expect(check, problems.length === 0, problems.join('; '));
  },
};

export const invalidEnums: Scenario<DaemonContext> = {
  id: 'daemon-invalid-enums',
  role: 'daemon',
  title: 'an unknown or unadvertised permission mode, an unknown role: -32602, never a default',
  checks: ['daemon.version.invalid-enum-request'],
  async run(ctx) {
    const check = 'daemon.version.invalid-enum-request';
    const c = await ctx.connect();
    const { sessionId } = await newSession(ctx, c.conn);
    const advertised = (c.init.capabilities.permissionModes ?? []) as string[];
    const unsupported = ['plan', 'default', 'auto'].filter((m) => !advertised.includes(m));
    const probes: [string, string, JsonObject][] = [
      [
        'session/new with permissionMode "yolo"',
        Methods.SessionNew.method,
        {
          workspaceRoot: ctx.workspace,
          permissionMode: 'yolo',
        },
      ],
      [
        'session/setPermissionMode with mode "yolo"',
        Methods.SessionSetPermissionMode.method,
        {
          sessionId,
          mode: 'yolo',
        },
      ],
      [
        'session/attach with role "boss"',
        Methods.SessionAttach.method,
        {
          sessionId,
          role: 'boss',
        },
      ],
      ...unsupported.map((mode): [string, string, JsonObject] => [
        `session/new with the unadvertised mode ${mode}`,
        Methods.SessionNew.method,
        { workspaceRoot: ctx.workspace, permissionMode: mode },
      ]),
    ];
    const wrong: string[] = [];
    for (const [label, method, params] of probes) {
      const answer = await c.conn.request(method, params, {
        noResponseCheck: check,
        deliberate: true,
      });
      if (answer && errorCode(answer) !== -32602) wrong.push(`${label} got ${describe(answer)}`);
    }
    ctx.recorder.expect(check, wrong.length === 0, `${wrong.join('; ')}; expected -32602`);
  },
};

/** Strings the daemon must not copy into an error message (errors.md#errors-message-safe). */
const MARKER = 'conformance-marker-7f3a9c';

export const errorRules: Scenario<DaemonContext> = {
  id: 'daemon-error-rules',
  role: 'daemon',
  title:
    'the first applicable error wins (lifecycle, params, session), and no error message repeats the offending message',
  checks: ['daemon.errors.precedence', 'daemon.errors.message-safe'],
  async run(ctx) {
    const r = ctx.recorder;
    const errors: ResponseMessage[] = [];
    const ask = async (
      conn: Connection,
      method: string,
      params: JsonObject,
    ): Promise<ResponseMessage | undefined> => {
      const answer = await conn.request(method, params, {
        noResponseCheck: 'daemon.errors.precedence',
        deliberate: true,
      });
      if (answer?.error) errors.push(answer);
      return answer;
    };
    const wrong: string[] = [];
    const { conn } = await ctx.connect();
    // InvalidParams before SessionNotFound; the unknown member carries the marker.
    const bad = await ask(conn, Methods.ChatSend.method, {
      sessionId: 'conformance-no-such-session',
      text: 42,
      conformanceNote: MARKER,
    });
    if (bad && errorCode(bad) !== -32602)
      wrong.push(
        `chat/send with a numeric text to an unknown session got ${describe(bad)}, expected -32602`,
      );
    // SessionNotFound before NotAttached.
    const other = await ask(conn, Methods.SessionDetach.method, {
      sessionId: 'conformance-no-such-session',
    });
    if (other && errorCode(other) !== -33004)
      wrong.push(`session/detach of an unknown session got ${describe(other)}, expected -33004`);
    r.expect('daemon.errors.precedence', wrong.length === 0, wrong.join('; '));

    const unsafe = errors.filter(
      (e) =>
        typeof e.error?.message !== 'string' ||
        e.error.message.trim() === '' ||
        e.error.message.includes(MARKER) ||
        e.error.message.includes('"jsonrpc"'),
    );
    if (errors.length > 0)
      r.expect(
        'daemon.errors.message-safe',
        unsafe.length === 0,
        `error messages must be sentences without the offending message: ${unsafe.map((e) => JSON.stringify(e.error?.message).slice(0, 200)).join('; ')}`,
      );
  },
};

/** A model the daemon takes: the session's own, else the scripted provider's (testing daemons have it). */
function modelOf(info: JsonObject, c: Initialized): string | undefined {
  if (typeof info.model === 'string') return info.model;
  return (c.init.capabilities as JsonObject).testing ? 'scripted:conformance' : undefined;
}

export const setModel: Scenario<DaemonContext> = {
  id: 'daemon-set-model',
  role: 'daemon',
  title:
    'session/setModel: every attached client gets session/update before the result; observers, strangers and bad models are refused',
  checks: [
    'daemon.sessions.set-model-update',
    'daemon.sessions.set-model-refused',
    'daemon.sessions.set-model-stored',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const a = await ctx.connect('controller');
    requireDaemonCapability(a.init, 'sessions.setModel');
    const info = await newSession(ctx, a.conn);
    const { sessionId } = info;
    const current = modelOf(info, a);
    if (!current) throw new Skip('no model known to the daemon: session/new gave none');
    // Another model of the same provider, so that storing it is a change.
    const model = `${current}-conformance`;

    const refused: string[] = [];
    for (const bad of ['nocolon', 'bogusprovider:x']) {
      const answer = await a.conn.request(
        Methods.SessionSetModel.method,
        { sessionId, model: bad },
        { noResponseCheck: 'daemon.sessions.set-model-refused' },
      );
      if (answer && errorCode(answer) !== -33011)
        refused.push(`model ${bad} got ${describe(answer)}, expected -33011`);
    }
    const observer = ctx.target.kind === 'socket' ? await ctx.connect('observer') : undefined;
    const watcher = observer?.conn ?? a.conn;
    if (observer) {
      const attach = await observer.conn.request(Methods.SessionAttach.method, {
        sessionId,
        role: 'observer',
      });
      if (!attach?.result) throw new Abort(`session/attach got ${describe(attach)}`);
      const byObserver = await observer.conn.request(
        Methods.SessionSetModel.method,
        { sessionId, model },
        { noResponseCheck: 'daemon.sessions.set-model-refused' },
      );
      if (byObserver && errorCode(byObserver) !== -33006)
        refused.push(
          `session/setModel by an observer got ${describe(byObserver)}, expected -33006`,
        );
    }
    const before = updatesOf(a.conn, sessionId).length;

    const response = await a.conn.request(
      Methods.SessionSetModel.method,
      { sessionId, model },
      { noResponseCheck: 'daemon.sessions.set-model-update' },
    );
    if (response?.result) {
      const answeredAt = a.conn.messages.findIndex(
        (m) => m.kind === 'response' && (m.message as JsonObject).id === response.id,
      );
      const told = notes(a.conn, sessionId).some(
        (n) =>
          n.method === Methods.SessionUpdate.method &&
          n.params.model !== undefined &&
          n.index < answeredAt,
      );
      await watcher.waitFor(
        (m) =>
          m.kind === 'notification' &&
          (m.message as JsonObject).method === Methods.SessionUpdate.method &&
          ((m.message as JsonObject).params as JsonObject).model !== undefined,
        3000,
      );
      const watcherTold = updatesOf(watcher, sessionId).some((u) => u.model !== undefined);
      r.expect(
        'daemon.sessions.set-model-update',
        told && watcherTold && updatesOf(a.conn, sessionId).length > before,
        !told
          ? 'the client that changed the model got no session/update with the model before the result'
          : 'the observer got no session/update with the new model',
      );
      const loaded = await a.conn.request(Methods.SessionLoad.method, { sessionId });
      const stored = ((loaded?.result as JsonObject | undefined)?.session as JsonObject | undefined)
        ?.model;
      r.expect(
        'daemon.sessions.set-model-stored',
        stored === model,
        `after session/setModel ${model}, session/load gives the session model ${JSON.stringify(stored)}`,
      );
    } else if (response)
      r.fail('daemon.sessions.set-model-update', `session/setModel got ${describe(response)}`);

    // Not attached: detached first, so nothing of the session may change.
    await a.conn.request(Methods.SessionDetach.method, { sessionId });
    const stranger = await a.conn.request(
      Methods.SessionSetModel.method,
      { sessionId, model },
      { noResponseCheck: 'daemon.sessions.set-model-refused' },
    );
    if (stranger && errorCode(stranger) !== -33007)
      refused.push(
        `session/setModel from a client not attached got ${describe(stranger)}, expected -33007`,
      );
    r.expect('daemon.sessions.set-model-refused', refused.length === 0, refused.join('; '));
  },
};

export const listLoadNoAttach: Scenario<DaemonContext> = {
  id: 'daemon-list-load-no-attach',
  role: 'daemon',
  title:
    'listing and loading a session attach nobody: a later mode change reaches only the attached',
  checks: ['daemon.sessions.list-load-no-attach'],
  async run(ctx) {
    const check = 'daemon.sessions.list-load-no-attach';
    requireSocket(ctx.target, 'a second client lists and loads the session of the first');
    const a = await ctx.connect('creator');
    const { sessionId } = await newSession(ctx, a.conn);
    const b = await ctx.connect('reader');
    const listed = await b.conn.request(
      Methods.SessionList.method,
      { workspaceRoot: ctx.workspace },
      { noResponseCheck: check },
    );
    const loaded = await b.conn.request(
      Methods.SessionLoad.method,
      { sessionId },
      { noResponseCheck: check },
    );
    if (!listed?.result || !loaded?.result)
      throw new Abort(`session/list got ${describe(listed)}, session/load ${describe(loaded)}`);
    await a.conn.request(Methods.SessionSetPermissionMode.method, { sessionId, mode: 'plan' });
    // The creator's update marks the moment; anything for the reader would come with it.
    await a.conn.waitFor(
      (m) => (m.message as JsonObject).method === Methods.SessionUpdate.method,
      3000,
    );
    await sleep(300);
    const leaked = notes(b.conn, sessionId);
    ctx.recorder.expect(
      check,
      leaked.length === 0,
      `a client that only listed and loaded the session got ${leaked.map((n) => n.method).join(', ')}`,
    );
  },
};
