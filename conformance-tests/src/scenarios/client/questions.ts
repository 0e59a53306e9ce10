/**
 * The client side of questions (questions.md#client-duties, protocol 1.1):
 * the suite, as the daemon, asks the model's question with `tool/question`.
 * A driven client answers with ARBOR_CONFORMANCE_ANSWER (or the first
 * option's label, or `ok`), or — with the approval policy `ignore` — leaves
 * the question waiting; what it shows is read from `_arbor/conformance/state`'s
 * `pendingQuestions`. Only for clients that declare `client.questions`.
 */
import { Methods } from '@arbor/protocol';
import {
  hasCapability,
  timeouts,
  type Connection,
  type JsonObject,
} from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { DRIVER_ANSWERS, type ClientContext } from './context.js';
import { clientState, describe, ready, requireClientCapability, sleep } from './scenarios.js';

const TURN = 'turn-q';
const QUESTION = 'The tests use both Jest and Vitest. Which runner should the new tests use?';
const OPTIONS = [
  { label: 'Vitest', description: 'Used by the newer test files' },
  { label: 'Jest' },
];

export function questionParams(
  ctx: ClientContext,
  toolCallId: string,
  extra: JsonObject = {},
): JsonObject {
  return {
    sessionId: ctx.sessionId,
    turnId: TURN,
    nodeId: `node-${toolCallId}`,
    toolCallId,
    question: QUESTION,
    options: OPTIONS,
    freeText: true,
    ...extra,
  };
}

/** A running turn whose ask_user node waits on the user, as a daemon announces it. */
function startTurnWithQuestion(ctx: ClientContext, conn: Connection, toolCallIds: string[]): void {
  ctx.emit(conn, Methods.SessionState.method, { state: 'running', turnId: TURN });
  ctx.emit(conn, Methods.TreeUpdate.method, {
    turnId: TURN,
    nodes: [
      {
        id: 'turn-node-q',
        parentId: null,
        kind: 'turn',
        name: 'turn',
        status: 'running',
        depth: 0,
      },
      ...toolCallIds.map((id) => ({
        id: `node-${id}`,
        parentId: 'turn-node-q',
        kind: 'tool',
        name: 'ask_user',
        status: 'awaiting_approval',
        depth: 0,
      })),
    ],
  });
  ctx.emit(conn, Methods.SessionState.method, { state: 'requires_action', turnId: TURN });
}

function resolve(ctx: ClientContext, conn: Connection, toolCallId: string, end: JsonObject): void {
  ctx.emit(conn, Methods.QuestionResolved.method, { turnId: TURN, toolCallId, ...end });
}

const pendingOf = (state: JsonObject): unknown[] =>
  Array.isArray(state.pendingQuestions) ? state.pendingQuestions : [];

/** A request the driver holds (policy `ignore`) until the daemon cancels it: it waits longer. */
const held = (check: string): { timeoutMs: number; noResponseCheck: string } => ({
  timeoutMs: 4 * timeouts.requestMs,
  noResponseCheck: check,
});

async function questionSetup(ctx: ClientContext, conformance: boolean): Promise<Connection> {
  const conn = await ready(ctx);
  requireClientCapability(conn, 'client.questions');
  if (conformance) requireClientCapability(conn, 'client.conformance');
  return conn;
}

/** What the driver convention says a driven client answers (conformance.md#conformance-driver-questions). */
function expectedAnswer(params: JsonObject, scenarioId: string): string {
  const labels = ((params.options ?? []) as JsonObject[]).map((o) => String(o.label));
  const text = DRIVER_ANSWERS[scenarioId];
  if (text !== undefined && (params.freeText !== false || labels.includes(text))) return text;
  return labels[0] ?? 'ok';
}

function questionAnswerScenario(
  id: string,
  title: string,
  asks: { toolCallId: string; extra: JsonObject }[],
): Scenario<ClientContext> {
  return {
    id,
    role: 'client',
    title,
    checks: ['client.questions.valid-answer'],
    async run(ctx) {
      const conn = await questionSetup(ctx, false);
      startTurnWithQuestion(
        ctx,
        conn,
        asks.map((a) => a.toolCallId),
      );
      for (const { toolCallId, extra } of asks) {
        const params = questionParams(ctx, toolCallId, extra);
        const answer = await conn.request(Methods.QuestionRequest.method, params, {
          noResponseCheck: 'client.questions.valid-answer',
        });
        if (!answer) return;
        const expected = expectedAnswer(params, id);
        const got = (answer.result as JsonObject | undefined)?.answer;
        ctx.recorder.expect(
          'client.questions.valid-answer',
          got === expected,
          `a question with ${params.options ? `options ${JSON.stringify((params.options as JsonObject[]).map((o) => o.label))}` : 'no options'} and freeText ${String(params.freeText)} (ARBOR_CONFORMANCE_ANSWER ${JSON.stringify(DRIVER_ANSWERS[id] ?? null)}) got ${describe(answer)}; expected {"answer": ${JSON.stringify(expected)}}`,
        );
        resolve(ctx, conn, toolCallId, {
          outcome: 'answered',
          answer: expected,
          answeredBy: 'conformance-client',
        });
      }
    },
  };
}

export const questionAnswer = questionAnswerScenario(
  'client-question-answer',
  'tool/question is answered with ARBOR_CONFORMANCE_ANSWER, or the first option when freeText is false and it is no label',
  [
    { toolCallId: 'call-q1', extra: {} },
    { toolCallId: 'call-q2', extra: { freeText: false } },
    { toolCallId: 'call-q3', extra: { options: undefined } },
  ],
);

export const questionDefaultAnswer = questionAnswerScenario(
  'client-question-default-answer',
  "without ARBOR_CONFORMANCE_ANSWER, tool/question is answered with the first option's label, or ok without options",
  [
    { toolCallId: 'call-q4', extra: {} },
    { toolCallId: 'call-q5', extra: { options: undefined } },
  ],
);

export const questionResend: Scenario<ClientContext> = {
  id: 'client-question-resend',
  role: 'client',
  title: 'a tool/question received twice (as re-sent on attach) is one waiting question',
  checks: ['client.questions.dedupe'],
  async run(ctx) {
    const conn = await questionSetup(ctx, true);
    startTurnWithQuestion(ctx, conn, ['call-q6']);
    // The driver policy is `ignore`: both stay unanswered until the daemon cancels them.
    const ids = ['question-6a', 'question-6b'];
    const answers = ids.map((id) =>
      conn.request(Methods.QuestionRequest.method, questionParams(ctx, 'call-q6'), {
        id,
        ...held('client.questions.cancelled'),
      }),
    );
    await sleep(50);
    const state = await clientState(ctx, conn, 'client.questions.dedupe');
    if (state) {
      const shown = pendingOf(state).filter((id) => id === 'call-q6').length;
      ctx.recorder.expect(
        'client.questions.dedupe',
        shown === 1,
        `after the same tool/question twice the client shows pendingQuestions ${JSON.stringify(state.pendingQuestions)}`,
      );
    }
    resolve(ctx, conn, 'call-q6', { outcome: 'cancelled' });
    for (const id of ids) conn.notify(Methods.CancelRequest.method, { id });
    await Promise.all(answers);
  },
};

export const questionResolved: Scenario<ClientContext> = {
  id: 'client-question-resolved',
  role: 'client',
  title:
    'a question another controller answered: tool/questionResolved closes the one the client shows',
  checks: ['client.questions.closed-on-resolved'],
  async run(ctx) {
    const check = 'client.questions.closed-on-resolved';
    const conn = await questionSetup(ctx, true);
    startTurnWithQuestion(ctx, conn, ['call-q7']);
    const answer = conn.request(Methods.QuestionRequest.method, questionParams(ctx, 'call-q7'), {
      id: 'question-7',
      ...held('client.questions.cancelled'),
    });
    await sleep(50);
    const before = await clientState(ctx, conn, check);
    if (!before) return;
    if (!pendingOf(before).includes('call-q7')) {
      ctx.recorder.fail(
        check,
        `the unanswered question is not shown as waiting: pendingQuestions ${JSON.stringify(before.pendingQuestions)}`,
      );
      return;
    }
    // Judged before the $/cancelRequest, which closes a prompt on its own.
    resolve(ctx, conn, 'call-q7', {
      outcome: 'answered',
      answer: 'Jest',
      answeredBy: 'another-controller',
    });
    await sleep(50);
    const after = await clientState(ctx, conn, check);
    conn.notify(Methods.CancelRequest.method, { id: 'question-7' });
    await answer;
    if (!after) return;
    ctx.recorder.expect(
      check,
      !pendingOf(after).includes('call-q7'),
      `after tool/questionResolved (answered by another controller) the client still shows pendingQuestions ${JSON.stringify(after.pendingQuestions)}`,
    );
  },
};

export const questionCancel: Scenario<ClientContext> = {
  id: 'client-question-cancel',
  role: 'client',
  title: 'a tool/question cancelled with $/cancelRequest is answered -32800 and no longer shown',
  checks: ['client.questions.cancelled'],
  async run(ctx) {
    const check = 'client.questions.cancelled';
    const conn = await questionSetup(ctx, false);
    startTurnWithQuestion(ctx, conn, ['call-q8']);
    const pending = conn.request(Methods.QuestionRequest.method, questionParams(ctx, 'call-q8'), {
      id: 'question-8',
      ...held(check),
    });
    await sleep(100);
    conn.notify(Methods.CancelRequest.method, { id: 'question-8' });
    const answer = await pending;
    if (!answer) return;
    if (
      !ctx.recorder.expect(
        check,
        answer.error?.code === -32800,
        `the cancelled tool/question got ${describe(answer)}, expected -32800`,
      )
    )
      return;
    // The prompt closes too, where the suite can see it.
    if (!hasCapability(conn.negotiated, 'client.conformance')) return;
    const state = await clientState(ctx, conn, check);
    if (state)
      ctx.recorder.expect(
        check,
        !pendingOf(state).includes('call-q8'),
        `after answering the cancelled tool/question -32800 the client still shows pendingQuestions ${JSON.stringify(state.pendingQuestions)}`,
      );
  },
};
