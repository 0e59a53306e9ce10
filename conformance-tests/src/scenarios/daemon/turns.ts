/**
 * Turns driven by the daemon's scripted provider (the optional testing
 * capability): the turn state machine, seq ordering, tree invariants, budgets,
 * fan-out to two clients (approvals and client tools: approvals.ts).
 */
import { Methods } from '@arbor/protocol';
import type { Recorder } from '../../checks/results.js';
import type { Connection, Incoming, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort, Skip } from '../scenario.js';
import {
  type DaemonContext,
  type Initialized,
  describe,
  errorCode,
  requireDaemonCapability,
  requireSocket,
  sleep,
} from './context.js';
import { FINAL_STATUSES as FINAL, TURN_END_CHECKS, checkTurnEnd } from './turnEnd.js';

const TURN_TIMEOUT_MS = 10_000;

export interface Event {
  method: string;
  params: JsonObject;
}

export function sessionEvents(conn: Connection, sessionId: string): Event[] {
  return conn
    .notifications()
    .map((m) => ({ method: String(m.method), params: (m.params ?? {}) as JsonObject }))
    .filter((e) => e.params.sessionId === sessionId && typeof e.params.seq === 'number');
}

export const isTurnEnd =
  (sessionId: string, turnId: string) =>
  (m: Incoming): boolean => {
    if (m.kind !== 'notification') return false;
    const msg = m.message as JsonObject;
    const p = (msg.params ?? {}) as JsonObject;
    if (
      msg.method !== Methods.SessionState.method ||
      p.sessionId !== sessionId ||
      p.state !== 'idle'
    )
      return false;
    // checkTurn judges a missing stopReason; an idle naming neither turn nor reason ends nothing.
    return p.turnId === turnId || (p.turnId === undefined && p.stopReason !== undefined);
  };

/** Any event of the turn: it is under way. */
export const isTurnEvent =
  (sessionId: string, turnId: string) =>
  (m: Incoming): boolean => {
    const p = ((m.message as JsonObject | undefined)?.params ?? {}) as JsonObject;
    return m.kind === 'notification' && p.sessionId === sessionId && p.turnId === turnId;
  };

/** Seq: strictly increasing and gap-free over everything one client saw of a session. */
export function checkSeq(r: Recorder, events: Event[]): void {
  if (events.length < 2) return;
  let increasing = true;
  let gapless = true;
  for (let i = 1; i < events.length; i++) {
    const prev = events[i - 1]!.params.seq as number;
    const next = events[i]!.params.seq as number;
    if (increasing && next <= prev) {
      increasing = false;
      r.fail(
        'daemon.events.seq-increasing',
        `seq ${next} (${events[i]!.method}) follows seq ${prev}`,
      );
    }
    if (gapless && next > prev + 1) {
      gapless = false;
      r.fail(
        'daemon.events.seq-no-gaps',
        `seq jumps from ${prev} to ${next} (${events[i]!.method})`,
      );
    }
  }
  if (increasing) r.pass('daemon.events.seq-increasing');
  if (gapless) r.pass('daemon.events.seq-no-gaps');
}

/** The turn state machine: running first, idle with stopReason last. */
export function checkTurn(r: Recorder, events: Event[], turnId: string): void {
  const turn = events.filter((e) => e.params.turnId === turnId);
  const first = turn[0];
  r.expect(
    'daemon.turns.running-first',
    first?.method === Methods.SessionState.method && first.params.state === 'running',
    `the turn's first event is ${first ? `${first.method} ${JSON.stringify(first.params).slice(0, 120)}` : 'missing'}, expected session/state running`,
  );
  const end = events.findIndex(
    (e) =>
      e.method === Methods.SessionState.method &&
      e.params.state === 'idle' &&
      (e.params.turnId === undefined || e.params.turnId === turnId),
  );
  if (end < 0) {
    r.fail('daemon.turns.idle-ends-turn', 'no session/state idle ended the turn');
    return;
  }
  const idle = events[end]!;
  const missing = ['turnId', 'stopReason', 'usage'].filter((k) => idle.params[k] === undefined);
  if (
    !r.expect(
      'daemon.turns.idle-ends-turn',
      missing.length === 0,
      `session/state idle ending the turn lacks ${missing.join(', ')}: ${JSON.stringify(idle.params)}`,
    )
  )
    return;
  const after = events.slice(end + 1).filter((e) => e.params.turnId === turnId);
  if (after.length > 0)
    r.fail(
      'daemon.turns.idle-ends-turn',
      `${after[0]!.method} of the turn arrived after session/state idle`,
    );
}

/** A new session's first event has seq 1; the chat/send answer precedes the turn's first event. */
export function checkStart(
  r: Recorder,
  conn: Connection,
  sessionId: string,
  sendId: number | string | undefined,
): void {
  const first = sessionEvents(conn, sessionId)[0];
  if (first)
    r.expect(
      'daemon.events.seq-starts-at-1',
      first.params.seq === 1,
      `the new session's first event has seq ${String(first.params.seq)}`,
    );
  const responseAt = conn.messages.findIndex(
    (m) => m.kind === 'response' && (m.message as JsonObject).id === sendId,
  );
  const firstAt = conn.messages.findIndex(
    (m) =>
      m.kind === 'notification' &&
      ((m.message as JsonObject).params as JsonObject | undefined)?.sessionId === sessionId,
  );
  if (responseAt >= 0 && firstAt >= 0)
    r.expect(
      'daemon.turns.response-before-events',
      responseAt < firstAt,
      "the turn's first event arrived before the chat/send response",
    );
}

/** Tree invariants over every tree/update of one turn. */
export function checkTree(r: Recorder, events: Event[], turnId: string): void {
  const updates = events.filter(
    (e) => e.method === Methods.TreeUpdate.method && e.params.turnId === turnId,
  );
  if (updates.length === 0) {
    r.fail('daemon.tree.turn-root', 'the turn announced no tree node');
    return;
  }
  const status = new Map<string, string>();
  const roots = new Set<string>();
  let parentOk = true;
  let rootOk = true;
  let finalOk = true;
  let progressOk = true;
  let outputOk = true;
  /** Each node's kind as first announced (it never changes: tree-required-fields-always). */
  const kinds = new Map<string, string>();
  /** Nodes whose merged view holds a non-null progress. */
  const withProgress = new Set<string>();
  const firstNodes = (updates[0]!.params.nodes ?? []) as JsonObject[];
  if (!firstNodes.some((n) => n.kind === 'turn' && n.parentId === null)) {
    rootOk = false;
    r.fail(
      'daemon.tree.turn-root',
      `the turn's first tree/update does not hold the turn node: ${JSON.stringify(firstNodes).slice(0, 200)}`,
    );
  }
  for (const update of updates) {
    for (const node of (update.params.nodes ?? []) as JsonObject[]) {
      const id = String(node.id);
      if (node.parentId === null) {
        roots.add(id);
        if (rootOk && (node.kind !== 'turn' || roots.size > 1)) {
          rootOk = false;
          r.fail(
            'daemon.tree.turn-root',
            `node ${id} (kind ${String(node.kind)}) has parentId null${roots.size > 1 ? ' besides another root' : ''}`,
          );
        }
      } else if (parentOk && !status.has(String(node.parentId))) {
        parentOk = false;
        r.fail(
          'daemon.tree.parent-before-child',
          `node ${id} was announced before its parent ${String(node.parentId)} (seq ${String(update.params.seq)})`,
        );
      }
      const before = status.get(id);
      if (finalOk && before !== undefined && FINAL.has(before) && node.status !== before) {
        finalOk = false;
        r.fail(
          'daemon.tree.final-status',
          `node ${id} went from final status ${before} to ${String(node.status)}`,
        );
      }
      status.set(id, String(node.status));
      if (!kinds.has(id)) kinds.set(id, String(node.kind));
      if (node.progress === null) withProgress.delete(id);
      else if (node.progress !== undefined) withProgress.add(id);
      if (outputOk && node.output !== undefined && kinds.get(id) !== 'tool') {
        outputOk = false;
        r.fail(
          'daemon.tree.output-tool',
          `node ${id} of kind ${String(kinds.get(id))} carries output (seq ${String(update.params.seq)})`,
        );
      }
      if (progressOk && withProgress.has(id) && node.status !== 'running') {
        progressOk = false;
        r.fail(
          'daemon.tree.progress-running',
          `node ${id} is ${String(node.status)} (seq ${String(update.params.seq)}) yet its progress ${node.progress === undefined ? 'was not cleared with null' : `is ${JSON.stringify(node.progress)}`}`,
        );
      }
    }
  }
  if (rootOk && roots.size === 0) {
    rootOk = false;
    r.fail('daemon.tree.turn-root', 'no node of the turn has parentId null');
  }
  if (rootOk) r.pass('daemon.tree.turn-root');
  if (parentOk) r.pass('daemon.tree.parent-before-child');
  if (finalOk) r.pass('daemon.tree.final-status');
  if (progressOk) r.pass('daemon.tree.progress-running');
  if (outputOk) r.pass('daemon.tree.output-tool');
}

/** session/new + setScript; skips the scenario when the daemon has no scripted provider. */
export async function scriptedSession(
  ctx: DaemonContext,
  c: Initialized,
  conversations: JsonObject,
  mode = 'auto',
  chatContext = 'thread',
  budgets?: JsonObject,
): Promise<string> {
  requireDaemonCapability(c.init, 'testing.scriptedProvider');
  const created = await c.conn.request(Methods.SessionNew.method, {
    workspaceRoot: ctx.workspace,
    permissionMode: mode,
    chatContext: { kind: chatContext },
  });
  const sessionId = (created?.result as JsonObject | undefined)?.sessionId;
  if (typeof sessionId !== 'string') {
    ctx.recorder.fail('daemon.sessions.new', `session/new got ${describe(created)}`);
    throw new Abort('no session');
  }
  const set = await c.conn.request(Methods.SetScript.method, {
    sessionId,
    script: { version: 1, conversations },
    ...(budgets ? { budgets } : {}),
  });
  if (budgets && (!set || set.error)) {
    // budgets are part of setScript (appendix-scripted-provider.md#set-script).
    ctx.recorder.fail('daemon.testing.set-budgets', `setScript with budgets got ${describe(set)}`);
    throw new Abort('setScript with budgets failed');
  }
  if (!set || set.error) throw new Skip(`_arbor/testing/setScript failed: ${describe(set)}`);
  return sessionId;
}

export async function send(
  ctx: DaemonContext,
  conn: Connection,
  sessionId: string,
  text: string,
): Promise<string> {
  return (await sendWithId(ctx, conn, sessionId, text)).turnId;
}

export async function sendWithId(
  ctx: DaemonContext,
  conn: Connection,
  sessionId: string,
  text: string,
): Promise<{ turnId: string; id: string | number }> {
  const response = await conn.request(
    Methods.ChatSend.method,
    { sessionId, text },
    { noResponseCheck: 'daemon.turns.send-answers-turn-id' },
  );
  const turnId = (response?.result as JsonObject | undefined)?.turnId;
  if (
    !ctx.recorder.expect(
      'daemon.turns.send-answers-turn-id',
      typeof turnId === 'string',
      `chat/send got ${describe(response)}`,
    )
  )
    throw new Abort('no turn');
  return { turnId: turnId as string, id: response!.id as string | number };
}

export async function waitTurnEnd(
  ctx: DaemonContext,
  conn: Connection,
  sessionId: string,
  turnId: string,
  timeoutMs = TURN_TIMEOUT_MS,
): Promise<JsonObject> {
  const end = await conn.waitFor(isTurnEnd(sessionId, turnId), timeoutMs);
  if (!end) {
    ctx.recorder.fail('daemon.turns.idle-ends-turn', `the turn did not end within ${timeoutMs} ms`);
    throw new Abort('the turn did not end');
  }
  await sleep(100); // anything of the turn that still follows is a defect
  return ((end.message as JsonObject).params ?? {}) as JsonObject;
}

const TURN_CHECKS = [
  'daemon.turns.send-answers-turn-id',
  'daemon.turns.response-before-events',
  'daemon.events.seq-starts-at-1',
  'daemon.turns.running-first',
  'daemon.turns.idle-ends-turn',
  'daemon.events.seq-increasing',
  'daemon.events.seq-no-gaps',
  'daemon.tree.turn-root',
  'daemon.tree.parent-before-child',
  'daemon.tree.final-status',
  'daemon.tree.progress-running',
  'daemon.tree.output-tool',
  ...TURN_END_CHECKS,
] as const;

export const turn: Scenario<DaemonContext> = {
  id: 'daemon-turn',
  role: 'daemon',
  title: 'a scripted turn with a tool call: running … idle, seq without gaps, a consistent tree',
  checks: TURN_CHECKS,
  async run(ctx) {
    const c = await ctx.connect();
    const sessionId = await scriptedSession(
      ctx,
      c,
      {
        '*': [
          {
            text: 'Let me look.',
            toolCalls: [
              { id: 'conformance-call-1', name: 'conformance_probe', arguments: { depth: 1 } },
              // A built-in read tool (subtasks.md), so a daemon's running tool nodes are judged too.
              { id: 'conformance-call-2', name: 'memory_list', arguments: {} },
            ],
          },
          { text: 'Done looking.' },
        ],
        // default mode: an unknown (external) tool needs an approval this client cannot give.
      },
      'default',
    );
    const { turnId, id } = await sendWithId(
      ctx,
      c.conn,
      sessionId,
      'conformance: a turn with a tool call',
    );
    await waitTurnEnd(ctx, c.conn, sessionId, turnId);
    checkStart(ctx.recorder, c.conn, sessionId, id);
    const events = sessionEvents(c.conn, sessionId);
    checkTurn(ctx.recorder, events, turnId);
    checkSeq(ctx.recorder, events);
    checkTree(ctx.recorder, events, turnId);
    checkTurnEnd(ctx.recorder, events, turnId, 2);
  },
};

/** How long the cancel scenario's short turn waits before its reply. */
const DELAY_MS = 1000;

export const cancel: Scenario<DaemonContext> = {
  id: 'daemon-turn-cancel',
  role: 'daemon',
  title: 'a second chat/send is refused while a turn runs; chat/cancel ends it with cancelled',
  checks: [
    'daemon.turns.turn-in-progress',
    'daemon.turns.cancel',
    'daemon.turns.cancel-no-turn',
    'daemon.testing.delay',
    ...TURN_END_CHECKS,
  ],
  async run(ctx) {
    const c = await ctx.connect();
    const sessionId = await scriptedSession(ctx, c, {
      'a short turn': [{ text: 'This reply takes a second.', delayMs: DELAY_MS }],
      '*': [{ text: 'This reply takes a while.', delayMs: 5000 }],
    });
    // From before the request: the daemon cannot start the delay earlier, however slow this side is.
    const sentAt = Date.now();
    const short = await send(ctx, c.conn, sessionId, 'conformance: a short turn');
    const firstText = c.conn
      .waitFor(
        (m) =>
          m.kind === 'notification' &&
          (m.message as JsonObject).method === Methods.ChatChunk.method &&
          ((m.message as JsonObject).params as JsonObject | undefined)?.turnId === short,
        3000,
      )
      .then((got) => (got ? Date.now() - sentAt : undefined));
    // turns.md#turns-cancel-no-turn: naming another turn, then the turn once it has ended.
    const other = await c.conn.request(Methods.ChatCancel.method, {
      sessionId,
      turnId: 'conformance-not-this-turn',
    });
    const shortEnd = await waitTurnEnd(ctx, c.conn, sessionId, short);
    // appendix-scripted-provider-delay: nothing of a reply streams before its delayMs.
    const textAfter = await firstText;
    if (textAfter !== undefined)
      ctx.recorder.expect(
        'daemon.testing.delay',
        textAfter >= DELAY_MS - 50,
        `the first text of a reply delayed ${DELAY_MS} ms arrived ${textAfter} ms after chat/send was sent`,
      );
    const none = await c.conn.request(Methods.ChatCancel.method, { sessionId, turnId: short });
    checkTurnEnd(ctx.recorder, sessionEvents(c.conn, sessionId), short);
    ctx.recorder.expect(
      'daemon.turns.cancel-no-turn',
      (other?.result as JsonObject | undefined)?.cancelled === false &&
        shortEnd.stopReason !== 'cancelled' &&
        (none?.result as JsonObject | undefined)?.cancelled === false,
      `chat/cancel naming another turn got ${describe(other)} and the running turn ended ${String(shortEnd.stopReason)}; chat/cancel of that turn after it ended got ${describe(none)} (expected cancelled: false, and the turn not cancelled)`,
    );
    const turnId = await send(ctx, c.conn, sessionId, 'conformance: a slow turn');
    const busy = await c.conn.request(
      Methods.ChatSend.method,
      { sessionId, text: 'conformance: too early' },
      { noResponseCheck: 'daemon.turns.turn-in-progress' },
    );
    if (busy)
      ctx.recorder.expect(
        'daemon.turns.turn-in-progress',
        errorCode(busy) === -33005,
        `chat/send during a running turn got ${describe(busy)}, expected -33005`,
      );
    const cancelled = await c.conn.request(
      Methods.ChatCancel.method,
      { sessionId, turnId },
      { noResponseCheck: 'daemon.turns.cancel' },
    );
    if (
      !ctx.recorder.expect(
        'daemon.turns.cancel',
        (cancelled?.result as JsonObject | undefined)?.cancelled === true,
        `chat/cancel got ${describe(cancelled)}, expected {cancelled: true}`,
      )
    )
      return;
    const end = await c.conn.waitFor(isTurnEnd(sessionId, turnId), 3000);
    const stop = ((end?.message as JsonObject | undefined)?.params as JsonObject | undefined)
      ?.stopReason;
    ctx.recorder.expect(
      'daemon.turns.cancel',
      stop === 'cancelled',
      end
        ? `the cancelled turn ended with stopReason ${String(stop)}`
        : 'the cancelled turn did not end within 3 s',
    );
    checkTurnEnd(ctx.recorder, sessionEvents(c.conn, sessionId), turnId);
  },
};

/** The budget the scenario lowers through setScript, and how far below the endless script it stops. */
const LLM_CALLS_LIMIT = 2;

export const budget: Scenario<DaemonContext> = {
  id: 'daemon-budget',
  role: 'daemon',
  title: `a model that never stops calling tools, with setScript budgets {llm_calls: ${LLM_CALLS_LIMIT}}, ends budget_exceeded after budget/exceeded`,
  checks: ['daemon.testing.set-budgets', 'daemon.budget.exceeded-notified', ...TURN_END_CHECKS],
  async run(ctx) {
    const c = await ctx.connect();
    const replies = Array.from({ length: 10 }, (_, i) => ({
      toolCalls: [{ id: `conformance-loop-${i}`, name: 'conformance_probe', arguments: { i } }],
    }));
    const sessionId = await scriptedSession(ctx, c, { '*': replies }, 'auto', 'thread', {
      llm_calls: LLM_CALLS_LIMIT,
    });
    const turnId = await send(ctx, c.conn, sessionId, 'conformance: loop until the budget ends it');
    const end = await waitTurnEnd(ctx, c.conn, sessionId, turnId);
    const events = sessionEvents(c.conn, sessionId);
    checkTurnEnd(ctx.recorder, events, turnId);
    const notice = events.find(
      (e) => e.method === Methods.BudgetExceeded.method && e.params.turnId === turnId,
    );
    if (
      !ctx.recorder.expect(
        'daemon.testing.set-budgets',
        end.stopReason === 'budget_exceeded' &&
          (notice === undefined ||
            (notice.params.kind === 'llm_calls' && notice.params.limit === LLM_CALLS_LIMIT)),
        `with budgets {llm_calls: ${LLM_CALLS_LIMIT}} the endless turn ended with stopReason ${String(end.stopReason)}${notice ? ` after budget/exceeded ${JSON.stringify(notice.params)}` : ''}`,
      )
    )
      return;
    const idle = events.findIndex(
      (e) => e.method === Methods.SessionState.method && e.params.stopReason === 'budget_exceeded',
    );
    const notified = events
      .slice(0, idle)
      .some((e) => e.method === Methods.BudgetExceeded.method && e.params.turnId === turnId);
    ctx.recorder.expect(
      'daemon.budget.exceeded-notified',
      notified,
      'the turn ended with budget_exceeded but no budget/exceeded came before',
    );
  },
};

export const twoClients: Scenario<DaemonContext> = {
  id: 'daemon-two-clients',
  role: 'daemon',
  title: 'a controller and an observer of one session see the same events with the same seq',
  checks: ['daemon.sessions.events-to-all-attached'],
  async run(ctx) {
    requireSocket(ctx.target, 'two clients on one daemon');
    const a = await ctx.connect('controller');
    const sessionId = await scriptedSession(ctx, a, { '*': [{ text: 'Hello, both of you.' }] });
    const b = await ctx.connect('observer');
    const attach = await b.conn.request(Methods.SessionAttach.method, {
      sessionId,
      role: 'observer',
    });
    const lastSeq = (attach?.result as JsonObject | undefined)?.lastSeq;
    if (typeof lastSeq !== 'number') {
      ctx.recorder.fail(
        'daemon.sessions.events-to-all-attached',
        `session/attach by a second client got ${describe(attach)}`,
      );
      return;
    }
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: two clients');
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    await b.conn.waitFor(isTurnEnd(sessionId, turnId), 3000);
    const key = (e: Event): string =>
      `${e.params.seq as number} ${e.method} ${JSON.stringify(e.params)}`;
    const seenByA = sessionEvents(a.conn, sessionId)
      .filter((e) => (e.params.seq as number) > lastSeq)
      .map(key);
    const seenByB = sessionEvents(b.conn, sessionId)
      .filter((e) => (e.params.seq as number) > lastSeq)
      .map(key);
    const missing = seenByA.find((k) => !seenByB.includes(k));
    const extra = seenByB.find((k) => !seenByA.includes(k));
    ctx.recorder.expect(
      'daemon.sessions.events-to-all-attached',
      seenByA.length > 0 && missing === undefined && extra === undefined,
      missing
        ? `the observer did not get: ${missing.slice(0, 200)}`
        : extra
          ? `the observer got an event the controller did not: ${extra.slice(0, 200)}`
          : 'no events of the turn arrived',
    );
  },
};
