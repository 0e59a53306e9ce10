import { strict as assert } from 'node:assert';
import { CancellationTokenSource, ResponseError } from 'vscode-jsonrpc/node';
import { ArborErrorCodes, ErrorCodes, Methods } from '../../src/index.js';
import {
  ArborClient,
  SessionTracker,
  approvalKey,
  promptKey,
  type AttachResult,
} from '../../src/client/index.js';
import { approvalRequest, ev, node, SESSION, sessionInfo, TURN } from './builders.js';
import { FakeDaemon, settle } from './fakeDaemon.js';

/** Sends a SessionView-shaped event from the daemon as the notification it stands for. */
function send(daemon: FakeDaemon, event: ReturnType<typeof ev.chunk>): Promise<void> {
  return daemon.notify(event.method, event.params);
}

describe('SessionTracker over a fake daemon', () => {
  let daemon: FakeDaemon;
  let client: ArborClient;
  let sessions: SessionTracker;

  beforeEach(async () => {
    daemon = new FakeDaemon();
    client = new ArborClient(daemon.clientConnection, { clientInfo: { name: 'tracker-test' } });
    sessions = new SessionTracker(client, { conformance: true });
    await client.initialize();
  });
  afterEach(() => {
    client.dispose();
    daemon.dispose();
  });

  it('declares approvals, questions and conformance at initialize', async () => {
    const init = await daemon.next(Methods.Initialize.method);
    assert.deepEqual((init.params as { capabilities: unknown }).capabilities, {
      approvals: {},
      conformance: {},
      openEnums: {},
      questions: {},
    });
  });

  it('attaching mid-turn catches up from seq 0: a snapshot gives the tree and the text so far', async () => {
    const attaches: unknown[] = [];
    daemon.answers.set(Methods.SessionAttach.method, (params): AttachResult => {
      attaches.push(params);
      return {
        session: sessionInfo({ state: 'running' }),
        role: 'controller',
        lastSeq: 30,
        replay: 'snapshot',
        snapshot: {
          turnId: TURN,
          tree: { version: 1, nodes: [node('t', null), node('a', 't')] },
          texts: [{ nodeId: 't', text: 'Looking' }],
          pendingApprovals: [],
        },
      };
    });
    const view = await sessions.attach(SESSION);
    await send(daemon, ev.chunk(31, ' at it'));
    await settle();
    assert.deepEqual(attaches, [{ sessionId: SESSION, role: 'controller', sinceSeq: 0 }]);
    assert.deepEqual(
      view.tree.roots().map((n) => n.id),
      ['t'],
    );
    assert.equal(view.turnText(), 'Looking at it');
    assert.equal(view.state, 'running');
  });

  it('on a seq gap re-attaches with sinceSeq = last applied seq and applies the replay', async () => {
    const attaches: unknown[] = [];
    daemon.answers.set(Methods.SessionAttach.method, (params) => {
      attaches.push(params);
      const result: AttachResult = {
        session: sessionInfo({ state: 'running' }),
        role: 'observer',
        lastSeq: 2,
        replay: 'none',
      };
      return (params as { sinceSeq?: number }).sinceSeq === undefined
        ? result
        : { ...result, lastSeq: 6, replay: 'events' };
    });
    const view = await sessions.attach(SESSION, { sinceSeq: null, role: 'observer' });
    await send(daemon, ev.tree(3, [node('t', null)]));
    await send(daemon, ev.chunk(4, 'A'));
    await send(daemon, ev.chunk(4, 'A')); // duplicate
    await send(daemon, ev.chunk(6, 'C')); // 5 was lost
    await settle();
    assert.equal(view.turnText(), 'A');
    assert.deepEqual(attaches, [
      { sessionId: SESSION, role: 'observer' },
      { sessionId: SESSION, role: 'observer', sinceSeq: 4 },
    ]);
    // The daemon replays what came after seq 4.
    await send(daemon, ev.chunk(5, 'B'));
    await send(daemon, ev.chunk(6, 'C'));
    await settle();
    assert.equal(view.turnText(), 'ABC');
    assert.equal(view.lastSeq, 6);
    assert.equal(view.resyncing, false);
  });

  it('an approval waits in the session queue until the user answers there; resolved closes it', async () => {
    const view = sessions.track(SESSION);
    const answer = daemon.request(Methods.ApprovalRequest.method, approvalRequest('c1'));
    await settle();
    assert.deepEqual(
      view.approvals.awaiting().map((a) => a.request.toolCallId),
      ['c1'],
    );
    view.approvals.decide(approvalKey(approvalRequest('c1')), 'deny');
    assert.deepEqual(await answer, { decision: 'deny' });
    assert.deepEqual(view.approvals.awaiting(), []);
    await send(
      daemon,
      ev.resolved(1, 'c1', { outcome: 'rejected', decision: 'deny', decidedBy: 'client_1' }),
    );
    await settle();
    assert.equal(view.approvals.size, 0);
  });

  it('an approval resolved by another client closes here and its request answers -32800', async () => {
    const view = sessions.track(SESSION);
    const answer = daemon
      .request(Methods.ApprovalRequest.method, approvalRequest('c1'))
      .catch((e: unknown) => e);
    await settle();
    await send(daemon, ev.resolved(1, 'c1', { decidedBy: 'client_2', decision: 'allow' }));
    const error = await answer;
    assert.ok(error instanceof ResponseError);
    assert.equal(error.code, ErrorCodes.RequestCancelled);
    assert.equal(view.approvals.size, 0);
  });

  it('a cancelled approval request drops its card', async () => {
    const view = sessions.track(SESSION);
    const source = new CancellationTokenSource();
    const answer = daemon
      .request(Methods.ApprovalRequest.method, approvalRequest('c1'), source.token)
      .catch((e: unknown) => e);
    await settle();
    assert.equal(view.approvals.size, 1);
    source.cancel();
    const error = await answer;
    assert.ok(error instanceof ResponseError);
    assert.equal(error.code, ErrorCodes.RequestCancelled);
    assert.equal(view.approvals.size, 0);
  });

  it('a request re-sent after re-attach shows one card, and one decision answers it', async () => {
    const view = sessions.track(SESSION);
    const first = daemon
      .request(Methods.ApprovalRequest.method, approvalRequest('c1'))
      .catch((e: unknown) => e);
    const again = daemon.request(Methods.ApprovalRequest.method, approvalRequest('c1'));
    await settle();
    assert.equal(view.approvals.size, 1);
    view.approvals.decide(approvalKey(approvalRequest('c1')), 'allow');
    assert.deepEqual(await again, { decision: 'allow' });
    assert.deepEqual(await first, { decision: 'allow' });
    const third = await daemon.request(Methods.ApprovalRequest.method, approvalRequest('c1'));
    assert.deepEqual(third, { decision: 'allow' }, 'a re-send after the answer gets it at once');
  });

  it('a question waits in the session queue until the user answers there; resolved closes it', async () => {
    const view = sessions.track(SESSION);
    const question = {
      sessionId: SESSION,
      turnId: TURN,
      nodeId: 'n_q',
      toolCallId: 'q1',
      question: 'Which runner?',
      options: [{ label: 'Vitest' }, { label: 'Jest' }],
      freeText: true,
    };
    const answer = daemon.request(Methods.QuestionRequest.method, question);
    const resent = daemon.request(Methods.QuestionRequest.method, question);
    await settle();
    assert.deepEqual(
      view.questions.awaiting().map((q) => q.request.toolCallId),
      ['q1'],
      'one prompt per question, re-sent or not',
    );
    assert.deepEqual(view.conformanceState().pendingQuestions, ['q1']);
    view.questions.decide(promptKey(question), 'Jest, for now');
    assert.deepEqual(await answer, { answer: 'Jest, for now' });
    assert.deepEqual(await resent, { answer: 'Jest, for now' });
    await daemon.notify(Methods.QuestionResolved.method, {
      sessionId: SESSION,
      seq: 1,
      turnId: TURN,
      toolCallId: 'q1',
      outcome: 'answered',
      answer: 'Jest, for now',
      answeredBy: 'client_1',
    });
    await settle();
    assert.equal(view.questions.size, 0);
    assert.deepEqual(view.conformanceState().pendingQuestions, []);
  });

  it('a cancelled question request closes its prompt and answers -32800', async () => {
    const view = sessions.track(SESSION);
    const source = new CancellationTokenSource();
    const answer = daemon
      .request(
        Methods.QuestionRequest.method,
        {
          sessionId: SESSION,
          turnId: TURN,
          nodeId: 'n_q',
          toolCallId: 'q2',
          question: 'Name?',
          freeText: true,
        },
        source.token,
      )
      .catch((e: unknown) => e);
    await settle();
    assert.equal(view.questions.size, 1);
    source.cancel();
    const error = await answer;
    assert.ok(error instanceof ResponseError);
    assert.equal(error.code, ErrorCodes.RequestCancelled);
    assert.equal(view.questions.size, 0);
  });

  it('answers _arbor/conformance/state from the view', async () => {
    sessions.track(SESSION);
    await send(daemon, ev.tree(1, [node('t', null)]));
    await send(daemon, ev.chunk(2, 'hi'));
    await settle();
    const state = await daemon.request(Methods.ConformanceState.method, { sessionId: SESSION });
    assert.deepEqual(state, {
      sessionId: SESSION,
      lastSeq: 2,
      state: 'idle',
      tree: { version: 1, nodes: [node('t', null)] },
      pendingApprovals: [],
      pendingQuestions: [],
      text: 'hi',
      plan: [],
    });
  });

  it('answers _arbor/conformance/state for an unknown session with SessionNotFound', async () => {
    await assert.rejects(
      daemon.request(Methods.ConformanceState.method, { sessionId: 'ses_unknown' }),
      (error: { code?: number }) => error.code === ArborErrorCodes.SessionNotFound,
    );
  });
});
