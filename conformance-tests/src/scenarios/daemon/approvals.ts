/**
 * Approvals and client tools (approvals.md, client-tools.md,
 * sessions.md#pending-approvals-on-attach), driven by the scripted provider.
 *
 * Every scenario declares client tools in `initialize` and runs in an `editor`
 * session in `default` mode: a `write`-category client tool must be asked, a
 * `read` one must run at once. Client tools are the one kind of tool the
 * protocol itself defines (a daemon's own tools are its business), so these
 * scenarios run unchanged against any daemon that advertises `clientTools` and
 * `testing.scriptedProvider`; "the call ran" is observed exactly, as the
 * `tool/execute` the suite receives. Two-client scenarios need a socket.
 */
import { Methods } from '@arbor/protocol';
import type { Recorder } from '../../checks/results.js';
import {
  DeliberateResult,
  RpcError,
  type Connection,
  type Incoming,
  type JsonObject,
} from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort } from '../scenario.js';
import {
  type DaemonContext,
  type Initialized,
  type Note,
  describe,
  notes,
  requireDaemonCapability,
  requireSocket,
  sleep,
} from './context.js';
import { isTurnEnd, scriptedSession, send, waitTurnEnd } from './turns.js';

const CAPS = { approvals: {}, clientTools: {} };
export const WRITE_TOOL = {
  name: 'conformance_write',
  description: 'A write-category client tool of the conformance suite; it writes nothing.',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
  category: 'write',
};
const READ_TOOL = {
  name: 'conformance_read',
  description: 'A read-category client tool of the conformance suite.',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
  category: 'read',
};
const CANCEL = '$/cancelRequest';
/** What the suite's tool/execute answers: the model must see it as the call's result. */
const resultOf = (toolCallId: unknown): string => `conformance result of ${String(toolCallId)}`;

interface Asked {
  params: JsonObject;
  id: string | number;
}

interface Client extends Initialized {
  asked: Asked[];
  executed: JsonObject[];
}

type Answer = (params: JsonObject, id: string | number, conn: Connection) => unknown;

/** Connects with client.approvals + client.clientTools, both tools declared; skips without the capabilities. */
async function client(ctx: DaemonContext, label: string, answer: Answer): Promise<Client> {
  const c = await ctx.connect(label, { capabilities: CAPS, tools: [WRITE_TOOL, READ_TOOL] });
  requireDaemonCapability(c.init, 'testing.scriptedProvider');
  requireDaemonCapability(c.init, 'clientTools');
  const asked: Asked[] = [];
  const executed: JsonObject[] = [];
  c.conn.handle(Methods.ApprovalRequest.method, (params, message) => {
    const id = message.id as string | number;
    asked.push({ params: params as JsonObject, id });
    return answer(params as JsonObject, id, c.conn);
  });
  c.conn.handle(Methods.ToolExecute.method, (params) => {
    executed.push(params as JsonObject);
    return { content: resultOf((params as JsonObject).toolCallId) };
  });
  return { ...c, asked, executed };
}

const isCancelOf =
  (id: string | number) =>
  (m: Incoming): boolean => {
    const msg = m.message as JsonObject;
    return (
      m.kind === 'notification' &&
      msg.method === CANCEL &&
      (msg.params as JsonObject | undefined)?.id === id
    );
  };

const isResolvedOf =
  (toolCallId: string) =>
  (m: Incoming): boolean => {
    const msg = m.message as JsonObject;
    return (
      m.kind === 'notification' &&
      msg.method === Methods.ApprovalResolved.method &&
      (msg.params as JsonObject | undefined)?.toolCallId === toolCallId
    );
  };

/** Never decides: answers -32800 once cancelled (or after `waitMs`, `fallback` if given). */
const untilCancelled =
  (waitMs: number, fallback?: JsonObject): Answer =>
  async (_params, id, conn) => {
    const cancelled = await conn.waitFor(isCancelOf(id), waitMs);
    if (cancelled || !fallback) throw new RpcError(-32800, 'Request cancelled');
    return fallback;
  };

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) return false;
    await sleep(20);
  }
  return true;
}

const call = (id: string, tool = WRITE_TOOL.name, n = 1): JsonObject => ({
  toolCalls: [{ id, name: tool, arguments: { n } }],
});
const script = (...replies: JsonObject[]): JsonObject => ({ '*': replies });

async function attach(
  ctx: DaemonContext,
  c: Client,
  sessionId: string,
  role: 'controller' | 'observer',
): Promise<number> {
  const response = await c.conn.request(Methods.SessionAttach.method, { sessionId, role });
  if ((response?.result as JsonObject | undefined)?.role !== role) {
    ctx.recorder.fail(
      'daemon.sessions.attach-role',
      `session/attach as ${role} by a second client got ${describe(response)}`,
    );
    throw new Abort('attach failed');
  }
  return c.conn.messages.findIndex(
    (m) => m.kind === 'response' && (m.message as JsonObject).id === response!.id,
  );
}

function requestIndex(conn: Connection, id: string | number): number {
  return conn.messages.findIndex(
    (m) => m.kind === 'request' && (m.message as JsonObject).id === id,
  );
}

/** The turn's tree as a client rebuilds it: upserts merged by id. */
function tree(events: Note[], turnId: string): Map<string, JsonObject> {
  const view = new Map<string, JsonObject>();
  for (const e of events) {
    if (e.method !== Methods.TreeUpdate.method || e.params.turnId !== turnId) continue;
    for (const node of (e.params.nodes ?? []) as JsonObject[])
      view.set(String(node.id), { ...view.get(String(node.id)), ...node });
  }
  return view;
}

const resolvedOf = (events: Note[], toolCallId: string): Note[] =>
  events.filter(
    (e) => e.method === Methods.ApprovalResolved.method && e.params.toolCallId === toolCallId,
  );

const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 300) ?? 'missing';

/** Waits for the first tool/approvalRequest to `c`; fails ask-controllers and aborts without one. */
async function firstAsk(ctx: DaemonContext, c: Client): Promise<Asked> {
  const got = await c.conn.waitFor(
    (m) =>
      m.kind === 'request' && (m.message as JsonObject).method === Methods.ApprovalRequest.method,
    5000,
  );
  await until(() => c.asked.length > 0, 1000);
  if (!got || c.asked.length === 0) {
    ctx.recorder.fail(
      'daemon.approvals.ask-controllers',
      'no tool/approvalRequest for a write-category client tool in default mode within 5 s',
    );
    throw new Abort('not asked');
  }
  return c.asked[0]!;
}

/** One controller was asked exactly once about `toolCallId`. */
function checkAskedOnce(r: Recorder, c: Client, toolCallId: string, tool: string): boolean {
  const about = c.asked.filter((a) => a.params.toolCallId === toolCallId);
  return r.expect(
    'daemon.approvals.ask-controllers',
    about.length === 1 && about[0]!.params.name === tool && c.asked.length === 1,
    `${c.conn.label} got ${c.asked.length} tool/approvalRequest (${show(c.asked.map((a) => a.params))}); expected one for ${tool} call ${toolCallId}`,
  );
}

/** awaiting_approval and requires_action both come before the request. */
function checkBeforeAsking(r: Recorder, c: Client, events: Note[], asked: Asked): void {
  const at = requestIndex(c.conn, asked.id);
  const before = events.filter((e) => e.index < at);
  const awaiting = before.some(
    (e) =>
      e.method === Methods.TreeUpdate.method &&
      ((e.params.nodes ?? []) as JsonObject[]).some(
        (n) => n.id === asked.params.nodeId && n.status === 'awaiting_approval',
      ),
  );
  r.expect(
    'daemon.approvals.node-awaiting',
    awaiting,
    `no tree/update announced node ${String(asked.params.nodeId)} as awaiting_approval before its tool/approvalRequest`,
  );
  const lastState = before.filter(
    (e) => e.method === Methods.SessionState.method && e.params.turnId === asked.params.turnId,
  );
  const state = lastState[lastState.length - 1]?.params.state;
  r.expect(
    'daemon.approvals.requires-action',
    state === 'requires_action',
    `the last session/state before tool/approvalRequest was ${String(state)}, expected requires_action`,
  );
}

/** Exactly one tool/approvalResolved for the call on each connection (with `outcome`, if given). */
function checkResolved(
  r: Recorder,
  clients: { label: string; events: Note[] }[],
  toolCallId: string,
  outcome?: string,
): Note | undefined {
  let ok = true;
  for (const { label, events } of clients) {
    const got = resolvedOf(events, toolCallId);
    if (got.length !== 1 || (outcome !== undefined && got[0]!.params.outcome !== outcome)) {
      ok = false;
      r.fail(
        'daemon.approvals.resolved',
        `${label} got ${got.length} tool/approvalResolved for ${toolCallId} (${show(got.map((g) => g.params))}); expected exactly one${outcome ? `, outcome ${outcome}` : ''}`,
      );
    }
  }
  if (ok) r.pass('daemon.approvals.resolved');
  return resolvedOf(clients[0]!.events, toolCallId)[0];
}

function checkDecisionFields(
  r: Recorder,
  resolved: Note | undefined,
  decision?: string,
  decidedBy?: string,
): void {
  if (!resolved) return;
  const p = resolved.params;
  r.expect(
    'daemon.approvals.decision-fields',
    decision === undefined
      ? !('decision' in p) && !('decidedBy' in p)
      : p.decision === decision && p.decidedBy === decidedBy,
    decision === undefined
      ? `no client decided, yet tool/approvalResolved carries decision/decidedBy: ${show(p)}`
      : `tool/approvalResolved ${show(p)}; expected decision ${decision}, decidedBy ${String(decidedBy)}`,
  );
}

function checkBackToRunning(r: Recorder, events: Note[], resolved: Note | undefined): void {
  if (!resolved) return;
  const after = events.filter(
    (e) =>
      e.index > resolved.index &&
      e.method === Methods.SessionState.method &&
      e.params.turnId === resolved.params.turnId,
  );
  r.expect(
    'daemon.approvals.back-to-running',
    after[0]?.params.state === 'running',
    `after tool/approvalResolved the next session/state is ${after[0] ? show(after[0].params) : 'missing'}, expected running (the turn went on)`,
  );
}

function checkNodeOutcome(r: Recorder, node: JsonObject | undefined, outcome: string): void {
  if (!node) return;
  r.expect(
    'daemon.approvals.node-outcome',
    node.approval === undefined || node.approval === outcome,
    `node ${String(node.id)} has approval ${String(node.approval)}, but its permission check ended ${outcome}`,
  );
}

const APPROVAL_CHECKS = [
  'daemon.approvals.ask-controllers',
  'daemon.approvals.resolved',
  'daemon.approvals.decision-fields',
  'daemon.approvals.back-to-running',
  'daemon.approvals.node-outcome',
] as const;

export const approvalAllow: Scenario<DaemonContext> = {
  id: 'daemon-approval-allow',
  role: 'daemon',
  title:
    'a write-category client tool in default mode: awaiting_approval, requires_action, asked, allowed, run through tool/execute; an observer is never asked',
  checks: [
    ...APPROVAL_CHECKS,
    'daemon.approvals.node-awaiting',
    'daemon.approvals.requires-action',
    'daemon.client-tools.round-trip',
    'daemon.client-tools.category-gated',
    'daemon.approvals.observer-not-asked',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const callId = 'conformance-allow-1';
    const a = await client(ctx, 'controller', () => ({ decision: 'allow' }));
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(call(callId), { text: 'Finished.' }),
      'default',
      'editor',
    );
    let observer: Client | undefined;
    if (ctx.target.kind === 'socket') {
      // It declares client.approvals: only its role keeps it from being asked.
      observer = await client(ctx, 'observer', () => {
        throw new RpcError(-32603, 'an observer does not decide');
      });
      await attach(ctx, observer, sessionId, 'observer');
    }
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: allow a client tool');
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    if (observer) await observer.conn.waitFor(isTurnEnd(sessionId, turnId), 3000);
    if (!observer)
      r.skip(
        'daemon.approvals.observer-not-asked',
        'needs a socket target (--socket): an observer beside the controller',
      );
    else
      r.expect(
        'daemon.approvals.observer-not-asked',
        observer.asked.length === 0,
        `the observer was sent tool/approvalRequest: ${show(observer.asked.map((x) => x.params))}`,
      );
    if (!checkAskedOnce(r, a, callId, WRITE_TOOL.name)) return;
    const asked = a.asked[0]!;
    r.expect(
      'daemon.client-tools.category-gated',
      asked.params.category === WRITE_TOOL.category,
      `tool/approvalRequest for a client tool declared ${WRITE_TOOL.category} names category ${String(asked.params.category)}`,
    );
    const events = notes(a.conn, sessionId);
    checkBeforeAsking(r, a, events, asked);
    const clients = [{ label: 'controller', events }];
    if (observer) clients.push({ label: 'observer', events: notes(observer.conn, sessionId) });
    const resolved = checkResolved(r, clients, callId, 'approved');
    checkDecisionFields(r, resolved, 'allow', a.init.clientId);
    checkBackToRunning(r, events, resolved);
    const node = tree(events, turnId).get(String(asked.params.nodeId));
    checkNodeOutcome(r, node, 'approved');
    const exec = a.executed[0];
    const execAt = exec
      ? a.conn.messages.findIndex(
          (m) =>
            m.kind === 'request' && (m.message as JsonObject).method === Methods.ToolExecute.method,
        )
      : -1;
    r.expect(
      'daemon.client-tools.round-trip',
      a.executed.length === 1 &&
        exec?.name === WRITE_TOOL.name &&
        exec.toolCallId === callId &&
        exec.nodeId === asked.params.nodeId &&
        resolved !== undefined &&
        execAt > resolved.index &&
        node?.status === 'done',
      `tool/execute ${show(a.executed)} (message ${execAt}, tool/approvalResolved at ${String(resolved?.index)}); tool node ${show(node)}`,
    );
  },
};

export const approvalDeny: Scenario<DaemonContext> = {
  id: 'daemon-approval-deny',
  role: 'daemon',
  title: 'a denied call never runs, its node ends denied, and the model goes on',
  checks: [...APPROVAL_CHECKS, 'daemon.approvals.denied-not-run'],
  async run(ctx) {
    const r = ctx.recorder;
    const callId = 'conformance-deny-1';
    const a = await client(ctx, 'controller', () => ({ decision: 'deny' }));
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(call(callId), { text: 'Understood, I will not write.' }),
      'default',
      'editor',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: deny a client tool');
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    if (!checkAskedOnce(r, a, callId, WRITE_TOOL.name)) return;
    const events = notes(a.conn, sessionId);
    const resolved = checkResolved(r, [{ label: 'controller', events }], callId, 'rejected');
    checkDecisionFields(r, resolved, 'deny', a.init.clientId);
    checkBackToRunning(r, events, resolved);
    const node = tree(events, turnId).get(String(a.asked[0]!.params.nodeId));
    checkNodeOutcome(r, node, 'rejected');
    const wentOn = events.some(
      (e) =>
        e.method === Methods.ChatChunk.method &&
        e.params.turnId === turnId &&
        e.index > (resolved?.index ?? Infinity),
    );
    r.expect(
      'daemon.approvals.denied-not-run',
      a.executed.length === 0 && node?.status === 'denied' && wentOn,
      `tool/execute sent ${a.executed.length}x; tool node ${show(node)}; the model ${wentOn ? 'went on' : 'did not go on (no chat/chunk after the denial)'}`,
    );
  },
};

export const approvalGrant: Scenario<DaemonContext> = {
  id: 'daemon-approval-grant',
  role: 'daemon',
  title: 'allowForSession stores a grant: the second call of the tool runs without asking',
  checks: ['daemon.approvals.grant-stored', 'daemon.approvals.decision-fields'],
  async run(ctx) {
    const r = ctx.recorder;
    const a = await client(ctx, 'controller', () => ({ decision: 'allowForSession' }));
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(call('conformance-grant-1'), call('conformance-grant-2', WRITE_TOOL.name, 2), {
        text: 'Both written.',
      }),
      'default',
      'editor',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: allow for the session');
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    const events = notes(a.conn, sessionId);
    checkDecisionFields(
      r,
      resolvedOf(events, 'conformance-grant-1')[0],
      'allowForSession',
      a.init.clientId,
    );
    const second = a.executed.find((e) => e.toolCallId === 'conformance-grant-2');
    const node = second ? tree(events, turnId).get(String(second.nodeId)) : undefined;
    const outcomes = [
      ...resolvedOf(events, 'conformance-grant-2').map((e) => e.params.outcome),
      ...(node?.approval !== undefined ? [node.approval] : []),
    ];
    r.expect(
      'daemon.approvals.grant-stored',
      a.asked.length === 1 &&
        a.asked[0]!.params.toolCallId === 'conformance-grant-1' &&
        second !== undefined &&
        node?.status === 'done' &&
        outcomes.every((o) => o === 'not_required'),
      `asked about ${show(a.asked.map((x) => x.params.toolCallId))} (expected the first call only); tool/execute for ${show(a.executed.map((e) => e.toolCallId))}; second node ${show(node)}; its reported outcomes ${show(outcomes)} (expected not_required)`,
    );
  },
};

export const approvalCancel: Scenario<DaemonContext> = {
  id: 'daemon-approval-cancel',
  role: 'daemon',
  title:
    'chat/cancel while an approval is pending: $/cancelRequest for the request, resolved cancelled, the turn ends cancelled',
  checks: [
    'daemon.approvals.cancelled',
    'daemon.approvals.cancel-request',
    'daemon.approvals.decision-fields',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const callId = 'conformance-cancel-1';
    const a = await client(ctx, 'controller', untilCancelled(1500));
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(call(callId), { text: 'Never reached.' }),
      'default',
      'editor',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: cancel while asked');
    const asked = await firstAsk(ctx, a);
    await a.conn.request(Methods.ChatCancel.method, { sessionId, turnId });
    const end = await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    const cancelRequest = await a.conn.waitFor(isCancelOf(asked.id), 1000);
    r.expect(
      'daemon.approvals.cancel-request',
      cancelRequest !== undefined,
      `the approval was resolved by the cancellation, but no $/cancelRequest for its tool/approvalRequest (id ${JSON.stringify(asked.id)}) arrived`,
    );
    const events = notes(a.conn, sessionId);
    const resolved = resolvedOf(events, callId);
    const node = tree(events, turnId).get(String(asked.params.nodeId));
    r.expect(
      'daemon.approvals.cancelled',
      resolved.length > 0 &&
        resolved.every((e) => e.params.outcome === 'cancelled') &&
        node?.status === 'cancelled' &&
        end.stopReason === 'cancelled' &&
        a.executed.length === 0,
      `tool/approvalResolved ${show(resolved.map((e) => e.params))} (expected outcome cancelled); tool node ${show(node)} (expected cancelled); stopReason ${String(end.stopReason)}; tool/execute sent ${a.executed.length}x`,
    );
    checkDecisionFields(r, resolved[0]);
  },
};

export const approvalTwoControllers: Scenario<DaemonContext> = {
  id: 'daemon-approval-two-controllers',
  role: 'daemon',
  title:
    'two controllers are asked; one allows, the other denies once that answer decided: the first answer alone decides, both get one tool/approvalResolved',
  checks: [
    'daemon.approvals.ask-controllers',
    'daemon.approvals.first-valid-wins',
    'daemon.approvals.resolved',
  ],
  async run(ctx) {
    requireSocket(ctx.target, 'two controllers of one session');
    const r = ctx.recorder;
    const callId = 'conformance-race-1';
    let aAnswered = false;
    let bAnswered = false;
    const a = await client(ctx, 'controller-a', async () => {
      await until(() => b.asked.length > 0, 2000); // called once b exists
      aAnswered = true;
      return { decision: 'allow' };
    });
    const b = await client(ctx, 'controller-b', async (_params, id, conn) => {
      // Answers once A's answer has decided (B's request cancelled, or the approval resolved):
      // a late answer that crossed the daemon's $/cancelRequest, which must be ignored. A daemon
      // that waits for every controller gets the answer after a second.
      await until(() => aAnswered, 3000);
      await conn.waitFor((m) => isCancelOf(id)(m) || isResolvedOf(callId)(m), 1000);
      await sleep(20);
      bAnswered = true;
      return { decision: 'deny' };
    });
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(call(callId), { text: 'Finished.' }),
      'default',
      'editor',
    );
    await attach(ctx, b, sessionId, 'controller');
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: two controllers answer');
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    await b.conn.waitFor(isTurnEnd(sessionId, turnId), 3000);
    if (b.asked.length > 0) await until(() => bAnswered, 3000);
    await sleep(200); // anything the late answer changes shows by now
    const askedA = checkAskedOnce(r, a, callId, WRITE_TOOL.name);
    const askedB = checkAskedOnce(r, b, callId, WRITE_TOOL.name);
    if (!askedA) return;
    const eventsA = notes(a.conn, sessionId);
    checkResolved(
      r,
      [
        { label: 'controller-a', events: eventsA },
        { label: 'controller-b', events: notes(b.conn, sessionId) },
      ],
      callId, // which outcome is right is first-valid-wins's to judge
    );
    if (!askedB) return;
    const resolved = resolvedOf(eventsA, callId);
    const node = tree(eventsA, turnId).get(String(a.asked[0]!.params.nodeId));
    r.expect(
      'daemon.approvals.first-valid-wins',
      resolved.length > 0 &&
        resolved.every(
          (e) =>
            e.params.outcome === 'approved' &&
            e.params.decision !== 'deny' && // decision fields: judged by decision-fields
            e.params.decidedBy !== b.init.clientId,
        ) &&
        a.executed.length === 1 &&
        node?.status === 'done',
      `controller-a (${a.init.clientId}) answered allow first, controller-b (${b.init.clientId}) deny later; tool/approvalResolved ${show(resolved.map((e) => e.params))}; tool/execute sent ${a.executed.length}x; tool node ${show(node)}`,
    );
  },
};

export const approvalResend: Scenario<DaemonContext> = {
  id: 'daemon-approval-resend',
  role: 'daemon',
  title:
    'a controller attaching while an approval is pending gets the same tool/approvalRequest after its attach response',
  checks: ['daemon.approvals.resend-on-attach'],
  async run(ctx) {
    requireSocket(ctx.target, 'a second controller attaching');
    const r = ctx.recorder;
    // The first controller never decides: only the late one can.
    const a = await client(ctx, 'controller-a', untilCancelled(3000, { decision: 'allow' }));
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(call('conformance-resend-1'), { text: 'Finished.' }),
      'default',
      'editor',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: attach while asked');
    const asked = await firstAsk(ctx, a);
    const b = await client(ctx, 'controller-b', () => ({ decision: 'allow' }));
    const attachAt = await attach(ctx, b, sessionId, 'controller');
    const got = await b.conn.waitFor(
      (m) =>
        m.kind === 'request' && (m.message as JsonObject).method === Methods.ApprovalRequest.method,
      2000,
    );
    const params = (got?.message as JsonObject | undefined)?.params;
    r.expect(
      'daemon.approvals.resend-on-attach',
      got !== undefined && got.index > attachAt && canonical(params) === canonical(asked.params),
      got === undefined
        ? 'the controller that attached while the approval was pending got no tool/approvalRequest within 2 s'
        : got.index < attachAt
          ? 'the re-sent tool/approvalRequest came before the attach response'
          : `the re-sent params ${show(params)} differ from the original ${show(asked.params)}`,
    );
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
  },
};

export const approvalInvalid: Scenario<DaemonContext> = {
  id: 'daemon-approval-invalid',
  role: 'daemon',
  title:
    'an answer {decision: "yes"} is never approval, and an error answer from the only controller resolves the approval rejected',
  checks: ['daemon.approvals.garbage-not-approval', 'daemon.approvals.all-invalid-rejected'],
  async run(ctx) {
    const r = ctx.recorder;
    const garbage = 'conformance-invalid-1';
    const errored = 'conformance-invalid-2';
    const a = await client(ctx, 'controller', (params) => {
      if (params.toolCallId === garbage) return new DeliberateResult({ decision: 'yes' });
      throw new RpcError(-32603, 'the conformance client could not ask its user');
    });
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(call(garbage), call(errored, WRITE_TOOL.name, 2), { text: 'Finished.' }),
      'default',
      'editor',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: invalid answers');
    const first = await a.conn.waitFor(isResolvedOf(garbage), 5000);
    const second = first ? await a.conn.waitFor(isResolvedOf(errored), 5000) : undefined;
    if (!first || !second) {
      // approvals.md#approvals-all-invalid-rejected: resolved at once, not left to the timeout.
      r.fail(
        'daemon.approvals.all-invalid-rejected',
        `the approval of ${first ? errored : garbage} stayed pending for 5 s after the only controller answered ${first ? 'with an error' : '{decision: "yes"}'}`,
      );
      await a.conn.request(Methods.ChatCancel.method, { sessionId, turnId });
    }
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    const events = notes(a.conn, sessionId);
    const view = tree(events, turnId);
    const nodeOf = (toolCallId: string): JsonObject | undefined => {
      const asked = a.asked.find((x) => x.params.toolCallId === toolCallId);
      return asked ? view.get(String(asked.params.nodeId)) : undefined;
    };
    const g = resolvedOf(events, garbage).map((e) => e.params.outcome);
    const gNode = nodeOf(garbage);
    r.expect(
      'daemon.approvals.garbage-not-approval',
      a.asked.some((x) => x.params.toolCallId === garbage) &&
        !a.executed.some((e) => e.toolCallId === garbage) &&
        !g.some((o) => o === 'approved' || o === 'not_required') &&
        gNode?.status !== 'done' &&
        gNode?.approval !== 'approved',
      `after the answer {decision: "yes"}: tool/execute for ${show(a.executed.map((e) => e.toolCallId))}; outcomes ${show(g)}; node ${show(gNode)}`,
    );
    if (!second) return;
    const e = resolvedOf(events, errored).map((x) => x.params.outcome);
    const eNode = nodeOf(errored);
    r.expect(
      'daemon.approvals.all-invalid-rejected',
      e.length > 0 &&
        e.every((o) => o === 'rejected') &&
        eNode?.status === 'denied' &&
        !a.executed.some((x) => x.toolCallId === errored),
      `after an error answer from the only controller: outcomes ${show(e)} (expected rejected); node ${show(eNode)} (expected denied)`,
    );
  },
};

export const clientToolRoundTrip: Scenario<DaemonContext> = {
  id: 'daemon-client-tool',
  role: 'daemon',
  title:
    'a read-category client tool in an editor session runs without asking: tool/execute to the client, its content reaches the model',
  checks: [
    'daemon.client-tools.category-gated',
    'daemon.client-tools.round-trip',
    'daemon.client-tools.result-to-model',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const callId = 'conformance-read-1';
    const a = await client(ctx, 'controller', () => ({ decision: 'allow' }));
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(call(callId, READ_TOOL.name, 7), { text: 'Read it.' }),
      'default',
      'editor',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: a client tool');
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    r.expect(
      'daemon.client-tools.category-gated',
      a.asked.length === 0 && a.executed.length === 1,
      `a read-category client tool in default mode: ${a.asked.length} tool/approvalRequest (expected none), ${a.executed.length} tool/execute (expected one)`,
    );
    const exec = a.executed[0];
    if (
      !r.expect(
        'daemon.client-tools.round-trip',
        a.executed.length === 1 &&
          exec?.name === READ_TOOL.name &&
          exec.toolCallId === callId &&
          exec.sessionId === sessionId &&
          exec.turnId === turnId &&
          canonical(exec.args) === canonical({ n: 7 }),
        `tool/execute ${show(a.executed)}; expected one for ${READ_TOOL.name} call ${callId} with args {"n":7}`,
      )
    )
      return;
    const node = tree(notes(a.conn, sessionId), turnId).get(String(exec!.nodeId));
    r.expect(
      'daemon.client-tools.result-to-model',
      node?.status === 'done' &&
        typeof node.resultPreview === 'string' &&
        node.resultPreview.includes(resultOf(callId)),
      `the client answered {content: ${JSON.stringify(resultOf(callId))}}; the call's node is ${show(node)}`,
    );
  },
};

/** JSON with sorted keys, for comparing params regardless of key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as JsonObject).sort(([x], [y]) => (x < y ? -1 : 1)))
      : v,
  );
}
