/** How the host tells the webview a question ended (SessionBridge), down to the webview model. */
import assert from 'node:assert/strict';
import { Methods } from '@arbor/protocol';
import { SessionView, promptKey } from '@arbor/protocol/client';
import { bridgeSessionView, questionEnd } from '../../src/chat/sessionBridge.js';
import type { HostMessage } from '../../src/shared/messages.js';
import { ChatModel } from '../../webview/model/chatModel.js';

const request = {
  sessionId: 's',
  turnId: 't',
  nodeId: 'n',
  toolCallId: 'q',
  question: 'Which runner?',
  options: [{ label: 'Vitest' }, { label: 'Jest' }],
  freeText: false,
};

describe('questionEnd (how a question card closes)', () => {
  it('tells an answer given here from one given in another window by answeredBy', () => {
    const end = { outcome: 'answered', answer: 'Vitest' } as const;
    assert.deepEqual(questionEnd({ ...end, answeredBy: 'me' }, 'Vitest', 'me'), {
      kind: 'resolved',
      ...end,
      answeredHere: true,
    });
    assert.equal(questionEnd({ ...end, answeredBy: 'other' }, 'Vitest', 'me').answeredHere, false);
  });

  it('without a client id, an answer equal to ours counts as ours', () => {
    const end = { outcome: 'answered', answer: 'Jest' } as const;
    assert.equal(questionEnd(end, 'Vitest', undefined).answeredHere, false);
    assert.equal(questionEnd(end, 'Jest', undefined).answeredHere, true);
    assert.equal(questionEnd(end, undefined, undefined).answeredHere, undefined);
  });

  it('passes a timeout on without an answer', () => {
    assert.deepEqual(questionEnd({ outcome: 'timed_out' }, 'Jest', 'me'), {
      kind: 'resolved',
      outcome: 'timed_out',
    });
  });

  it('closes the card when the request is cancelled, then shows the outcome that follows it', () => {
    // The daemon cancels the unanswered request first, then sends tool/questionResolved.
    const view = new SessionView('s', { lastSeq: 0 });
    const posted: HostMessage[] = [];
    const bridge = bridgeSessionView(view, (m) => posted.push(m), new Set(), 'me');
    const model = new ChatModel();
    view.questions.add(request);
    view.questions.cancel(promptKey(request));
    view.receive({
      method: Methods.QuestionResolved.method,
      params: {
        sessionId: 's',
        seq: 1,
        turnId: 't',
        toolCallId: 'q',
        outcome: 'answered',
        answer: 'Jest',
        answeredBy: 'other',
      },
    });
    bridge.dispose();
    assert.deepEqual(
      posted.map((m) => (m.type === 'questionRemoved' ? m.end : m.type)),
      [
        'questionAdded',
        { kind: 'cancelled' },
        { kind: 'resolved', outcome: 'answered', answer: 'Jest', answeredHere: false },
      ],
    );
    for (const m of posted) model.apply(m);
    assert.equal(model.questions.get(promptKey(request))!.end?.outcome, 'answered');
  });

  it('an answer given here and applied reads as answered here', () => {
    const view = new SessionView('s', { lastSeq: 0 });
    const posted: HostMessage[] = [];
    const bridge = bridgeSessionView(view, (m) => posted.push(m), new Set());
    view.questions.add(request);
    view.questions.decide(promptKey(request), 'Vitest');
    view.receive({
      method: Methods.QuestionResolved.method,
      params: {
        sessionId: 's',
        seq: 1,
        turnId: 't',
        toolCallId: 'q',
        outcome: 'answered',
        answer: 'Vitest',
        answeredBy: 'c-1',
      },
    });
    bridge.dispose();
    assert.deepEqual(posted.at(-1), {
      type: 'questionRemoved',
      turnId: 't',
      toolCallId: 'q',
      end: { kind: 'resolved', outcome: 'answered', answer: 'Vitest', answeredHere: true },
    });
  });
});
