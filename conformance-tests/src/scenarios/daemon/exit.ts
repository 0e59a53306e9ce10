/** How a connection ends: exit in any state, exit on a socket, detaching on shutdown (lifecycle.md). */
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort } from '../scenario.js';
import {
  type DaemonContext,
  closedWithin,
  describe,
  exitCode,
  requireSocket,
  sleep,
} from './context.js';

export const exitAnyState: Scenario<DaemonContext> = {
  id: 'daemon-exit-before-initialize',
  role: 'daemon',
  title: 'exit before initialize, with params that mean nothing, still ends the connection',
  checks: ['daemon.lifecycle.exit-any-state'],
  async run(ctx) {
    const { conn, exit } = await ctx.open();
    // A request first, so the daemon is known to be up and reading (it is refused: -32002).
    await conn.request(
      Methods.SessionList.method,
      {},
      {
        noResponseCheck: 'daemon.lifecycle.exit-any-state',
      },
    );
    // Whatever its params (lifecycle.md#lifecycle-exit-any-state): these are none a client sends.
    conn.notify(Methods.Exit.method, [1, 'two'], true);
    const ended =
      ctx.target.kind === 'stdio'
        ? (await exitCode(exit, 3000)) !== 'timeout'
        : // Well before any deadline for connections that never authenticate.
          await closedWithin(conn, 1000);
    ctx.recorder.expect(
      'daemon.lifecycle.exit-any-state',
      ended,
      ctx.target.kind === 'stdio'
        ? 'the daemon still ran 3 s after exit sent before initialize'
        : 'the connection stayed open for 1 s after exit sent before initialize',
    );
  },
};

export const exitSocket: Scenario<DaemonContext> = {
  id: 'daemon-exit-socket',
  role: 'daemon',
  title: 'on a socket, exit closes that connection only; the others are still served',
  checks: ['daemon.lifecycle.exit-socket'],
  async run(ctx) {
    requireSocket(ctx.target, 'on stdio exit ends the daemon');
    const other = await ctx.connect('other');
    const leaving = await ctx.connect('leaving');
    leaving.conn.notify(Methods.Exit.method);
    ctx.recorder.expect(
      'daemon.lifecycle.exit-socket',
      await closedWithin(leaving.conn, 2000),
      'the connection that sent exit stayed open for 2 s',
    );
    const still = await other.conn.request(
      Methods.SessionList.method,
      {},
      { noResponseCheck: 'daemon.lifecycle.exit-socket' },
    );
    if (still)
      ctx.recorder.expect(
        'daemon.lifecycle.exit-socket',
        still.result !== undefined,
        `another connection got ${describe(still)} after one sent exit`,
      );
  },
};

export const shutdownDetach: Scenario<DaemonContext> = {
  id: 'daemon-shutdown-detach',
  role: 'daemon',
  title: 'shutdown detaches the connection from its sessions: none of their events follow',
  checks: ['daemon.lifecycle.shutdown-detach'],
  async run(ctx) {
    requireSocket(ctx.target, 'another client must change the session after the shutdown');
    const a = await ctx.connect('shutting-down');
    const created = await a.conn.request(Methods.SessionNew.method, {
      workspaceRoot: ctx.workspace,
    });
    const sessionId = (created?.result as JsonObject | undefined)?.sessionId;
    if (typeof sessionId !== 'string') {
      ctx.recorder.fail('daemon.sessions.new', `session/new got ${describe(created)}`);
      throw new Abort('no session');
    }
    const b = await ctx.connect('other');
    const attach = await b.conn.request(Methods.SessionAttach.method, {
      sessionId,
      role: 'controller',
    });
    if (!attach?.result) throw new Abort(`session/attach got ${describe(attach)}`);
    const shutdown = await a.conn.request(Methods.Shutdown.method);
    if (!shutdown || shutdown.error) throw new Abort(`shutdown got ${describe(shutdown)}`);
    const from = a.conn.messages.length;
    const changed = await b.conn.request(Methods.SessionSetPermissionMode.method, {
      sessionId,
      mode: 'plan',
    });
    if (!changed?.result) throw new Abort(`session/setPermissionMode got ${describe(changed)}`);
    await sleep(300);
    const late = a.conn.messages
      .slice(from)
      .filter(
        (m) =>
          m.kind === 'notification' &&
          ((m.message as JsonObject).params as JsonObject | undefined)?.sessionId === sessionId,
      );
    ctx.recorder.expect(
      'daemon.lifecycle.shutdown-detach',
      late.length === 0,
      `after its shutdown was answered the connection still got ${late.map((m) => String((m.message as JsonObject).method)).join(', ')} of a session it had created`,
    );
  },
};
