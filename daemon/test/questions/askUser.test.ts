/**
 * ask_user through the protocol (questions.md): the model's question reaches
 * the session's controllers as tool/question, the first valid answer is the
 * tool's result, and every client learns how it ended from tool/questionResolved.
 */
import assert from 'node:assert/strict';
import { Methods, QuestionRequestParams, QuestionResolvedParams } from '@arbor/protocol';
import { script } from '../agent/harness.js';
import {
  newSession,
  permDaemon,
  send,
  tempDir,
  toolNodes,
  toolResults,
  turnEnd,
  until,
  type PermClient,
  type PermDaemon,
} from '../permissions/helpers.js';

const askCall = (args: Record<string, unknown>, id = 'call_q') => ({
  id,
  name: 'ask_user',
  arguments: args,
});
const which = {
  question: 'Which test runner should the new tests use?',
  options: [{ label: 'Vitest', description: 'the newer tests' }, { label: 'Jest' }],
};
const askIt = script({
  'ask me': [{ toolCalls: [askCall(which)] }, { text: 'noted' }],
});
const questionsCapable = { capabilities: { approvals: {}, questions: {} } };

function resolvedOf(client: PermClient): QuestionResolvedParams[] {
  return client.eventsOf(Methods.QuestionResolved).map((p) => QuestionResolvedParams.parse(p));
}

describe('ask_user (live, through the protocol)', function () {
  this.timeout(20_000);
  let daemon: PermDaemon | undefined;
  let ws: string;

  beforeEach(() => {
    ws = tempDir();
  });
  afterEach(async () => {
    await daemon?.close();
    daemon = undefined;
  });

  it('the answer is the tool result; requires_action, question, resolved, running in order', async () => {
    daemon = permDaemon(askIt);
    const client = await daemon.connect(questionsCapable);
    const sessionId = await newSession(client, ws, 'plan');
    const turnId = await send(client, sessionId, 'ask me');
    await until(() => client.questions.length === 1);
    const params = QuestionRequestParams.parse(client.questions[0]!.params);
    assert.equal(params.question, which.question);
    assert.deepEqual(
      params.options?.map((o) => o.label),
      ['Vitest', 'Jest'],
    );
    assert.equal(params.freeText, true);
    assert.equal(toolNodes(client, 'ask_user')[0]!['status'], 'awaiting_approval');

    client.questions[0]!.answer({ answer: 'Vitest, like the rest' });
    await turnEnd(client, turnId);
    const result = toolResults(daemon.provider).find((r) => r.name === 'ask_user')!;
    assert.notEqual(result.isError, true);
    assert.match(result.content, /Vitest, like the rest/);
    const resolved = resolvedOf(client);
    assert.equal(resolved.length, 1);
    assert.deepEqual(
      { ...resolved[0], seq: 0 },
      {
        sessionId,
        seq: 0,
        turnId,
        toolCallId: 'call_q',
        outcome: 'answered',
        answer: 'Vitest, like the rest',
        answeredBy: client.clientId,
      },
    );
    assert.equal(toolNodes(client, 'ask_user')[0]!['status'], 'done');
    const order = client.log
      .slice(client.log.indexOf('session/state:requires_action'))
      .filter((m) =>
        [
          'session/state:requires_action',
          Methods.QuestionRequest.method,
          Methods.QuestionResolved.method,
          'session/state:running',
        ].includes(m),
      )
      .slice(0, 4);
    assert.deepEqual(order, [
      'session/state:requires_action',
      Methods.QuestionRequest.method,
      Methods.QuestionResolved.method,
      'session/state:running',
    ]);
  });

  it('the first of two controllers wins; the other request is cancelled', async () => {
    daemon = permDaemon(askIt);
    const first = await daemon.connect(questionsCapable);
    const second = await daemon.connect(questionsCapable);
    const sessionId = await newSession(first, ws);
    await second.request(Methods.SessionAttach, { sessionId, role: 'controller' });
    const turnId = await send(first, sessionId, 'ask me');
    await until(() => first.questions.length === 1 && second.questions.length === 1);
    second.questions[0]!.answer({ answer: 'Jest' });
    await first.questions[0]!.cancelled;
    first.questions[0]!.answer({ answer: 'Vitest' }); // too late: ignored
    await turnEnd(first, turnId);
    const resolved = resolvedOf(first);
    assert.equal(resolved.length, 1);
    assert.equal(resolved[0]!.answer, 'Jest');
    assert.equal(resolved[0]!.answeredBy, second.clientId);
    assert.match(toolResults(daemon.provider).find((r) => r.name === 'ask_user')!.content, /Jest/);
  });

  it('with freeText false, an answer that is no option is not an answer', async () => {
    daemon = permDaemon(
      script({
        'ask me': [{ toolCalls: [askCall({ ...which, freeText: false })] }, { text: 'ok' }],
      }),
    );
    const client = await daemon.connect(questionsCapable);
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'ask me');
    await until(() => client.questions.length === 1);
    assert.equal(QuestionRequestParams.parse(client.questions[0]!.params).freeText, false);
    client.questions[0]!.answer({ answer: 'Mocha' });
    await turnEnd(client, turnId);
    assert.equal(resolvedOf(client)[0]!.outcome, 'unanswered');
    assert.equal('answer' in resolvedOf(client)[0]!, false);
    const result = toolResults(daemon.provider).find((r) => r.name === 'ask_user')!;
    assert.equal(result.isError, true);
    assert.match(result.content, /did not answer|could not be asked|dismissed/);
  });

  it('cancelling the turn resolves the question cancelled and withdraws the request', async () => {
    daemon = permDaemon(askIt);
    const client = await daemon.connect(questionsCapable);
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'ask me');
    await until(() => client.questions.length === 1);
    await client.request(Methods.ChatCancel, { sessionId, turnId });
    await client.questions[0]!.cancelled;
    const idle = await turnEnd(client, turnId);
    assert.equal(idle['stopReason'], 'cancelled');
    assert.deepEqual(
      resolvedOf(client).map((r) => r.outcome),
      ['cancelled'],
    );
  });

  it('a controller that attaches while a question is pending is asked, and sees it in its snapshot', async () => {
    daemon = permDaemon(askIt);
    const first = await daemon.connect(questionsCapable);
    const sessionId = await newSession(first, ws);
    const turnId = await send(first, sessionId, 'ask me');
    await until(() => first.questions.length === 1);
    const late = await daemon.connect(questionsCapable);
    const attached = (await late.request(Methods.SessionAttach, {
      sessionId,
      role: 'controller',
    })) as { snapshot?: { pendingQuestions?: { toolCallId: string }[] } };
    assert.deepEqual(
      attached.snapshot?.pendingQuestions?.map((q) => q.toolCallId),
      ['call_q'],
    );
    await until(() => late.questions.length === 1);
    assert.deepEqual(late.questions[0]!.params, first.questions[0]!.params);
    late.questions[0]!.answer({ answer: 'Vitest' });
    await turnEnd(first, turnId);
    assert.equal(resolvedOf(first)[0]!.answeredBy, late.clientId);
  });

  it('a question times out with the approval timeout', async () => {
    daemon = permDaemon(askIt, { approvalTimeoutMs: 150 });
    const client = await daemon.connect(questionsCapable);
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'ask me');
    await turnEnd(client, turnId);
    assert.equal(resolvedOf(client)[0]!.outcome, 'timed_out');
    const result = toolResults(daemon.provider).find((r) => r.name === 'ask_user')!;
    assert.equal(result.isError, true);
    assert.match(result.content, /did not answer in time/);
  });

  it('a client that does not answer questions is never asked, and its turns are not offered ask_user', async () => {
    daemon = permDaemon(askIt);
    const client = await daemon.connect({ capabilities: { approvals: {} } });
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'ask me');
    await turnEnd(client, turnId);
    assert.equal(client.questions.length, 0);
    const offered = daemon.provider.requests[0]!.tools?.map((t) => t.name) ?? [];
    assert.equal(offered.includes('ask_user'), false);
    const result = toolResults(daemon.provider).find((r) => r.name === 'ask_user')!;
    assert.match(result.content, /Unknown tool "ask_user"/);
  });

  it('an approval and a question pending together keep requires_action until both end', async () => {
    daemon = permDaemon(
      script({
        both: [
          {
            toolCalls: [
              askCall({ question: 'Name?' }),
              { id: 'call_w', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } },
            ],
          },
          { text: 'ok' },
        ],
      }),
    );
    const client = await daemon.connect(questionsCapable);
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'both');
    await until(() => client.questions.length === 1 && client.asks.length === 1);
    client.questions[0]!.answer({ answer: 'Arbor' });
    await until(() => resolvedOf(client).length === 1);
    const states = () =>
      client
        .eventsOf(Methods.SessionState)
        .filter((p) => p['turnId'] === turnId)
        .map((p) => p['state']);
    assert.deepEqual(states(), ['running', 'requires_action']);
    client.asks[0]!.answer({ decision: 'allow' });
    await turnEnd(client, turnId);
    assert.deepEqual(states(), ['running', 'requires_action', 'running', 'idle']);
  });
});
