/**
 * What clients written from the spec alone send (transport.md, lifecycle.md):
 * `"params": null`, `[]` for `{}` (Lua encoders), Arbor capabilities and tools
 * under `initializationOptions` (typed LSP clients), requests before
 * `initialized`, and `initialize.trace`.
 *
 * The approval cases reuse the approvals scenarios' setup: a write-category
 * client tool in an editor session in default mode must be asked of a client
 * that declared `approvals`, and once allowed it runs through `tool/execute`.
 */
import { Methods } from '@arbor/protocol';
import type { Connection, Incoming, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { WRITE_TOOL } from './approvals.js';
import {
  type DaemonContext,
  type Initialized,
  describe,
  errorCode,
  exitCode,
  requireDaemonCapability,
  sleep,
} from './context.js';
import { isTurnEnd, scriptedSession, send } from './turns.js';

const CAPS = { approvals: {}, clientTools: {} };

const isRequest =
  (method?: string) =>
  (m: Incoming): boolean =>
    m.kind === 'request' && (method === undefined || (m.message as JsonObject).method === method);

const isRequiresAction =
  (sessionId: string) =>
  (m: Incoming): boolean => {
    const msg = m.message as JsonObject;
    const p = (msg.params ?? {}) as JsonObject;
    return (
      m.kind === 'notification' &&
      msg.method === Methods.SessionState.method &&
      p.sessionId === sessionId &&
      p.state === 'requires_action'
    );
  };

interface Watched {
  asked: JsonObject[];
  executed: JsonObject[];
}

/** Allows every approval and answers every tool/execute. */
function watch(conn: Connection): Watched {
  const watched: Watched = { asked: [], executed: [] };
  conn.handle(Methods.ApprovalRequest.method, (params) => {
    watched.asked.push(params as JsonObject);
    return { decision: 'allow' };
  });
  conn.handle(Methods.ToolExecute.method, (params) => {
    watched.executed.push(params as JsonObject);
    return { content: 'conformance: nothing was written' };
  });
  return watched;
}

/** Starts a turn whose one call is of the write-category client tool. */
async function startWriteCall(
  ctx: DaemonContext,
  c: Initialized,
  callId: string,
): Promise<{ sessionId: string; turnId: string }> {
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
  const turnId = await send(ctx, c.conn, sessionId, `conformance: ${callId}`);
  return { sessionId, turnId };
}

/**
 * `check` passes when the call is asked (from message `from` on) and, allowed,
 * runs through tool/execute. The turn's own checks are judged elsewhere, so it
 * is only waited for (and cancelled when it hangs).
 */
async function judgeWriteCall(
  ctx: DaemonContext,
  c: Initialized,
  watched: Watched,
  started: { sessionId: string; turnId: string },
  check: string,
  what: string,
  from = 0,
): Promise<void> {
  const { sessionId, turnId } = started;
  const asked = await c.conn.waitFor(isRequest(Methods.ApprovalRequest.method), 5000, from);
  if (!asked) {
    ctx.recorder.fail(
      check,
      `${what}: no tool/approvalRequest for a write-category client tool in default mode within 5 s`,
    );
    await c.conn.request(Methods.ChatCancel.method, { sessionId, turnId });
    return;
  }
  if (!(await c.conn.waitFor(isTurnEnd(sessionId, turnId), 5000)))
    await c.conn.request(Methods.ChatCancel.method, { sessionId, turnId });
  ctx.recorder.expect(
    check,
    watched.executed.length === 1 && watched.executed[0]!.name === WRITE_TOOL.name,
    `${what}: the allowed call of the client tool ${WRITE_TOOL.name} was sent as ${watched.executed.length} tool/execute (expected 1)`,
  );
}

export const nullParams: Scenario<DaemonContext> = {
  id: 'daemon-null-params',
  role: 'daemon',
  title:
    '"params": null is params omitted: initialized, session/list, session/load (-32602), shutdown, exit',
  checks: ['daemon.jsonrpc.null-params', 'daemon.lifecycle.exit-code'],
  async run(ctx) {
    const r = ctx.recorder;
    const check = 'daemon.jsonrpc.null-params';
    const c = await ctx.initialize('null-params');
    c.conn.notify(Methods.Initialized.method, null);
    const list = await c.conn.request(Methods.SessionList.method, null, {
      noResponseCheck: check,
    });
    if (list)
      r.expect(
        check,
        Array.isArray((list.result as JsonObject | undefined)?.sessions),
        `session/list with params null got ${describe(list)}, expected its result`,
      );
    // Omitted params read as {}: a method with required members answers -32602.
    const load = await c.conn.request(Methods.SessionLoad.method, null, {
      noResponseCheck: check,
      deliberate: true,
    });
    if (load)
      r.expect(
        check,
        errorCode(load) === -32602,
        `session/load with params null got ${describe(load)}, expected -32602 (sessionId is missing)`,
      );
    const shutdown = await c.conn.request(Methods.Shutdown.method, null, {
      noResponseCheck: check,
    });
    if (
      !shutdown ||
      !r.expect(
        check,
        shutdown.result === null && shutdown.error === undefined,
        `shutdown with params null got ${describe(shutdown)}, expected the result null`,
      )
    )
      return;
    c.conn.notify(Methods.Exit.method, null);
    if (ctx.target.kind === 'stdio') {
      const code = await exitCode(c.exit, 3000);
      if (
        r.expect(
          check,
          code !== 'timeout',
          'the daemon did not exit within 3 s of exit with params null',
        )
      )
        // Honouring exit is this check's to judge; its code is exit-code's.
        r.expect(
          'daemon.lifecycle.exit-code',
          code === 0,
          `exit with params null after shutdown ended the daemon with code ${String(code)}, expected 0`,
        );
      return;
    }
    const closed = await Promise.race([c.conn.closed.then(() => true), sleep(3000)]);
    r.expect(
      check,
      closed === true,
      'the daemon did not close the connection within 3 s of exit with params null',
    );
  },
};

export const emptyArrays: Scenario<DaemonContext> = {
  id: 'daemon-empty-arrays',
  role: 'daemon',
  title:
    '[] stands for {}: session/list [], initialized [], capabilities {approvals: [], clientTools: []} (the client is asked)',
  checks: ['daemon.jsonrpc.empty-array-object'],
  async run(ctx) {
    const check = 'daemon.jsonrpc.empty-array-object';
    const c = await ctx.initialize('lua-client', {
      capabilities: { approvals: [], clientTools: [] },
      tools: [WRITE_TOOL],
    });
    const watched = watch(c.conn);
    // A daemon that drops this initialized never sends the approval request below.
    c.conn.notify(Methods.Initialized.method, []);
    const list = await c.conn.request(Methods.SessionList.method, [], { noResponseCheck: check });
    if (list)
      ctx.recorder.expect(
        check,
        Array.isArray((list.result as JsonObject | undefined)?.sessions),
        `session/list with params [] got ${describe(list)}, expected its result`,
      );
    requireDaemonCapability(c.init, 'clientTools');
    const started = await startWriteCall(ctx, c, 'conformance-empty-array-1');
    await judgeWriteCall(
      ctx,
      c,
      watched,
      started,
      check,
      'with capabilities {approvals: [], clientTools: []} and initialized []',
    );
  },
};

export const initializationOptions: Scenario<DaemonContext> = {
  id: 'daemon-initialization-options',
  role: 'daemon',
  title:
    'a typed LSP client: approvals, clientTools and tools only under initializationOptions; it is asked and its tool runs',
  checks: ['daemon.lifecycle.initialization-options'],
  async run(ctx) {
    const c = await ctx.connect('typed-lsp-client', {
      // LSP's own ClientCapabilities at the top level, as lsprotocol sends them.
      capabilities: { textDocument: { synchronization: {} } },
      params: {
        initializationOptions: {
          protocolVersion: ctx.protocolVersion,
          capabilities: CAPS,
          tools: [WRITE_TOOL],
        },
      },
    });
    requireDaemonCapability(c.init, 'clientTools');
    const watched = watch(c.conn);
    const started = await startWriteCall(ctx, c, 'conformance-init-options-1');
    await judgeWriteCall(
      ctx,
      c,
      watched,
      started,
      'daemon.lifecycle.initialization-options',
      'approvals, clientTools and tools declared under initializationOptions',
    );
  },
};

export const quietBeforeInitialized: Scenario<DaemonContext> = {
  id: 'daemon-quiet-before-initialized',
  role: 'daemon',
  title:
    'a turn started before initialized: its tool/approvalRequest waits for initialized, then comes',
  checks: ['daemon.lifecycle.quiet-before-initialized'],
  async run(ctx) {
    const check = 'daemon.lifecycle.quiet-before-initialized';
    const c = await ctx.initialize('early-client', { capabilities: CAPS, tools: [WRITE_TOOL] });
    requireDaemonCapability(c.init, 'clientTools');
    const watched = watch(c.conn);
    const started = await startWriteCall(ctx, c, 'conformance-early-1');
    // The approval is due once the call waits for it; a request sent anyway arrives with it.
    await c.conn.waitFor((m) => isRequest()(m) || isRequiresAction(started.sessionId)(m), 5000);
    await sleep(300);
    const early = c.conn.messages.filter(isRequest());
    const from = c.conn.messages.length;
    c.conn.notify(Methods.Initialized.method, {});
    if (early.length === 0) {
      await judgeWriteCall(ctx, c, watched, started, check, 'once initialized was sent', from);
      return;
    }
    ctx.recorder.fail(
      check,
      `the daemon sent ${early.map((m) => String((m.message as JsonObject).method)).join(', ')} before the client sent initialized`,
    );
    await c.conn.waitFor(isTurnEnd(started.sessionId, started.turnId), 5000);
  },
};

export const initializeTrace: Scenario<DaemonContext> = {
  id: 'daemon-initialize-trace',
  role: 'daemon',
  title: 'initialize with trace "messages" turns tracing on: $/logTrace without $/setTrace',
  checks: ['daemon.lifecycle.initialize-trace'],
  async run(ctx) {
    const c = await ctx.connect('tracing', { params: { trace: 'messages' } });
    await c.conn.request(Methods.SessionList.method, {});
    const trace = await c.conn.waitFor(
      (m) =>
        m.kind === 'notification' && (m.message as JsonObject).method === Methods.LogTrace.method,
      2000,
    );
    ctx.recorder.expect(
      'daemon.lifecycle.initialize-trace',
      trace !== undefined,
      'initialize had trace "messages", yet no $/logTrace came within 2 s of a session/list',
    );
  },
};
