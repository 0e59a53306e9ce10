import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HostMessage } from '../../src/shared/messages.js';
import { ChatModel } from '../../webview/model/chatModel.js';
import { msg, nestedTurn, node } from '../fixtures/builders.js';

const here = dirname(fileURLToPath(import.meta.url));
const recording = JSON.parse(
  readFileSync(join(here, '..', 'fixtures', 'streams', 'nested-subtasks.json'), 'utf8'),
) as {
  live: HostMessage[];
  reload: HostMessage;
};

function modelOf(...messages: HostMessage[]): ChatModel {
  const model = new ChatModel();
  for (const m of messages) model.apply(m);
  return model;
}

const outline = (model: ChatModel, turnId: string) => {
  const turn = model.turns.get(turnId)!;
  const walk = (id: string): unknown[] =>
    turn.tree.children(id).map((n) => [n.name, n.title, n.status, walk(n.id)]);
  return turn.tree.roots().map((r) => walk(r.id));
};

describe('ChatModel (the webview state)', () => {
  it('builds the same tree and answer from the live stream and from the stored snapshot', () => {
    const live = modelOf(...recording.live);
    const reloaded = modelOf(recording.reload);
    const [turnId] = live.turnOrder;
    assert.ok(turnId);
    assert.deepEqual(outline(reloaded, turnId), outline(live, turnId));
    assert.equal(
      reloaded.answerOf(reloaded.turns.get(turnId)!),
      live.answerOf(live.turns.get(turnId)!),
    );
    assert.equal(live.turns.get(turnId)!.status, 'complete');
    assert.equal(reloaded.turns.get(turnId)!.status, 'complete');
  });

  it('records what changed for the renderer, once', () => {
    const model = modelOf(msg.session());
    assert.equal(model.takeDirty().all, true);
    model.apply(msg.turnStarted('t', 'q'));
    model.apply(msg.tree('t', node('t', null), node('a', 't')));
    model.apply(msg.tree('t', node('a', 't', { status: 'done' })));
    model.apply(msg.text('t', 't', 'hello'));
    const dirty = model.takeDirty();
    assert.deepEqual(dirty.addedTurns, ['t']);
    assert.deepEqual([...dirty.nodes.get('t')!], ['t', 'a']);
    assert.deepEqual([...dirty.texts.get('t')!], ['t']);
    assert.equal(model.hasChanges, false);
  });

  it('shows the title the session gets from its first message', () => {
    const model = modelOf(msg.session());
    model.takeDirty();
    model.apply(HostMessage.parse({ type: 'title', title: 'Why does test_io fail?' }));
    assert.equal(model.title, 'Why does test_io fail?');
    assert.equal(model.takeDirty().chrome, true);
  });

  it('keeps turn state, cost and budget; session cost is unknown once a price is', () => {
    const model = modelOf(msg.session(), ...nestedTurn('t1', 1, 1));
    assert.equal(model.running, false);
    assert.equal(model.turns.get('t1')!.cost, 0.0123);
    model.apply(msg.turnStarted('t2', 'again'));
    model.apply(msg.running('t2'));
    assert.equal(model.running, true);
    assert.equal(model.runningTurnId, 't2');
    model.apply(msg.budget('t2', 'wall_clock_ms', 180000, 180512));
    model.apply(msg.cost('t2', null));
    model.apply(msg.ended('t2', 'budget_exceeded'));
    assert.equal(model.turns.get('t2')!.status, 'budget_exceeded');
    assert.equal(model.turns.get('t2')!.budget.length, 1);
    assert.equal(model.sessionCost(), null);
  });

  it('queues approvals, remembers an answer, and drops one resolved elsewhere', () => {
    const model = modelOf(
      msg.session(),
      msg.approval({ turnId: 't', toolCallId: 'a', nodeId: 'n1' }),
      msg.approval({ turnId: 't', toolCallId: 'b', nodeId: 'n2' }),
    );
    assert.equal(model.approvals.size, 2);
    assert.equal(model.answer('t', 'a', 'allow'), true);
    assert.equal(model.answer('t', 'a', 'deny'), false, 'answered once');
    assert.deepEqual(
      model.awaitingApprovals().map((a) => a.request.toolCallId),
      ['b'],
    );
    model.apply(msg.approvalResolved('t', 'b', 'rejected'));
    model.apply(msg.approval({ turnId: 't', toolCallId: 'a', nodeId: 'n1' }));
    assert.deepEqual(
      [...model.approvals.values()].map((a) => [a.request.toolCallId, a.answer]),
      [['a', 'allow']],
    );
  });

  it('keeps one question per turnId + toolCallId, remembers the answer, and records how it ended', () => {
    const model = modelOf(
      msg.session(),
      msg.requiresAction('t'),
      msg.question({ turnId: 't', toolCallId: 'q1', nodeId: 'n1' }),
      msg.question({ turnId: 't', toolCallId: 'q2', nodeId: 'n2', freeText: false }),
      // Re-sent after a re-attach: still one card.
      msg.question({ turnId: 't', toolCallId: 'q1', nodeId: 'n1' }),
    );
    assert.equal(model.questions.size, 2);
    assert.equal(model.answerQuestion('t', 'q1', 'Vitest'), true);
    assert.equal(model.answerQuestion('t', 'q1', 'Jest'), false, 'answered once');
    model.apply(msg.question({ turnId: 't', toolCallId: 'q1', nodeId: 'n1' }));
    assert.equal(model.questions.get('t\u0000q1')!.answer, 'Vitest', 'a re-send keeps the answer');
    assert.deepEqual(
      model.awaitingQuestions().map((q) => q.request.toolCallId),
      ['q2'],
    );
    model.takeDirty();
    model.apply(
      msg.questionResolved('t', 'q2', {
        kind: 'resolved',
        outcome: 'answered',
        answer: 'Jest',
        answeredHere: false,
      }),
    );
    assert.equal(model.takeDirty().questions, true);
    const q2 = model.questions.get('t\u0000q2')!;
    assert.deepEqual(q2.end, {
      kind: 'resolved',
      outcome: 'answered',
      answer: 'Jest',
      answeredHere: false,
    });
    assert.equal(
      model.answerQuestion('t', 'q2', 'Vitest'),
      false,
      'an ended question takes no answer',
    );
    assert.deepEqual(model.awaitingQuestions(), []);
  });

  it('restores open questions and the answer given here from a session message', () => {
    const request = (
      msg.question({ turnId: 't', toolCallId: 'q1', nodeId: 'n1' }) as Extract<
        HostMessage,
        { type: 'questionAdded' }
      >
    ).request;
    const model = modelOf(msg.session({ questions: [{ request, answer: 'Jest' }] }));
    assert.equal(model.questions.get('t\u0000q1')!.answer, 'Jest');
    model.apply(msg.session());
    assert.equal(model.questions.size, 0);
  });

  it('a session message replaces everything', () => {
    const model = modelOf(
      msg.session(),
      ...nestedTurn('t1', 1, 1),
      msg.approval({ turnId: 't1', toolCallId: 'x', nodeId: 's0' }),
    );
    model.apply(msg.session({ sessionId: 'other', permissionMode: 'plan' }));
    assert.equal(model.turns.size, 0);
    assert.equal(model.approvals.size, 0);
    assert.equal(model.mode, 'plan');
    assert.equal(model.sessionId, 'other');
  });

  it('an interrupted turn keeps what it showed, offers Retry, and survives the reload of its session', () => {
    const model = modelOf(
      msg.session(),
      msg.turnStarted('t1', 'fix the bug'),
      msg.running('t1'),
      msg.tree('t1', node('t1', null), node('r', 't1', { status: 'running' })),
      msg.text('t1', 't1', 'Looking at the code.'),
      msg.approval({ turnId: 't1', toolCallId: 'c1', nodeId: 'r' }),
    );
    model.apply({ type: 'turnInterrupted', reason: 'The Arbor daemon stopped unexpectedly.' });
    const turn = model.turns.get('t1')!;
    assert.equal(turn.status, 'interrupted');
    assert.equal(turn.error, 'The Arbor daemon stopped unexpectedly.');
    assert.equal(model.running, false);
    assert.equal(model.approvals.size, 0, 'nobody can answer it any more');
    assert.equal(model.retryable(), turn);
    // The restarted daemon stored nothing of the turn: what was shown stays.
    model.apply(msg.session({ turns: [] }));
    assert.equal(model.turns.get('t1')?.tree.get('r')?.status, 'running');
    assert.equal(model.answerOf(model.turns.get('t1')!), 'Looking at the code.');
    // Another session does not inherit it.
    model.apply(msg.session({ sessionId: 'other' }));
    assert.equal(model.turns.size, 0);
  });
});
