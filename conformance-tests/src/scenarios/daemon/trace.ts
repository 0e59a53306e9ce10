/** $/logTrace follows the connection's trace value, and nothing before initialize sets it (lifecycle.md). */
import { Methods, type SetTraceParams, type TraceValue } from '@arbor/protocol';
import type { Connection, Incoming, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Skip } from '../scenario.js';
import { type DaemonContext, sleep } from './context.js';

const isLogTrace = (m: Incoming): boolean =>
  m.kind === 'notification' && (m.message as JsonObject).method === Methods.LogTrace.method;

/** The $/logTrace notifications that a session/list provokes, if any, within 300 ms. */
async function tracesOf(conn: Connection): Promise<JsonObject[]> {
  const from = conn.messages.length;
  await conn.request(Methods.SessionList.method, {});
  await sleep(300);
  return conn.messages
    .slice(from)
    .filter(isLogTrace)
    .map((m) => ((m.message as JsonObject).params ?? {}) as JsonObject);
}

/** A valid $/setTrace: the harness checks it against the schema like any message it sends. */
const setTrace = (conn: Connection, value: TraceValue): void =>
  conn.notify(Methods.SetTrace.method, { value } satisfies SetTraceParams);

export const trace: Scenario<DaemonContext> = {
  id: 'daemon-trace',
  role: 'daemon',
  title:
    'no $/logTrace while the trace value is off, no verbose unless it is verbose; a $/setTrace before initialize is dropped',
  checks: ['daemon.lifecycle.logtrace-off', 'daemon.lifecycle.early-notifications'],
  async run(ctx) {
    const r = ctx.recorder;
    const { conn } = await ctx.connect('trace');
    const off = await tracesOf(conn);
    r.expect(
      'daemon.lifecycle.logtrace-off',
      off.length === 0,
      `the trace value was off (never set), yet $/logTrace came: ${JSON.stringify(off[0])}`,
    );
    setTrace(conn, 'messages');
    const messages = await tracesOf(conn);
    if (messages.length === 0)
      throw new Skip('no $/logTrace came with the trace value messages: the daemon does not trace');
    r.expect(
      'daemon.lifecycle.logtrace-off',
      messages.every((p) => p.verbose === undefined),
      `with the trace value messages a $/logTrace carried verbose: ${JSON.stringify(messages.find((p) => p.verbose !== undefined))}`,
    );
    setTrace(conn, 'off');
    // A trace of the $/setTrace itself, written while the value was still messages, is
    // allowed, however late it arrives on a busy machine.
    await sleep(200);
    const offAgain = (await tracesOf(conn)).filter(
      (p) => !String(p.message).includes(`'${Methods.SetTrace.method}'`),
    );
    r.expect(
      'daemon.lifecycle.logtrace-off',
      offAgain.length === 0,
      `after $/setTrace off, $/logTrace still came: ${JSON.stringify(offAgain[0])}`,
    );
    if (off.length > 0 || offAgain.length > 0)
      throw new Skip('the daemon traces while off: a dropped $/setTrace cannot be told apart');

    // lifecycle.md#lifecycle-early-notifications: tracing asked for before initialize is dropped.
    const early = await ctx.open('early');
    setTrace(early.conn, 'verbose');
    early.conn.notify(Methods.Initialized.method, {});
    const init = await early.conn.request(Methods.Initialize.method, ctx.initializeParams(), {
      noResponseCheck: 'daemon.lifecycle.initialize-result',
    });
    if (!init?.result) throw new Skip('initialize failed');
    early.conn.notify(Methods.Initialized.method, {});
    const after = await tracesOf(early.conn);
    r.expect(
      'daemon.lifecycle.early-notifications',
      after.length === 0,
      `$/setTrace verbose sent before initialize was applied: $/logTrace came (${JSON.stringify(after[0])})`,
    );
  },
};
