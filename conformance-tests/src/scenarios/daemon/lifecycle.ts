/** Lifecycle order, shutdown, version negotiation and the socket token (lifecycle.md, versioning.md). */
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort } from '../scenario.js';
import {
  type DaemonContext,
  closedWithin,
  describe,
  errorCode,
  exitCode,
  requireSocket,
  requireStdio,
} from './context.js';
import { isTurnEnd, isTurnEvent, scriptedSession, send } from './turns.js';

export const lifecycleOrder: Scenario<DaemonContext> = {
  id: 'daemon-lifecycle',
  role: 'daemon',
  title: 'nothing before initialize, initialize once, only exit after shutdown, exit code 0',
  checks: [
    'daemon.lifecycle.not-initialized',
    'daemon.lifecycle.initialize-result',
    'daemon.version.supported',
    'daemon.lifecycle.initialize-once',
    'daemon.lifecycle.after-shutdown',
    'daemon.lifecycle.exit-code',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const { conn, exit } = await ctx.open();
    const early = await conn.request(
      Methods.SessionList.method,
      {},
      { noResponseCheck: 'daemon.lifecycle.not-initialized' },
    );
    if (early)
      r.expect(
        'daemon.lifecycle.not-initialized',
        errorCode(early) === -32002,
        `session/list before initialize got ${describe(early)}, expected -32002`,
      );

    const init = await conn.request(Methods.Initialize.method, ctx.initializeParams(), {
      noResponseCheck: 'daemon.lifecycle.initialize-result',
    });
    const result = init?.result as { protocolVersion?: number } | undefined;
    if (
      !r.expect(
        'daemon.lifecycle.initialize-result',
        result !== undefined,
        `initialize got ${describe(init)}`,
      )
    )
      throw new Abort('initialize failed');
    r.expect(
      'daemon.version.supported',
      result?.protocolVersion === ctx.protocolVersion,
      `a client speaking ${ctx.protocolVersion} got protocolVersion ${result?.protocolVersion}`,
    );
    conn.notify(Methods.Initialized.method, {});

    const again = await conn.request(Methods.Initialize.method, ctx.initializeParams(), {
      noResponseCheck: 'daemon.lifecycle.initialize-once',
    });
    if (again)
      r.expect(
        'daemon.lifecycle.initialize-once',
        errorCode(again) === -33002,
        `a second initialize got ${describe(again)}, expected -33002`,
      );

    const shutdown = await conn.request(Methods.Shutdown.method, undefined, {
      noResponseCheck: 'daemon.lifecycle.after-shutdown',
    });
    if (!shutdown || shutdown.error) {
      r.fail('daemon.lifecycle.after-shutdown', `shutdown got ${describe(shutdown)}`);
      return;
    }
    const late = await conn.request(
      Methods.SessionList.method,
      {},
      { noResponseCheck: 'daemon.lifecycle.after-shutdown' },
    );
    if (late)
      r.expect(
        'daemon.lifecycle.after-shutdown',
        errorCode(late) === -32600,
        `session/list after shutdown got ${describe(late)}, expected -32600`,
      );

    conn.notify(Methods.Exit.method);
    if (ctx.target.kind !== 'stdio') {
      r.skip('daemon.lifecycle.exit-code', 'on a socket, exit closes only the connection');
      return;
    }
    const code = await exitCode(exit, 3000);
    r.expect(
      'daemon.lifecycle.exit-code',
      code === 0,
      code === 'timeout'
        ? 'the daemon did not exit within 3 s of exit'
        : `the daemon exited with code ${code} after shutdown and exit, expected 0`,
    );
  },
};

export const exitWithoutShutdown: Scenario<DaemonContext> = {
  id: 'daemon-exit-without-shutdown',
  role: 'daemon',
  title: 'exit without shutdown ends a stdio daemon with code 1',
  checks: ['daemon.lifecycle.exit-code'],
  async run(ctx) {
    requireStdio(ctx.target, 'the exit code of a daemon process');
    const { conn, exit } = await ctx.connect();
    conn.notify(Methods.Exit.method);
    const code = await exitCode(exit, 3000);
    ctx.recorder.expect(
      'daemon.lifecycle.exit-code',
      code === 1,
      code === 'timeout'
        ? 'the daemon did not exit within 3 s of exit'
        : `exit without shutdown ended the daemon with code ${code}, expected 1`,
    );
  },
};

export const versionNegotiation: Scenario<DaemonContext> = {
  id: 'daemon-version',
  role: 'daemon',
  title: "a newer client gets min(its version, the daemon's newest); an absent version means 1",
  checks: ['daemon.version.newer-client', 'daemon.version.absent-means-1'],
  async run(ctx) {
    const r = ctx.recorder;
    const future = ctx.protocolVersion + 98;
    const a = await ctx.open('future');
    const answer = await a.conn.request(
      Methods.Initialize.method,
      ctx.initializeParams({ params: { protocolVersion: future } }),
      { noResponseCheck: 'daemon.version.newer-client' },
    );
    if (answer) {
      // v = min(client, daemon's newest) is a version the daemon speaks: below `future`, never -33001.
      const version = (answer.result as { protocolVersion?: number } | undefined)?.protocolVersion;
      const ok = typeof version === 'number' && version >= 1 && version < future;
      r.expect(
        'daemon.version.newer-client',
        ok,
        `initialize with protocolVersion ${future} got ${describe(answer)}, expected the daemon's newest version`,
      );
    }
    const b = await ctx.open('absent');
    const plain = await b.conn.request(
      Methods.Initialize.method,
      ctx.initializeParams({ params: { protocolVersion: undefined } }),
      { noResponseCheck: 'daemon.version.absent-means-1' },
    );
    if (plain) {
      const version = (plain.result as { protocolVersion?: number } | undefined)?.protocolVersion;
      r.expect(
        'daemon.version.absent-means-1',
        version === 1,
        `initialize without protocolVersion got ${describe(plain)}, expected protocolVersion 1`,
      );
    }
  },
};

/** Tokens that are no token (lifecycle.md#lifecycle-token-rejected, #lifecycle-token-both-equal). */
function badTokens(token: string): [string, Record<string, unknown>][] {
  return [
    ['no token', { token: undefined }],
    ['a wrong token', { token: 'not-the-token' }],
    ['a number as token', { token: 42 }],
    ['an array as token', { token: [token] }],
    ['an object as token', { token: { value: token } }],
    [
      'the token and a different initializationOptions.token',
      { token, initializationOptions: { token: `${token}-other` } },
    ],
    [
      'a number as initializationOptions.token',
      { token: undefined, initializationOptions: { token: 7 } },
    ],
  ];
}

export const socketToken: Scenario<DaemonContext> = {
  id: 'daemon-socket-token',
  role: 'daemon',
  title:
    'a socket initialize without the right token (missing, wrong, not a string, two that differ) gets -33000, then the connection closes',
  checks: ['daemon.transport.socket-token'],
  async run(ctx) {
    requireSocket(ctx.target, 'the token is a socket feature');
    const check = 'daemon.transport.socket-token';
    const cases = badTokens(ctx.target.kind === 'socket' ? ctx.target.token : '');
    // One at a time: a daemon may cap the connections that have not authenticated yet.
    for (const [i, [label, params]] of cases.entries()) {
      const { conn } = await ctx.open(`token-${i + 1}`);
      const answer = await conn.request(
        Methods.Initialize.method,
        ctx.initializeParams({ params }),
        { noResponseCheck: check, deliberate: true },
      );
      if (!answer) continue;
      if (
        !ctx.recorder.expect(
          check,
          errorCode(answer) === -33000,
          `initialize with ${label} got ${describe(answer)}, expected -33000`,
        )
      )
        continue;
      ctx.recorder.expect(
        check,
        await closedWithin(conn, 2000),
        `the connection stayed open for 2 s after -33000 to initialize with ${label}`,
      );
    }
  },
};

export const shutdownParams: Scenario<DaemonContext> = {
  id: 'daemon-shutdown-params',
  role: 'daemon',
  title: 'shutdown with params absent, null, {} or [] answers null; with [1] -32602',
  checks: ['daemon.lifecycle.shutdown-params'],
  async run(ctx) {
    const r = ctx.recorder;
    const check = 'daemon.lifecycle.shutdown-params';
    for (const [label, params] of [
      ['absent', undefined],
      ['null', null],
      ['{}', {}],
      ['[]', []],
    ] as const) {
      const { conn } = await ctx.connect(`shutdown-${label}`);
      if (label === '[]') {
        // Refused, so the connection is not shut down and the valid shutdown still works.
        const bad = await conn.request(Methods.Shutdown.method, [1], {
          noResponseCheck: check,
          deliberate: true,
        });
        if (bad)
          r.expect(
            check,
            errorCode(bad) === -32602,
            `shutdown with params [1] got ${describe(bad)}, expected -32602`,
          );
      }
      const answer = await conn.request(Methods.Shutdown.method, params, {
        noResponseCheck: check,
      });
      if (answer)
        r.expect(
          check,
          answer.result === null && answer.error === undefined,
          `shutdown with params ${label} got ${describe(answer)}, expected the result null`,
        );
      conn.notify(Methods.Exit.method);
    }
  },
};

export const shutdownStdioTurns: Scenario<DaemonContext> = {
  id: 'daemon-shutdown-turn',
  role: 'daemon',
  title: 'stdio: shutdown while a turn runs ends it cancelled before the shutdown result',
  checks: ['daemon.lifecycle.shutdown-stdio-turns'],
  async run(ctx) {
    requireStdio(ctx.target, 'only a daemon process about to exit stops its turns on shutdown');
    const c = await ctx.connect();
    const sessionId = await scriptedSession(ctx, c, {
      '*': [{ text: 'This reply takes a while.', delayMs: 5000 }],
    });
    const turnId = await send(ctx, c.conn, sessionId, 'conformance: shut down while a turn runs');
    await c.conn.waitFor(isTurnEvent(sessionId, turnId), 3000);
    const shutdown = await c.conn.request(Methods.Shutdown.method);
    if (!shutdown) return; // blamed on daemon.wire.response-per-request
    if (shutdown.error) {
      ctx.recorder.fail(
        'daemon.lifecycle.shutdown-stdio-turns',
        `shutdown during a turn got ${describe(shutdown)}`,
      );
      return;
    }
    const answeredAt = c.conn.messages.findIndex(
      (m) => m.kind === 'response' && (m.message as JsonObject).id === shutdown.id,
    );
    const end = c.conn.messages.slice(0, answeredAt).find(isTurnEnd(sessionId, turnId));
    const stopReason = ((end?.message as JsonObject | undefined)?.params as JsonObject | undefined)
      ?.stopReason;
    ctx.recorder.expect(
      'daemon.lifecycle.shutdown-stdio-turns',
      stopReason === 'cancelled',
      end
        ? `the turn running at shutdown ended with stopReason ${String(stopReason)}, expected cancelled`
        : 'the shutdown result came before the running turn ended (session/state idle, stopReason cancelled)',
    );
    c.conn.notify(Methods.Exit.method);
  },
};

export const stdioToken: Scenario<DaemonContext> = {
  id: 'daemon-stdio-token',
  role: 'daemon',
  title: 'stdio needs no token: one sent anyway (two that differ, even) is ignored',
  checks: ['daemon.lifecycle.token-stdio'],
  async run(ctx) {
    requireStdio(ctx.target, 'the token is a socket feature');
    const { conn } = await ctx.open();
    const answer = await conn.request(
      Methods.Initialize.method,
      ctx.initializeParams({
        params: {
          token: 'conformance-not-a-token',
          initializationOptions: { token: 'conformance-another-one' },
        },
      }),
      { noResponseCheck: 'daemon.lifecycle.token-stdio' },
    );
    if (answer)
      ctx.recorder.expect(
        'daemon.lifecycle.token-stdio',
        answer.result !== undefined,
        `initialize over stdio with a token got ${describe(answer)}, expected the token to be ignored`,
      );
  },
};

export const initializeRetry: Scenario<DaemonContext> = {
  id: 'daemon-initialize-retry',
  role: 'daemon',
  title:
    'an initialize refused with -32602 leaves the connection uninitialized: the next one works',
  checks: ['daemon.lifecycle.failed-initialize-retry'],
  async run(ctx) {
    const r = ctx.recorder;
    const check = 'daemon.lifecycle.failed-initialize-retry';
    const { conn } = await ctx.open();
    // protocolVersion 0 is no version at all: v = min(0, …) cannot be supported.
    const refused = await conn.request(
      Methods.Initialize.method,
      ctx.initializeParams({ params: { protocolVersion: 0 } }),
      { noResponseCheck: check, deliberate: true },
    );
    if (!refused) return;
    if (
      !r.expect(
        check,
        errorCode(refused) === -32602 || errorCode(refused) === -33001,
        `initialize with protocolVersion 0 got ${describe(refused)}, expected -32602 or -33001`,
      )
    )
      return;
    const retry = await conn.request(Methods.Initialize.method, ctx.initializeParams(), {
      noResponseCheck: check,
    });
    if (retry)
      r.expect(
        check,
        retry.result !== undefined,
        `a valid initialize after one refused with ${errorCode(refused)} got ${describe(retry)}`,
      );
  },
};
