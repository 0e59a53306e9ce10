/**
 * Questions (questions.md, protocol 1.1), driven by the scripted provider: the
 * script calls the built-in tool `ask_user`, the suite answers `tool/question`
 * as one or two controllers with `client.questions`, and judges the lifecycle
 * it shares with approvals — requires_action first, every controller asked
 * once, first valid answer wins, resolved once for everyone, cancelled with
 * the turn, re-sent on attach.
 *
 * Every scenario needs a daemon that advertises `capabilities.questions`
 * (a 1.0 daemon is skipped) and `testing.scriptedProvider`. "What the model
 * got" is read from the `ask_user` node's final status and result preview.
 * Two-client scenarios need a socket.
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
  notes,
  requireDaemonCapability,
  requireSocket,
  sleep,
} from './context.js';
import {
  attach,
  canonical,
  finalView,
  isCancelOf,
  requestIndex,
  script,
  show,
  until,
  untilCancelled,
} from './approvals.js';
import { isTurnEnd, scriptedSession, send, waitTurnEnd } from './turns.js';

const CAPS = { questions: {} };
const ASK_USER = 'ask_user';
const QUESTION = 'The tests use both Jest and Vitest. Which runner should the new tests use?';
const OPTIONS = [
  { label: 'Vitest', description: 'Used by the newer test files' },
  { label: 'Jest' },
];
const GO_ON = 'Going on after the question.';

interface Asked {
  params: JsonObject;
  id: string | number;
}

interface Asker extends Initialized {
  asked: Asked[];
}

type Answer = (params: JsonObject, id: string | number, conn: Connection) => unknown;

/** Connects with client.questions; skips unless the daemon advertises questions and the scripted provider. */
async function asker(
  ctx: DaemonContext,
  label: string,
  answer: Answer,
  capabilities: JsonObject = CAPS,
): Promise<Asker> {
  const c = await ctx.connect(label, { capabilities });
  requireDaemonCapability(c.init, 'questions');
  requireDaemonCapability(c.init, 'testing.scriptedProvider');
  const asked: Asked[] = [];
  c.conn.handle(Methods.QuestionRequest.method, (params, message) => {
    const id = message.id as string | number;
    asked.push({ params: params as JsonObject, id });
    return answer(params as JsonObject, id, c.conn);
  });
  return { ...c, asked };
}

/** A reply calling ask_user; `extra` overrides the arguments (options, freeText). */
const ask = (id: string, extra: JsonObject = {}, delayMs?: number): JsonObject => ({
  toolCalls: [
    { id, name: ASK_USER, arguments: { question: QUESTION, options: OPTIONS, ...extra } },
  ],
  ...(delayMs === undefined ? {} : { delayMs }),
});

const isResolvedOf =
  (toolCallId: string) =>
  (m: Incoming): boolean => {
    const msg = m.message as JsonObject;
    return (
      m.kind === 'notification' &&
      msg.method === Methods.QuestionResolved.method &&
      (msg.params as JsonObject | undefined)?.toolCallId === toolCallId
    );
  };

const resolvedOf = (events: Note[], toolCallId: string): Note[] =>
  events.filter(
    (e) => e.method === Methods.QuestionResolved.method && e.params.toolCallId === toolCallId,
  );

/** Waits for the first tool/question to `c`; fails ask-controllers and aborts without one. */
async function firstAsk(ctx: DaemonContext, c: Asker): Promise<Asked> {
  await until(() => c.asked.length > 0, 5000);
  if (c.asked.length === 0) {
    ctx.recorder.fail(
      'daemon.questions.ask-controllers',
      'no tool/question for an ask_user call within 5 s',
    );
    throw new Abort('not asked');
  }
  return c.asked[0]!;
}

/** One controller was asked exactly once about `toolCallId`, with the script's question. */
function checkAskedOnce(r: Recorder, c: Asker, toolCallId: string): boolean {
  const about = c.asked.filter((a) => a.params.toolCallId === toolCallId);
  return r.expect(
    'daemon.questions.ask-controllers',
    about.length === 1 && about[0]!.params.question === QUESTION && c.asked.length === 1,
    `${c.conn.label} got ${c.asked.length} tool/question (${show(c.asked.map((a) => a.params))}); expected one for the ask_user call ${toolCallId}`,
  );
}

/** Exactly one tool/questionResolved for the call on each connection (with `outcome`, if given). */
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
        'daemon.questions.resolved',
        `${label} got ${got.length} tool/questionResolved for ${toolCallId} (${show(got.map((g) => g.params))}); expected exactly one${outcome ? `, outcome ${outcome}` : ''}`,
      );
    }
  }
  if (ok) r.pass('daemon.questions.resolved');
  return resolvedOf(clients[0]!.events, toolCallId)[0];
}

/** answer and answeredBy exactly when the outcome is answered (questions-resolved-answer-fields). */
function checkAnswerFields(
  r: Recorder,
  resolved: Note | undefined,
  answer?: string,
  answeredBy?: string,
): void {
  if (!resolved) return;
  const p = resolved.params;
  if (p.outcome === 'answered')
    r.expect(
      'daemon.questions.answer-fields',
      answer === undefined
        ? typeof p.answer === 'string' && typeof p.answeredBy === 'string'
        : p.answer === answer && p.answeredBy === answeredBy,
      `tool/questionResolved ${show(p)}; expected answer ${JSON.stringify(answer)}, answeredBy ${String(answeredBy)}`,
    );
  else
    r.expect(
      'daemon.questions.answer-fields',
      !('answer' in p) && !('answeredBy' in p),
      `outcome ${String(p.outcome)}, yet tool/questionResolved carries answer/answeredBy: ${show(p)}`,
    );
}

/** The ask_user node as it first reached a final status, and whether the model went on after. */
function outcomeOf(
  events: Note[],
  turnId: string,
  nodeId: unknown,
): { node: JsonObject | undefined; wentOn: boolean } {
  const node = finalView(events, turnId).get(String(nodeId));
  const updates = events.filter(
    (e) =>
      e.method === Methods.TreeUpdate.method &&
      ((e.params.nodes ?? []) as JsonObject[]).some((n) => n.id === nodeId),
  );
  const after = updates[updates.length - 1]?.index ?? Infinity;
  const wentOn = events.some(
    (e) =>
      e.method === Methods.ChatChunk.method &&
      e.params.turnId === turnId &&
      e.index > after &&
      String(e.params.text).length > 0,
  );
  return { node, wentOn };
}

/**
 * questions-tool-result, judged against how the question ended: answered, a
 * successful result carrying the answer; otherwise an error result, and the
 * turn goes on either way.
 */
function checkToolResult(
  r: Recorder,
  events: Note[],
  turnId: string,
  nodeId: unknown,
  resolved: Note | undefined,
): void {
  if (!resolved) return;
  const { node, wentOn } = outcomeOf(events, turnId, nodeId);
  const answered = resolved.params.outcome === 'answered';
  const answer = String(resolved.params.answer ?? '');
  const preview = node?.resultPreview;
  const ok = answered
    ? node?.status === 'done' &&
      node.isError !== true &&
      typeof preview === 'string' &&
      preview.includes(answer)
    : node?.status === 'error';
  r.expect(
    'daemon.questions.tool-result',
    ok && wentOn,
    `the question ended ${String(resolved.params.outcome)}${answered ? ` with ${JSON.stringify(answer)}` : ''}; the ask_user node is ${show(node)} (expected ${answered ? 'done with the answer in its result' : 'error'}); the model ${wentOn ? 'went on' : 'did not go on'}`,
  );
}

const QUESTION_CHECKS = [
  'daemon.questions.ask-controllers',
  'daemon.questions.resolved',
  'daemon.questions.answer-fields',
  'daemon.questions.tool-result',
] as const;

export const questionAnswered: Scenario<DaemonContext> = {
  id: 'daemon-question-answered',
  role: 'daemon',
  title:
    'ask_user with options: awaiting_approval and requires_action before tool/question, answered with an option, resolved answered for every client, the answer is the result; an observer is never asked',
  checks: [
    ...QUESTION_CHECKS,
    'daemon.questions.node-awaiting',
    'daemon.questions.requires-action-first',
    'daemon.questions.back-to-running',
    'daemon.questions.observer-not-asked',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const callId = 'conformance-question-1';
    const a = await asker(ctx, 'controller', () => ({ answer: 'Vitest' }));
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(ask(callId), { text: GO_ON }),
      'default',
    );
    let observer: Asker | undefined;
    if (ctx.target.kind === 'socket') {
      // It declares client.questions: only its role keeps it from being asked.
      observer = await asker(ctx, 'observer', () => {
        throw new RpcError(-32603, 'an observer does not answer');
      });
      await attach(ctx, observer, sessionId, 'observer');
    }
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: ask the user');
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    if (observer) await observer.conn.waitFor(isTurnEnd(sessionId, turnId), 3000);
    if (!observer)
      r.skip(
        'daemon.questions.observer-not-asked',
        'needs a socket target (--socket): an observer beside the controller',
      );
    else
      r.expect(
        'daemon.questions.observer-not-asked',
        observer.asked.length === 0,
        `the observer was sent tool/question: ${show(observer.asked.map((x) => x.params))}`,
      );
    if (!checkAskedOnce(r, a, callId)) return;
    const asked = a.asked[0]!;
    const events = notes(a.conn, sessionId);
    const at = requestIndex(a.conn, asked.id);
    const nodeId = asked.params.nodeId;
    const clients = [{ label: 'controller', events }];
    if (observer) clients.push({ label: 'observer', events: notes(observer.conn, sessionId) });
    const resolved = checkResolved(r, clients, callId, 'answered');
    checkAnswerFields(r, resolved, 'Vitest', a.init.clientId);
    checkToolResult(r, events, turnId, nodeId, resolved);

    // The node waits on the user, then runs again before it ends.
    const statuses = events
      .filter((e) => e.method === Methods.TreeUpdate.method && e.params.turnId === turnId)
      .flatMap((e) =>
        ((e.params.nodes ?? []) as JsonObject[])
          .filter((n) => n.id === nodeId && n.status !== undefined)
          .map((n) => ({ index: e.index, status: String(n.status) })),
      );
    const awaiting = statuses.some((s) => s.index < at && s.status === 'awaiting_approval');
    const finalAt = statuses.find((s) => s.index > at && s.status === 'done')?.index ?? Infinity;
    const runningAgain = statuses.some(
      (s) => s.index > at && s.index < finalAt && s.status === 'running',
    );
    r.expect(
      'daemon.questions.node-awaiting',
      awaiting && runningAgain,
      `the ask_user node's statuses around tool/question (message ${at}): ${show(statuses)}; expected awaiting_approval before it and running again before it ends`,
    );

    const before = events.filter(
      (e) => e.index < at && e.method === Methods.SessionState.method && e.params.turnId === turnId,
    );
    const state = before[before.length - 1]?.params.state;
    r.expect(
      'daemon.questions.requires-action-first',
      state === 'requires_action',
      `the last session/state before tool/question was ${String(state)}, expected requires_action`,
    );
    if (resolved) {
      const after = events.filter(
        (e) =>
          e.index > resolved.index &&
          e.method === Methods.SessionState.method &&
          e.params.turnId === turnId,
      );
      r.expect(
        'daemon.questions.back-to-running',
        after[0]?.params.state === 'running',
        `after tool/questionResolved the next session/state is ${after[0] ? show(after[0].params) : 'missing'}, expected running (the turn went on)`,
      );
    }
  },
};

export const questionInvalid: Scenario<DaemonContext> = {
  id: 'daemon-question-invalid',
  role: 'daemon',
  title:
    "the only controller answers a freeText: false question with no option's label, then another with an error: each resolves unanswered at once, and the model gets an error result",
  checks: [...QUESTION_CHECKS, 'daemon.questions.invalid-answer-not-taken'],
  async run(ctx) {
    const r = ctx.recorder;
    const notOption = 'conformance-question-not-option';
    const errored = 'conformance-question-error';
    const a = await asker(ctx, 'controller', (params) => {
      if (params.toolCallId === notOption) return new DeliberateResult({ answer: 'Mocha' });
      throw new RpcError(-32603, 'the conformance client could not ask its user');
    });
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(ask(notOption, { freeText: false }), ask(errored), { text: GO_ON }),
      'default',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: answers that do not count');
    const first = await a.conn.waitFor(isResolvedOf(notOption), 5000);
    const second = first ? await a.conn.waitFor(isResolvedOf(errored), 5000) : undefined;
    if (!first || !second) {
      r.fail(
        'daemon.questions.invalid-answer-not-taken',
        `the question ${first ? errored : notOption} stayed pending for 5 s after the only controller answered ${first ? 'with an error' : '"Mocha" (no option\'s label, freeText false)'}`,
      );
      await a.conn.request(Methods.ChatCancel.method, { sessionId, turnId });
    }
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    const events = notes(a.conn, sessionId);
    const clients = [{ label: 'controller', events }];
    for (const callId of [notOption, errored]) {
      if (!checkAskedOnceAmong(r, a, callId)) return;
      const resolved = checkResolved(r, clients, callId);
      checkAnswerFields(r, resolved, callId === notOption ? 'Mocha' : undefined, a.init.clientId);
      const nodeId = a.asked.find((x) => x.params.toolCallId === callId)?.params.nodeId;
      checkToolResult(r, events, turnId, nodeId, resolved);
    }
    if (!first || !second) return;
    const outcomes = [notOption, errored].map((id) =>
      resolvedOf(events, id).map((e) => e.params.outcome),
    );
    r.expect(
      'daemon.questions.invalid-answer-not-taken',
      outcomes.every((o) => o.length > 0 && o.every((x) => x === 'unanswered')),
      `after "Mocha" to a freeText: false question with options Vitest, Jest: outcomes ${show(outcomes[0])}; after an error answer: ${show(outcomes[1])} (expected unanswered for both)`,
    );
  },
};

/** Like checkAskedOnce, for a controller asked several questions in turn. */
function checkAskedOnceAmong(r: Recorder, c: Asker, toolCallId: string): boolean {
  const about = c.asked.filter((a) => a.params.toolCallId === toolCallId);
  return r.expect(
    'daemon.questions.ask-controllers',
    about.length === 1,
    `${c.conn.label} got ${about.length} tool/question for the ask_user call ${toolCallId} (expected one)`,
  );
}

export const questionCancel: Scenario<DaemonContext> = {
  id: 'daemon-question-cancel',
  role: 'daemon',
  title:
    'chat/cancel while a question is pending: resolved cancelled, $/cancelRequest for the tool/question, the node and the turn end cancelled',
  checks: [
    'daemon.questions.cancelled-with-turn',
    'daemon.questions.cancel-others',
    'daemon.questions.answer-fields',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const callId = 'conformance-question-cancel';
    const a = await asker(ctx, 'controller', untilCancelled(3000));
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(ask(callId), { text: 'Never reached.' }),
      'default',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: cancel while asking');
    const asked = await firstAsk(ctx, a);
    await a.conn.request(Methods.ChatCancel.method, { sessionId, turnId });
    const end = await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    const cancelRequest = await a.conn.waitFor(isCancelOf(asked.id), 1000);
    r.expect(
      'daemon.questions.cancel-others',
      cancelRequest !== undefined,
      `the question was resolved by the cancellation, but no $/cancelRequest for its tool/question (id ${JSON.stringify(asked.id)}) arrived`,
    );
    const events = notes(a.conn, sessionId);
    const resolved = resolvedOf(events, callId);
    const node = finalView(events, turnId).get(String(asked.params.nodeId));
    r.expect(
      'daemon.questions.cancelled-with-turn',
      resolved.length > 0 &&
        resolved.every((e) => e.params.outcome === 'cancelled') &&
        node?.status === 'cancelled' &&
        end.stopReason === 'cancelled',
      `tool/questionResolved ${show(resolved.map((e) => e.params))} (expected outcome cancelled); ask_user node ${show(node)} (expected cancelled); stopReason ${String(end.stopReason)}`,
    );
    checkAnswerFields(r, resolved[0]);
  },
};

export const questionTwoControllers: Scenario<DaemonContext> = {
  id: 'daemon-question-two-controllers',
  role: 'daemon',
  title:
    "two controllers are asked; one answers, the other once that answer decided: the first answer alone decides, the other's tool/question is cancelled, both get one tool/questionResolved",
  checks: [
    'daemon.questions.ask-controllers',
    'daemon.questions.first-valid-wins',
    'daemon.questions.cancel-others',
    'daemon.questions.resolved',
  ],
  async run(ctx) {
    requireSocket(ctx.target, 'two controllers of one session');
    const r = ctx.recorder;
    const callId = 'conformance-question-race';
    let aAnswered = false;
    let bAnswered = false;
    let bCancelled = false;
    let bAfterResolved = false;
    const a = await asker(ctx, 'controller-a', async () => {
      await until(() => b.asked.length > 0, 2000); // called once b exists
      aAnswered = true;
      return { answer: 'Vitest' };
    });
    const b = await asker(ctx, 'controller-b', async (_params, id, conn) => {
      // Answers once A's answer has decided: a late answer that crossed the daemon's
      // $/cancelRequest, which must be ignored. A daemon that waits for every controller
      // gets it after a second.
      await until(() => aAnswered, 3000);
      const first = await conn.waitFor((m) => isCancelOf(id)(m) || isResolvedOf(callId)(m), 1000);
      await sleep(20);
      bAnswered = true;
      // Only a request still unanswered when the question was resolved is due a cancellation.
      bAfterResolved = conn.messages.some(isResolvedOf(callId));
      if (first && isCancelOf(id)(first)) bCancelled = true;
      return { answer: 'Jest' };
    });
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(ask(callId), { text: GO_ON }),
      'default',
    );
    await attach(ctx, b, sessionId, 'controller');
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: two controllers answer');
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    await b.conn.waitFor(isTurnEnd(sessionId, turnId), 3000);
    if (b.asked.length > 0) await until(() => bAnswered, 3000);
    await sleep(200); // anything the late answer changes shows by now
    const askedA = checkAskedOnce(r, a, callId);
    const askedB = checkAskedOnce(r, b, callId);
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
    const cancelled = bCancelled || b.conn.messages.some((m) => isCancelOf(b.asked[0]!.id)(m));
    if (bAfterResolved || cancelled)
      r.expect(
        'daemon.questions.cancel-others',
        cancelled,
        `the question was resolved while controller-b's tool/question (id ${JSON.stringify(b.asked[0]!.id)}) was unanswered, but it was never cancelled with $/cancelRequest`,
      );
    const resolved = resolvedOf(eventsA, callId);
    const { node } = outcomeOf(eventsA, turnId, a.asked[0]!.params.nodeId);
    const preview = String(node?.resultPreview ?? '');
    r.expect(
      'daemon.questions.first-valid-wins',
      resolved.length > 0 &&
        resolved.every(
          (e) =>
            e.params.outcome === 'answered' &&
            e.params.answer !== 'Jest' && // the fields themselves: answer-fields's to judge
            e.params.answeredBy !== b.init.clientId,
        ) &&
        node?.status === 'done' &&
        !preview.includes('Jest'),
      `controller-a (${a.init.clientId}) answered Vitest first, controller-b (${b.init.clientId}) Jest later; tool/questionResolved ${show(resolved.map((e) => e.params))}; ask_user node ${show(node)}`,
    );
  },
};

/** The same question: its ids and what it asks (a daemon may decorate objects with _meta or extensions). */
const sameQuestion = (a: JsonObject, b: JsonObject): boolean =>
  ['sessionId', 'turnId', 'nodeId', 'toolCallId', 'question', 'freeText'].every(
    (key) => a[key] === b[key],
  );

export const questionResend: Scenario<DaemonContext> = {
  id: 'daemon-question-resend',
  role: 'daemon',
  title:
    "a controller attaching while a question is pending finds it in the attach snapshot's pendingQuestions and gets the same tool/question after the attach response",
  checks: ['daemon.questions.resend-on-attach', 'daemon.questions.snapshot'],
  async run(ctx) {
    requireSocket(ctx.target, 'a second controller attaching');
    const r = ctx.recorder;
    // The first controller never answers: only the late one can.
    const a = await asker(ctx, 'controller-a', untilCancelled(3000, { answer: 'Vitest' }));
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(ask('conformance-question-resend'), { text: GO_ON }),
      'default',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: attach while asking');
    const asked = await firstAsk(ctx, a);
    const b = await asker(ctx, 'controller-b', () => ({ answer: 'Vitest' }));
    // A plain attach mid-turn: the running turn comes as a snapshot.
    const response = await b.conn.request(Methods.SessionAttach.method, {
      sessionId,
      role: 'controller',
    });
    const result = response?.result as JsonObject | undefined;
    if (result?.role !== 'controller') {
      r.fail('daemon.sessions.attach-role', `session/attach as controller got ${show(response)}`);
      throw new Abort('attach failed');
    }
    const attachAt = b.conn.messages.findIndex(
      (m) => m.kind === 'response' && (m.message as JsonObject).id === response!.id,
    );
    const snapshot = result.snapshot as JsonObject | undefined;
    if (!snapshot)
      r.skip(
        'daemon.questions.snapshot',
        `the attach mid-turn answered replay ${String(result.replay)} without a snapshot`,
      );
    else {
      const listed = (snapshot.pendingQuestions ?? []) as JsonObject[];
      r.expect(
        'daemon.questions.snapshot',
        Array.isArray(listed) &&
          listed.some((q) => sameQuestion(q, asked.params)) &&
          listed.length === 1,
        `the snapshot of an attach while the question was pending has pendingQuestions ${show(snapshot.pendingQuestions)}; expected exactly ${show(asked.params)}`,
      );
    }
    const got = await b.conn.waitFor(
      (m) =>
        m.kind === 'request' && (m.message as JsonObject).method === Methods.QuestionRequest.method,
      2000,
    );
    const params = (got?.message as JsonObject | undefined)?.params;
    r.expect(
      'daemon.questions.resend-on-attach',
      got !== undefined && got.index > attachAt && canonical(params) === canonical(asked.params),
      got === undefined
        ? 'the controller that attached while the question was pending got no tool/question within 2 s'
        : got.index < attachAt
          ? 'the re-sent tool/question came before the attach response'
          : `the re-sent params ${show(params)} differ from the original ${show(asked.params)}`,
    );
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
  },
};

export const questionNoController: Scenario<DaemonContext> = {
  id: 'daemon-question-no-controller',
  role: 'daemon',
  title:
    'the only controller with client.questions re-attaches as observer before ask_user runs: the question resolves unanswered at once, without requires_action, and the model gets an error result',
  checks: ['daemon.questions.no-controller', 'daemon.questions.answer-fields'],
  async run(ctx) {
    const r = ctx.recorder;
    const callId = 'conformance-question-nobody';
    const a = await asker(ctx, 'controller', () => ({ answer: 'Vitest' }));
    // The delay leaves time to step down before the model asks.
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(ask(callId, {}, 1000), { text: GO_ON }),
      'default',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: nobody can answer');
    const stepped = await a.conn.request(Methods.SessionAttach.method, {
      sessionId,
      role: 'observer',
    });
    if ((stepped?.result as JsonObject | undefined)?.role !== 'observer') {
      r.fail('daemon.sessions.attach-role', `re-attaching as observer got ${show(stepped)}`);
      throw new Abort('attach failed');
    }
    const early = a.conn.messages.some(
      (m) =>
        m.kind === 'request' && (m.message as JsonObject).method === Methods.QuestionRequest.method,
    );
    if (early) throw new Skip('the question was asked before the controller could step down (1 s)');
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    // Asking an observer is observer-not-asked's to judge.
    if (a.asked.length > 0) return;
    const events = notes(a.conn, sessionId);
    const resolved = resolvedOf(events, callId);
    const requiresAction = events.some(
      (e) =>
        e.method === Methods.SessionState.method &&
        e.params.turnId === turnId &&
        e.params.state === 'requires_action',
    );
    const node = [...finalView(events, turnId).values()].find(
      (n) => n.kind === 'tool' && n.name === ASK_USER,
    );
    r.expect(
      'daemon.questions.no-controller',
      // How many came is daemon.questions.resolved's to judge.
      resolved.length > 0 &&
        resolved.every((e) => e.params.outcome === 'unanswered') &&
        !requiresAction &&
        node?.status === 'error',
      `tool/questionResolved ${show(resolved.map((e) => e.params))} (expected outcome unanswered); ${requiresAction ? 'session/state requires_action was sent; ' : ''}ask_user node ${show(node)} (expected an error result)`,
    );
    checkAnswerFields(r, resolved[0]);
  },
};

/** The longest approval timeout the suite waits out; a daemon advertising more is not judged. */
const MAX_TIMEOUT_MS = 15_000;

export const questionTimeout: Scenario<DaemonContext> = {
  id: 'daemon-question-timeout',
  role: 'daemon',
  title:
    'the controller never answers: after capabilities.approvals.timeoutMs the question resolves timed_out, its tool/question is cancelled, the model gets an error result',
  checks: [
    'daemon.questions.timeout',
    'daemon.questions.cancel-others',
    'daemon.questions.answer-fields',
    'daemon.questions.tool-result',
  ],
  async run(ctx) {
    const r = ctx.recorder;
    const callId = 'conformance-question-timeout';
    const a = await asker(ctx, 'controller', untilCancelled(MAX_TIMEOUT_MS + 5000));
    const advertised = (a.init.capabilities.approvals as JsonObject | undefined)?.timeoutMs;
    const timeoutMs = advertised === undefined ? 600_000 : advertised;
    if (typeof timeoutMs !== 'number' || timeoutMs > MAX_TIMEOUT_MS)
      throw new Skip(
        `the daemon does not advertise capabilities.approvals.timeoutMs of at most ${MAX_TIMEOUT_MS} ms, the approval timeout questions share (it advertises ${String(advertised)})`,
      );
    const sessionId = await scriptedSession(
      ctx,
      a,
      script(ask(callId), { text: GO_ON }),
      'default',
    );
    const turnId = await send(ctx, a.conn, sessionId, 'conformance: nobody answers');
    const asked = await firstAsk(ctx, a);
    const askedAt = Date.now();
    const resolved = await a.conn.waitFor(isResolvedOf(callId), timeoutMs + 5000);
    const elapsed = Date.now() - askedAt;
    if (!resolved) {
      r.fail(
        'daemon.questions.timeout',
        `the question was still pending ${timeoutMs + 5000} ms after tool/question (timeoutMs ${timeoutMs})`,
      );
      await a.conn.request(Methods.ChatCancel.method, { sessionId, turnId });
      return;
    }
    await waitTurnEnd(ctx, a.conn, sessionId, turnId);
    const cancelRequest = await a.conn.waitFor(isCancelOf(asked.id), 1000);
    r.expect(
      'daemon.questions.cancel-others',
      cancelRequest !== undefined,
      `the question timed out, but no $/cancelRequest for its tool/question (id ${JSON.stringify(asked.id)}) arrived`,
    );
    const events = notes(a.conn, sessionId);
    const all = resolvedOf(events, callId);
    r.expect(
      'daemon.questions.timeout',
      all.length > 0 && all.every((e) => e.params.outcome === 'timed_out'),
      `after ${elapsed} ms without an answer (timeoutMs ${timeoutMs}): tool/questionResolved ${show(all.map((e) => e.params))} (expected timed_out)`,
    );
    checkAnswerFields(r, all[0]);
    checkToolResult(r, events, turnId, asked.params.nodeId, all[0]);
  },
};
