/**
 * What a connection's lifecycle leaves the daemon free to do (lifecycle.md):
 * a repeated `initialized` changes nothing, a shut-down connection neither
 * takes notifications nor gets requests, and `$/logTrace` never carries the
 * token.
 */
import { Methods, type SetTraceParams, type TraceValue } from '@arbor/protocol';
import type { Connection, Incoming, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Skip } from '../scenario.js';
import {
  type DaemonContext,
  describe,
  requireDaemonCapability,
  requireSocket,
  sleep,
} from './context.js';
import { attach } from './approvals.js';
import { isTurnEnd, scriptedSession, send } from './turns.js';

const INITIALIZED_ONCE = 'daemon.lifecycle.initialized-once';
const NOTIFICATIONS = 'daemon.lifecycle.after-shutdown-notifications';
const NO_REQUESTS = 'daemon.lifecycle.no-requests-after-shutdown';
const NO_SECRETS = 'daemon.lifecycle.logtrace-no-secrets';

const isLogTrace = (m: Incoming): boolean =>
  m.kind === 'notification' && (m.message as JsonObject).method === Methods.LogTrace.method;

const setTrace = (conn: Connection, value: TraceValue): void =>
  conn.notify(Methods.SetTrace.method, { value } satisfies SetTraceParams);

/** The $/logTrace notifications a session/list provokes within 300 ms, and its answer. */
async function tracesOf(conn: Connection): Promise<{ traces: JsonObject[]; answer: string }> {
  const from = conn.messages.length;
  const answer = await conn.request(Methods.SessionList.method, {});
  await sleep(300);
  const traces = conn.messages
    .slice(from)
    .filter(isLogTrace)
    .map((m) => ((m.message as JsonObject).params ?? {}) as JsonObject);
  return { traces, answer: describe(answer) };
}

export const initializedOnce: Scenario<DaemonContext> = {
  id: 'daemon-initialized-once',
  role: 'daemon',
  title: 'a second and a third initialized are ignored: no answer, and the connection serves on',
  checks: [INITIALIZED_ONCE],
  async run(ctx) {
    const { conn } = await ctx.connect();
    const from = conn.messages.length;
    conn.notify(Methods.Initialized.method, {});
    conn.notify(Methods.Initialized.method, {});
    const list = await conn.request(
      Methods.SessionList.method,
      {},
      {
        noResponseCheck: INITIALIZED_ONCE,
      },
    );
    await sleep(200);
    // Anything answering no request of ours: a reply to the notifications.
    const stray = conn.messages
      .slice(from)
      .find(
        (m) =>
          m.kind === 'response' &&
          (m.message as JsonObject).id !== (list === undefined ? undefined : list.id),
      );
    ctx.recorder.expect(
      INITIALIZED_ONCE,
      list?.result !== undefined && stray === undefined,
      stray
        ? `a repeated initialized was answered: ${JSON.stringify(stray.message).slice(0, 200)}`
        : `after a repeated initialized, session/list got ${describe(list)}`,
    );
  },
};

export const afterShutdownNotifications: Scenario<DaemonContext> = {
  id: 'daemon-after-shutdown-notifications',
  role: 'daemon',
  title: 'a $/setTrace sent after shutdown is dropped: no $/logTrace follows',
  checks: [NOTIFICATIONS],
  async run(ctx) {
    const { conn } = await ctx.connect();
    setTrace(conn, 'messages');
    const on = await tracesOf(conn);
    if (on.traces.length === 0)
      throw new Skip('no $/logTrace came with the trace value messages: the daemon does not trace');
    setTrace(conn, 'off');
    await sleep(200);
    if ((await tracesOf(conn)).traces.length > 0)
      throw new Skip('the daemon traces while off (daemon.lifecycle.logtrace-off)');
    const shutdown = await conn.request(Methods.Shutdown.method);
    if (!shutdown || shutdown.error) throw new Skip(`shutdown got ${describe(shutdown)}`);
    // A client must send nothing but exit now: the suite breaks that on purpose.
    conn.notify(Methods.SetTrace.method, { value: 'messages' } satisfies SetTraceParams, true);
    const after = await tracesOf(conn);
    ctx.recorder.expect(
      NOTIFICATIONS,
      after.traces.length === 0,
      `$/setTrace messages sent after shutdown was applied: a session/list (answered ${after.answer}) was traced (${JSON.stringify(after.traces[0] ?? null).slice(0, 200)})`,
    );
    conn.notify(Methods.Exit.method);
  },
};

const READ_TOOL = {
  name: 'conformance_read',
  description: 'A read-category client tool of the conformance suite.',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
  category: 'read',
};

export const noRequestsAfterShutdown: Scenario<DaemonContext> = {
  id: 'daemon-no-requests-after-shutdown',
  role: 'daemon',
  title:
    'the client that sent a turn shuts down before the turn calls its tool: no tool/execute (nor any request) reaches it',
  checks: [NO_REQUESTS],
  async run(ctx) {
    requireSocket(ctx.target, 'a turn that outlives the shutdown of the client that sent it');
    const sender = await ctx.connect('sender', {
      capabilities: { clientTools: {} },
      tools: [READ_TOOL],
    });
    requireDaemonCapability(sender.init, 'clientTools');
    sender.conn.handle(Methods.ToolExecute.method, () => ({ content: 'conformance read' }));
    const watcher = await ctx.connect('watcher');
    const sessionId = await scriptedSession(
      ctx,
      sender,
      {
        '*': [
          {
            delayMs: 1000,
            toolCalls: [
              { id: 'conformance-after-shutdown-1', name: READ_TOOL.name, arguments: {} },
            ],
          },
          { text: 'Finished.' },
        ],
      },
      'default',
      'editor',
    );
    await attach(ctx, watcher, sessionId, 'observer');
    const turnId = await send(
      ctx,
      sender.conn,
      sessionId,
      'conformance: shut down before the call',
    );
    const shutdown = await sender.conn.request(Methods.Shutdown.method);
    if (!shutdown || shutdown.error) throw new Skip(`shutdown got ${describe(shutdown)}`);
    const answeredAt = sender.conn.messages.findIndex(
      (m) => m.kind === 'response' && (m.message as JsonObject).id === shutdown.id,
    );
    // The turn calls the tool after its delay; how that call ends is not judged here.
    const ended = await watcher.conn.waitFor(isTurnEnd(sessionId, turnId), 8000);
    if (!ended) await sleep(500);
    const late = sender.conn.messages.slice(answeredAt + 1).find((m) => m.kind === 'request');
    ctx.recorder.expect(
      NO_REQUESTS,
      late === undefined,
      `after answering shutdown the daemon sent ${String((late?.message as JsonObject | undefined)?.method)} on that connection`,
    );
    sender.conn.notify(Methods.Exit.method);
  },
};

export const logTraceNoSecrets: Scenario<DaemonContext> = {
  id: 'daemon-logtrace-no-secrets',
  role: 'daemon',
  title: 'with verbose tracing asked for in initialize, no $/logTrace carries the socket token',
  checks: [NO_SECRETS],
  async run(ctx) {
    requireSocket(ctx.target, 'the token is the one secret the suite knows');
    if (ctx.target.kind !== 'socket') return;
    const token = ctx.target.token;
    // Traced from initialize on (lifecycle.md#lifecycle-initialize-trace), so its own trace may show.
    const c = await ctx.connect('traced', { params: { trace: 'verbose' } });
    setTrace(c.conn, 'verbose');
    await tracesOf(c.conn);
    // A second initialize carries the token again; it is refused (-33002) and may be traced.
    await c.conn.request(Methods.Initialize.method, ctx.initializeParams(), {
      noResponseCheck: 'daemon.lifecycle.initialize-once',
    });
    await sleep(300);
    const traces = c.conn.messages
      .filter(isLogTrace)
      .map((m) => JSON.stringify((m.message as JsonObject).params ?? {}));
    if (traces.length === 0) throw new Skip('no $/logTrace came: the daemon does not trace');
    const leak = traces.find((t) => t.includes(token));
    ctx.recorder.expect(
      NO_SECRETS,
      leak === undefined,
      `a $/logTrace carries the socket token: ${leak?.split(token).join('<token>').slice(0, 300)}`,
    );
  },
};
