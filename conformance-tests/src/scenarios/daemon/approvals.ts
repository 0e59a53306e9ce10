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
import { Abort, Skip } from '../scenario.js';
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
import { FINAL_STATUSES, TURN_END_CHECKS, checkTurnEnd } from './turnEnd.js';
import { isTurnEnd, scriptedSession, send, sessionEvents, waitTurnEnd } from './turns.js';

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
const CANCEL = Methods.CancelRequest.method;
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

interface ClientOptions {
  /** Default: client.approvals and client.clientTools. */
  capabilities?: JsonObject;
  /** Answers tool/execute; default: at once, with resultOf(toolCallId). */
  execute?: Answer;
}

/** Connects with client.approvals + client.clientTools, both tools declared; skips without the capabilities. */
async function client(
  ctx: DaemonContext,
  label: string,
  answer: Answer,
  options: ClientOptions = {},
): Promise<Client> {
  const c = await ctx.connect(label, {
    capabilities: options.capabilities ?? CAPS,
    tools: [WRITE_TOOL, READ_TOOL],
  });
  requireDaemonCapability(c.init, 'testing.scriptedProvider');
  requireDaemonCapability(c.init, 'clientTools');
  const asked: Asked[] = [];
  const executed: JsonObject[] = [];
  c.conn.handle(Methods.ApprovalRequest.method, (params, message) => {
    const id = message.id as string | number;
    asked.push({ params: params as JsonObject, id });
    return answer(params as JsonObject, id, c.conn);
  });
  c.conn.handle(Methods.ToolExecute.method, (params, message) => {
    executed.push(params as JsonObject);
    if (options.execute)
      return options.execute(params as JsonObject, message.id as string | number, c.conn);
    return { content: resultOf((params as JsonObject).toolCallId) };
  });
  return { ...c, asked, executed };
}

export const isCancelOf =
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
/**
 * How long a cancelled request stays unanswered, as a client closing its prompt
 * takes a moment: until the -32800 answer its id is still taken, so a daemon
 * that reuses the id of a request it just cancelled is seen doing it
 * (daemon.wire.ids-unique), however loaded the machine is.
 */
const CANCEL_ANSWER_DELAY_MS = 250;

/** Answers once the daemon cancels the request (-32800), or with `fallback` after `waitMs`. */
export const untilCancelled =
  (waitMs: number, fallback?: JsonObject): Answer =>
  async (_params, id, conn) => {
    const cancelled = await conn.waitFor(isCancelOf(id), waitMs);
    if (cancelled) await sleep(CANCEL_ANSWER_DELAY_MS);
    if (cancelled || !fallback) throw new RpcError(-32800, 'Request cancelled');
    return fallback;
  };

export async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
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
/** A script whose every message gets these replies, in order. */
export const script = (...replies: JsonObject[]): JsonObject => ({ '*': replies });

export async function attach(
  ctx: DaemonContext,
  c: { conn: Connection },
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

export function requestIndex(conn: Connection, id: string | number): number {
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

/**
 * The turn's tree with each node as it was when it first reached a final
 * status: what the outcome was (whether it then changed is
 * daemon.tree.final-status's to judge).
 */
export function finalView(events: Note[], turnId: string): Map<string, JsonObject> {
  const view = new Map<string, JsonObject>();
  for (const e of events) {
    if (e.method !== Methods.TreeUpdate.method || e.params.turnId !== turnId) continue;
    for (const node of (e.params.nodes ?? []) as JsonObject[]) {
      const id = String(node.id);
      const before = view.get(id);
      if (before && FINAL_STATUSES.has(String(before.status))) continue;
      view.set(id, { ...before, ...node });
    }
  }
  return view;
}

const resolvedOf = (events: Note[], toolCallId: string): Note[] =>
  events.filter(
    (e) => e.method === Methods.ApprovalResolved.method && e.params.toolCallId === toolCallId,
  );

/** A value in a failure message, cut short. */
export const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 300) ?? 'missing';

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

/**
 * turns.md#turns-requires-action over a whole turn as one controller saw it:
 * every session/state while an approval is pending (from its
 * tool/approvalRequest to its tool/approvalResolved) is requires_action, and
 * once none is pending the turn reports running before it goes on (a chunk,
 * a tool/execute, a new node). Used where a timeout or a mode switch resolves
 * the approval; daemon.approvals.back-to-running judges the answered ones.
 */
function checkRequiresAction(r: Recorder, conn: Connection, turnId: string): void {
  const check = 'daemon.turns.requires-action';
  const pending = new Set<string>();
  const seen = new Set<string>();
  let state: unknown;
  let resolvedAll = false;
  for (const m of conn.messages) {
    const msg = m.message as JsonObject;
    const p = (msg?.params ?? {}) as JsonObject;
    if (p.turnId !== turnId) continue;
    if (m.kind === 'request' && msg.method === Methods.ApprovalRequest.method) {
      pending.add(String(p.toolCallId));
      resolvedAll = false;
      continue;
    }
    const executes = m.kind === 'request' && msg.method === Methods.ToolExecute.method;
    if (m.kind !== 'notification' && !executes) continue;
    if (msg.method === Methods.ApprovalResolved.method) {
      pending.delete(String(p.toolCallId));
      resolvedAll = pending.size === 0;
    } else if (msg.method === Methods.SessionState.method) {
      state = p.state;
      if (pending.size > 0 && state !== 'requires_action') {
        r.fail(
          check,
          `session/state ${String(state)} while the approval of ${[...pending].join(', ')} was pending`,
        );
        return;
      }
      if (state === 'running') resolvedAll = false;
    } else {
      const fresh =
        msg.method === Methods.TreeUpdate.method &&
        ((p.nodes ?? []) as JsonObject[]).some((n) => !seen.has(String(n.id)));
      for (const n of (p.nodes ?? []) as JsonObject[]) seen.add(String(n.id));
      const goesOn = executes || msg.method === Methods.ChatChunk.method || fresh;
      if (resolvedAll && state === 'requires_action' && goesOn) {
        r.fail(
          check,
          `no approval was pending any more and the turn went on (${String(msg.method)}), but the session still reported requires_action`,
        );
        return;
      }
    }
  }
  r.pass(check);
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
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as JsonObject).sort(([x], [y]) => (x < y ? -1 : 1)))
      : v,
  );
}

/** The checks of a turn that ended with a denied call: not run, node denied, the model went on. */
function checkNotRun(
  c: Client,
  events: Note[],
  turnId: string,
  callId: string,
  outcome: string,
): { ok: boolean; why: string } {
  const resolved = resolvedOf(events, callId);
  const node = [...finalView(events, turnId).values()].find(
    (n) => n.kind === 'tool' && n.name === WRITE_TOOL.name,
  );
  const ran = c.executed.some((e) => e.toolCallId === callId);
  const ok =
    resolved.length > 0 &&
    resolved.every((e) => e.params.outcome === outcome) &&
    !ran &&
    node?.status === 'denied' &&
    (node.approval === undefined || node.approval === outcome);
  return {
    ok,
    why: `tool/approvalResolved ${show(resolved.map((e) => e.params))} (expected outcome ${outcome}); tool/execute ${ran ? 'sent' : 'not sent'}; tool node ${show(node)} (expected denied)`,
  };
}

export const approvalNoController: Scenario<DaemonContext> = {
  id: 'daemon-approval-no-controller',
  role: 'daemon',
  title:
    'a write-category client tool in default mode, and no controller takes approvals: timed_out at once, without requires_action, not run',
  checks: ['daemon.approvals.no-controller', 'daemon.approvals.decision-fields'],
  async run(ctx) {
    const r = ctx.recorder;
    const callId = 'conformance-nobody-1';
    // clientTools without approvals: the only controller cannot be asked.
    const a = await client(ctx, 'controller', () => ({ decision: 'allow' }), {
      capabilities: { clientTools: {} },
    });
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(call(callId), { text: 'Nobody could approve it.' }),
      'default',
      'editor',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: nobody can approve');
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    // Asking a client without client.approvals is daemon.wire.capability-negotiated's to judge.
    if (a.asked.length > 0) return;
    const events = notes(a.conn, sessionId);
    const { ok, why } = checkNotRun(a, events, turnId, callId, 'timed_out');
    const requiresAction = events.some(
      (e) =>
        e.method === Methods.SessionState.method &&
        e.params.turnId === turnId &&
        e.params.state === 'requires_action',
    );
    r.expect(
      'daemon.approvals.no-controller',
      ok && !requiresAction,
      `${why}${requiresAction ? '; session/state requires_action was sent' : ''}`,
    );
    checkDecisionFields(r, resolvedOf(events, callId)[0]);
  },
};

/** The longest approval timeout the suite waits out; a daemon advertising more is not judged. */
const MAX_TIMEOUT_MS = 15_000;

export const approvalTimeout: Scenario<DaemonContext> = {
  id: 'daemon-approval-timeout',
  role: 'daemon',
  title:
    'the controller never answers: after capabilities.approvals.timeoutMs the approval resolves timed_out, the request is cancelled, the call never runs',
  checks: [
    'daemon.approvals.timeout',
    'daemon.approvals.cancel-request',
    'daemon.approvals.decision-fields',
    'daemon.turns.requires-action',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const callId = 'conformance-timeout-1';
    let timeoutMs = 0;
    const a = await client(ctx, 'controller', untilCancelled(MAX_TIMEOUT_MS + 5000));
    const advertised = (a.init.capabilities.approvals as JsonObject | undefined)?.timeoutMs;
    if (typeof advertised !== 'number' || advertised > MAX_TIMEOUT_MS)
      throw new Skip(
        `the daemon does not advertise capabilities.approvals.timeoutMs of at most ${MAX_TIMEOUT_MS} ms (it advertises ${String(advertised)})`,
      );
    timeoutMs = advertised;
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(call(callId), { text: 'Nobody answered.' }),
      'default',
      'editor',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: nobody answers');
    const asked = await firstAsk(ctx, a);
    const askedAt = Date.now();
    const resolved = await a.conn.waitFor(isResolvedOf(callId), timeoutMs + 5000);
    const elapsed = Date.now() - askedAt;
    if (!resolved) {
      r.fail(
        'daemon.approvals.timeout',
        `the approval was still pending ${timeoutMs + 5000} ms after tool/approvalRequest (timeoutMs ${timeoutMs})`,
      );
      await a.conn.request(Methods.ChatCancel.method, { sessionId, turnId });
      return;
    }
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    const cancelRequest = await a.conn.waitFor(isCancelOf(asked.id), 1000);
    r.expect(
      'daemon.approvals.cancel-request',
      cancelRequest !== undefined,
      `the approval timed out, but no $/cancelRequest for its tool/approvalRequest (id ${JSON.stringify(asked.id)}) arrived`,
    );
    const events = notes(a.conn, sessionId);
    const { ok, why } = checkNotRun(a, events, turnId, callId, 'timed_out');
    checkRequiresAction(r, a.conn, turnId);
    r.expect(
      'daemon.approvals.timeout',
      ok,
      `after ${elapsed} ms without an answer (timeoutMs ${timeoutMs}): ${why}`,
    );
    checkDecisionFields(r, resolvedOf(events, callId)[0]);
  },
};

export const clientToolCancel: Scenario<DaemonContext> = {
  id: 'daemon-client-tool-cancel',
  role: 'daemon',
  title:
    'chat/cancel while a tool/execute is outstanding: $/cancelRequest for it, its node and the turn end cancelled, every node final',
  checks: [
    'daemon.client-tools.cancel-sent',
    'daemon.turns.cancel-nodes',
    'daemon.turns.cancel',
    ...TURN_END_CHECKS,
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const callId = 'conformance-running-1';
    // The tool "runs" until the daemon cancels it (then -32800), or for 5 s.
    const a = await client(ctx, 'controller', () => ({ decision: 'allow' }), {
      execute: async (_params, id, conn) => {
        await conn.waitFor(isCancelOf(id), 5000);
        throw new RpcError(-32800, 'Request cancelled');
      },
    });
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(call(callId, READ_TOOL.name), { text: 'Never reached.' }),
      'default',
      'editor',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: cancel a running tool');
    if (!(await until(() => a.executed.length > 0, 5000))) {
      r.fail(
        'daemon.client-tools.cancel-sent',
        'no tool/execute for a read-category client tool within 5 s',
      );
      await a.conn.request(Methods.ChatCancel.method, { sessionId, turnId });
      return;
    }
    const executeId = a.conn.messages.find(
      (m) =>
        m.kind === 'request' && (m.message as JsonObject).method === Methods.ToolExecute.method,
    )?.message as JsonObject;
    const cancelled = await a.conn.request(Methods.ChatCancel.method, { sessionId, turnId });
    if (
      !r.expect(
        'daemon.turns.cancel',
        (cancelled?.result as JsonObject | undefined)?.cancelled === true,
        `chat/cancel while a tool ran got ${describe(cancelled)}, expected {cancelled: true}`,
      )
    )
      return;
    const end = await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    r.expect(
      'daemon.turns.cancel',
      end.stopReason === 'cancelled',
      `the cancelled turn ended with stopReason ${String(end.stopReason)}`,
    );
    const cancelRequest = await a.conn.waitFor(isCancelOf(executeId.id as string | number), 500);
    r.expect(
      'daemon.client-tools.cancel-sent',
      cancelRequest !== undefined,
      `the turn was cancelled while tool/execute (id ${JSON.stringify(executeId.id)}) was outstanding, but no $/cancelRequest for it arrived`,
    );
    const events = notes(a.conn, sessionId);
    const idleAt = events.findIndex(
      (e) =>
        e.method === Methods.SessionState.method &&
        e.params.turnId === turnId &&
        e.params.state === 'idle',
    );
    const node = finalView(events.slice(0, idleAt < 0 ? undefined : idleAt), turnId).get(
      String(a.executed[0]!.nodeId),
    );
    r.expect(
      'daemon.turns.cancel-nodes',
      node?.status === 'cancelled',
      `the node of the tool running when the turn was cancelled is ${show(node)} before idle, expected status cancelled`,
    );
    checkTurnEnd(r, sessionEvents(a.conn, sessionId), turnId);
  },
};

/** The tool node of a client-tool call, as the client rebuilt the turn's tree. */
function nodeOfCall(
  events: Note[],
  turnId: string,
  callId: string,
  c: Client,
): JsonObject | undefined {
  const view = finalView(events, turnId);
  const nodeId =
    c.asked.find((x) => x.params.toolCallId === callId)?.params.nodeId ??
    c.executed.find((x) => x.toolCallId === callId)?.nodeId;
  if (nodeId !== undefined) return view.get(String(nodeId));
  // Neither asked nor run: the tool node whose arguments name the call, else the only tool node
  // of the turn that no request named (argsPreview is optional).
  const tools = [...view.values()].filter((n) => n.kind === 'tool');
  const byArgs = tools.find((n) => String(n.argsPreview).includes(callId));
  if (byArgs) return byArgs;
  const named = new Set(
    [...c.asked.map((x) => x.params.nodeId), ...c.executed.map((x) => x.nodeId)].map(String),
  );
  const unnamed = tools.filter((n) => !named.has(String(n.id)));
  return unnamed.length === 1 ? unnamed[0] : undefined;
}

/** A call whose arguments carry its own id, so its node is found even when it never ran. */
const marked = (id: string, tool = WRITE_TOOL.name): JsonObject => ({
  toolCalls: [{ id, name: tool, arguments: { n: 1, note: id } }],
});

export const approvalModes: Scenario<DaemonContext> = {
  id: 'daemon-approval-modes',
  role: 'daemon',
  title:
    'a write-category client tool in plan mode is blocked (not asked, not run, blocked_in_plan_mode), in auto mode runs without asking',
  checks: ['daemon.approvals.matrix', 'daemon.approvals.blocked'],
  async run(ctx) {
    const r = ctx.recorder;
    const a = await client(ctx, 'controller', () => ({ decision: 'allow' }));
    const seen: Record<
      string,
      { asked: boolean; ran: boolean; node?: JsonObject; wentOn: boolean }
    > = {};
    for (const mode of ['plan', 'auto']) {
      const callId = `conformance-mode-${mode}`;
      const sessionId = await scriptedSession(
        ctx,
        a,
        script(marked(callId), { text: `After the ${mode} call.` }),
        mode,
        'editor',
      );
      const turnId = await send(
        ctx,
        a.conn,
        sessionId,
        `conformance: a write call in ${mode} mode`,
      );
      await waitTurnEnd(ctx, a.conn, sessionId, turnId);
      const events = notes(a.conn, sessionId);
      const node = nodeOfCall(events, turnId, callId, a);
      const lastNodeAt = events.filter(
        (e) =>
          e.method === Methods.TreeUpdate.method &&
          ((e.params.nodes ?? []) as JsonObject[]).some((n) => n.id === node?.id),
      );
      const after = lastNodeAt[lastNodeAt.length - 1]?.index ?? Infinity;
      seen[mode] = {
        asked: a.asked.some((x) => x.params.toolCallId === callId),
        ran: a.executed.some((x) => x.toolCallId === callId),
        node,
        wentOn: events.some(
          (e) =>
            e.method === Methods.ChatChunk.method && e.params.turnId === turnId && e.index > after,
        ),
      };
    }
    const plan = seen.plan!;
    const auto = seen.auto!;
    r.expect(
      'daemon.approvals.matrix',
      !plan.asked && !plan.ran && !auto.asked && auto.ran,
      `plan mode: ${plan.asked ? 'asked' : 'not asked'}, ${plan.ran ? 'ran' : 'not run'} (expected neither); auto mode: ${auto.asked ? 'asked' : 'not asked'}, ${auto.ran ? 'ran' : 'not run'} (expected run without asking)`,
    );
    const preview = plan.node?.resultPreview;
    r.expect(
      'daemon.approvals.blocked',
      !plan.ran &&
        plan.node?.status === 'blocked' &&
        (preview === undefined || String(preview).includes('blocked_in_plan_mode')) &&
        plan.wentOn,
      `the write call in plan mode: ${plan.ran ? 'tool/execute sent; ' : ''}node ${show(plan.node)} (expected status blocked, result blocked_in_plan_mode); the model ${plan.wentOn ? 'went on' : 'did not go on'}`,
    );
  },
};

export const approvalModeSwitch: Scenario<DaemonContext> = {
  id: 'daemon-approval-mode-switch',
  role: 'daemon',
  title:
    'while an approval is pending, a switch to auto approves it (and the next call runs unasked); in a later turn a switch to plan rejects it and blocks the call',
  checks: [
    'daemon.approvals.switch-auto',
    'daemon.approvals.switch-plan',
    'daemon.turns.requires-action',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    // Never decides: only the mode switches release its approvals.
    const a = await client(ctx, 'controller', untilCancelled(20_000));
    const first = 'conformance-switch-auto-1';
    const second = 'conformance-switch-auto-2';
    const third = 'conformance-switch-plan-1';
    const sessionId = await scriptedSession(
      ctx,
      a,
      {
        'switch to auto': [marked(first), marked(second), { text: 'Both ran.' }],
        'switch to plan': [marked(third), { text: 'Blocked, understood.' }],
      },
      'default',
      'editor',
    );
    const setMode = (mode: string) =>
      a.conn.request(Methods.SessionSetPermissionMode.method, { sessionId, mode });

    const autoTurn = await send(ctx, a.conn, sessionId, 'conformance: switch to auto');
    await firstAsk(ctx, a);
    await setMode('auto');
    // A daemon that keeps the approval pending ends it at its timeout.
    await waitTurnEnd(ctx, a.conn, sessionId, autoTurn, 20_000);
    checkRequiresAction(r, a.conn, autoTurn);
    let events = notes(a.conn, sessionId);
    const approved = resolvedOf(events, first);
    r.expect(
      'daemon.approvals.switch-auto',
      // How many tool/approvalResolved came is daemon.approvals.resolved's to judge.
      approved.length > 0 &&
        approved.every(
          (e) =>
            e.params.outcome === 'approved' &&
            !('decision' in e.params) &&
            !('decidedBy' in e.params),
        ) &&
        a.executed.some((x) => x.toolCallId === first) &&
        a.executed.some((x) => x.toolCallId === second) &&
        !a.asked.some((x) => x.params.toolCallId === second),
      `after the switch to auto: tool/approvalResolved ${show(approved.map((e) => e.params))} (expected approved, without decision and decidedBy); tool/execute for ${show(a.executed.map((x) => x.toolCallId))} (expected both calls); asked about ${show(a.asked.map((x) => x.params.toolCallId))} (expected the first only)`,
    );

    await setMode('default');
    const planTurn = await send(ctx, a.conn, sessionId, 'conformance: switch to plan');
    if (!(await until(() => a.asked.some((x) => x.params.toolCallId === third), 5000))) {
      r.fail(
        'daemon.approvals.switch-plan',
        'the write call in default mode was not asked within 5 s',
      );
      await a.conn.request(Methods.ChatCancel.method, { sessionId, turnId: planTurn });
      return;
    }
    await setMode('plan');
    await waitTurnEnd(ctx, a.conn, sessionId, planTurn);
    checkRequiresAction(r, a.conn, planTurn);
    events = notes(a.conn, sessionId);
    const rejected = resolvedOf(events, third);
    const node = nodeOfCall(events, planTurn, third, a);
    r.expect(
      'daemon.approvals.switch-plan',
      rejected.length > 0 &&
        rejected.every((e) => e.params.outcome === 'rejected') &&
        node?.status === 'blocked' &&
        !a.executed.some((x) => x.toolCallId === third),
      `after the switch to plan: tool/approvalResolved ${show(rejected.map((e) => e.params))} (expected rejected); node ${show(node)} (expected blocked); tool/execute ${a.executed.some((x) => x.toolCallId === third) ? 'sent' : 'not sent'}`,
    );
  },
};

export const clientToolErrors: Scenario<DaemonContext> = {
  id: 'daemon-client-tool-errors',
  role: 'daemon',
  title:
    'client tools that go wrong: a manifest naming a tool twice is refused; invalid arguments never reach the client; an error answer becomes an error result and the turn goes on',
  checks: [
    'daemon.client-tools.unique-names',
    'daemon.client-tools.validate-args',
    'daemon.client-tools.error-result',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const invalid = 'conformance-bad-args-1';
    const failing = 'conformance-fails-1';
    const a = await client(ctx, 'controller', () => ({ decision: 'allow' }), {
      execute: (params) => {
        if (params.toolCallId === failing)
          throw new RpcError(-32603, 'conformance: the tool failed');
        return { content: resultOf(params.toolCallId) };
      },
    });
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(
        {
          toolCalls: [
            { id: invalid, name: READ_TOOL.name, arguments: { n: 'seven', note: invalid } },
          ],
        },
        { toolCalls: [{ id: failing, name: READ_TOOL.name, arguments: { n: 2 } }] },
        { text: 'Went on after the failure.' },
      ),
      'auto',
      'editor',
    );
    // On its own connection (on stdio, its own daemon): a refused initialize.
    const twice = await ctx.open('duplicate-tools');
    const refused = await twice.conn.request(
      Methods.Initialize.method,
      ctx.initializeParams({ capabilities: CAPS, tools: [WRITE_TOOL, WRITE_TOOL] }),
    );
    r.expect(
      'daemon.client-tools.unique-names',
      refused?.error?.code === -32602,
      `initialize declaring ${WRITE_TOOL.name} twice got ${describe(refused)}, expected -32602`,
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: client tools that go wrong');
    const end = await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    const events = notes(a.conn, sessionId);
    const badNode = nodeOfCall(events, turnId, invalid, a);
    r.expect(
      'daemon.client-tools.validate-args',
      !a.executed.some((x) => x.toolCallId === invalid) && badNode?.status === 'error',
      `a call with {"n": "seven"} for an inputSchema with n a number: tool/execute ${a.executed.some((x) => x.toolCallId === invalid) ? 'sent' : 'not sent'}; node ${show(badNode)} (expected error)`,
    );
    const failedNode = nodeOfCall(events, turnId, failing, a);
    const text = events
      .filter((e) => e.method === Methods.ChatChunk.method && e.params.turnId === turnId)
      .map((e) => String(e.params.text))
      .join('');
    r.expect(
      'daemon.client-tools.error-result',
      failedNode?.status === 'error' &&
        end.stopReason !== 'error' &&
        text.includes('Went on after the failure.'),
      `tool/execute answered with an error: node ${show(failedNode)} (expected error); the turn ended ${String(end.stopReason)} with text ${JSON.stringify(text)} (expected the model to go on)`,
    );
  },
};

export const grantScope: Scenario<DaemonContext> = {
  id: 'daemon-approval-grant-scope',
  role: 'daemon',
  title:
    'allowForSession in one session: a later turn of that session runs the tool unasked, another session is still asked',
  checks: ['daemon.approvals.grant-scope'],
  async run(ctx) {
    const r = ctx.recorder;
    const a = await client(ctx, 'controller', () => ({ decision: 'allowForSession' }));
    const granted = await scriptedSession(
      ctx,
      a,
      {
        'first turn': [
          marked('conformance-scope-1'),
          marked('conformance-scope-1b'),
          { text: 'Granted.' },
        ],
        'later turn': [marked('conformance-scope-2'), { text: 'Ran unasked.' }],
      },
      'default',
      'editor',
    );
    for (const text of ['conformance: first turn', 'conformance: later turn']) {
      const turnId = await send(ctx, a.conn, granted, text);
      await waitTurnEnd(ctx, a.conn, granted, turnId);
    }
    const other = await scriptedSession(
      ctx,
      a,
      script(marked('conformance-scope-3'), { text: 'Asked again.' }),
      'default',
      'editor',
    );
    const turnId = await send(ctx, a.conn, other, 'conformance: another session');
    await waitTurnEnd(ctx, a.conn, other, turnId);
    const asked = a.asked.map((x) => String(x.params.toolCallId));
    const ran = a.executed.map((x) => String(x.toolCallId));
    // A grant that does not even cover the same turn is daemon.approvals.grant-stored's to judge.
    if (asked.includes('conformance-scope-1b')) return;
    r.expect(
      'daemon.approvals.grant-scope',
      asked.join() === 'conformance-scope-1,conformance-scope-3' &&
        ['conformance-scope-2', 'conformance-scope-3'].every((id) => ran.includes(id)),
      `asked about ${show(asked)} (expected the first call, and the call in the other session); ran ${show(ran)} (expected the later turn's call and the other session's)`,
    );
  },
};

export const approvalAllowAlways: Scenario<DaemonContext> = {
  id: 'daemon-approval-allow-always',
  role: 'daemon',
  title:
    'allowAlways saves the suggested rule: resolved with it, the same call in a new session of the workspace runs unasked; a client without openEnums reads allowForSession',
  checks: ['daemon.approvals.allow-always-saved', 'daemon.versioning.new-values-gated'],
  async run(ctx) {
    const r = ctx.recorder;
    // "Always allow" where a rule is offered; nothing to save otherwise.
    const a = await client(
      ctx,
      'controller',
      (params) => ({ decision: params.suggestedRule === undefined ? 'allow' : 'allowAlways' }),
      { capabilities: { ...CAPS, openEnums: {} } },
    );
    const first = await scriptedSession(
      ctx,
      a,
      script(call('conformance-always-1'), { text: 'Allowed from now on.' }),
      'default',
      'editor',
    );
    // A second client needs a socket; on stdio only the saved rule is judged.
    const v1 =
      ctx.target.kind === 'socket'
        ? await ctx.connect('v1-observer', { capabilities: {} })
        : undefined;
    if (v1) await attach(ctx, v1, first, 'observer');
    const turnId = await send(ctx, a.conn, first, 'conformance: always allow');
    await waitTurnEnd(ctx, a.conn, first, turnId);
    const offered = a.asked[0]?.params.suggestedRule;
    if (typeof offered !== 'string') {
      throw new Skip(
        'the daemon offered no suggestedRule (a SHOULD): allowAlways cannot be judged',
      );
    }
    const resolved = resolvedOf(notes(a.conn, first), 'conformance-always-1')[0]?.params;
    if (v1) {
      const v1Resolved = resolvedOf(notes(v1.conn, first), 'conformance-always-1')[0]?.params;
      r.expect(
        'daemon.versioning.new-values-gated',
        v1Resolved?.decision === 'allowForSession',
        `a client without capabilities.openEnums got tool/approvalResolved ${show(v1Resolved)} (expected decision allowForSession, the stand-in of allowAlways)`,
      );
    }

    const second = await scriptedSession(
      ctx,
      a,
      script(call('conformance-always-2'), { text: 'Ran unasked.' }),
      'default',
      'editor',
    );
    const later = await send(ctx, a.conn, second, 'conformance: the same call again');
    await waitTurnEnd(ctx, a.conn, second, later);
    const node = [...tree(notes(a.conn, second), later).values()].find(
      (n) => n.name === WRITE_TOOL.name,
    );
    const rule = node?.rule as JsonObject | undefined;
    const askedAgain = a.asked.some((x) => x.params.toolCallId === 'conformance-always-2');
    r.expect(
      'daemon.approvals.allow-always-saved',
      resolved?.decision === 'allowAlways' &&
        resolved.rule === offered &&
        !askedAgain &&
        node?.status === 'done' &&
        node.approval === 'not_required' &&
        rule?.effect === 'allow' &&
        rule.rule === offered,
      `suggestedRule ${show(offered)}; resolved ${show(resolved)} (expected decision allowAlways with that rule); in a new session of the workspace the call was ${askedAgain ? 'asked again' : 'not asked'}, its node ${show(node)} (expected done, not_required, rule {effect: allow, rule: ${show(offered)}})`,
    );
  },
};

export const clientToolBatch: Scenario<DaemonContext> = {
  id: 'daemon-client-tool-batch',
  role: 'daemon',
  title: 'one scripted reply with three client-tool calls: each is made (three tool/execute)',
  checks: ['daemon.testing.tool-calls'],
  async run(ctx) {
    const r = ctx.recorder;
    const a = await client(ctx, 'controller', () => ({ decision: 'allow' }));
    const ids = ['conformance-batch-1', 'conformance-batch-2', 'conformance-batch-3'];
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(
        { toolCalls: ids.map((id, n) => ({ id, name: READ_TOOL.name, arguments: { n } })) },
        { text: 'All three read.' },
      ),
      'auto',
      'editor',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: three calls at once');
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    const ran = a.executed.map((x) => String(x.toolCallId));
    r.expect(
      'daemon.testing.tool-calls',
      ids.every((id) => ran.filter((x) => x === id).length === 1),
      `a reply with the calls ${show(ids)}: tool/execute for ${show(ran)} (expected each once)`,
    );
  },
};
