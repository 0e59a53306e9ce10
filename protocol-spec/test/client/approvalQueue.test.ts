import { strict as assert } from 'node:assert';
import { ApprovalQueue, approvalKey, type ApprovalEnd } from '../../src/client/index.js';
import { approvalRequest } from './builders.js';

function ids(queue: ApprovalQueue): string[] {
  return queue.pending().map((a) => a.request.toolCallId);
}

describe('ApprovalQueue', () => {
  it('keeps pending approvals in arrival order', () => {
    const queue = new ApprovalQueue();
    queue.add(approvalRequest('c2'));
    queue.add(approvalRequest('c1'));
    queue.add(approvalRequest('c3'));
    assert.deepEqual(ids(queue), ['c2', 'c1', 'c3']);
  });

  it('a local answer settles the waiting request but the card stays until tool/approvalResolved', async () => {
    const queue = new ApprovalQueue();
    queue.add(approvalRequest('c1'));
    queue.add(approvalRequest('c2'));
    const key = approvalKey(approvalRequest('c1'));
    const settled = queue.settled(key);
    assert.equal(queue.decide(key, 'allowForSession'), true);
    assert.deepEqual(await settled, { kind: 'answered', answer: 'allowForSession' });
    assert.deepEqual(ids(queue), ['c1', 'c2'], 'another client may still win the race');
    assert.equal(queue.get(key)?.answer, 'allowForSession');
    assert.deepEqual(
      queue.awaiting().map((a) => a.request.toolCallId),
      ['c2'],
      'only c2 still needs the user',
    );
    assert.equal(queue.decide(key, 'deny'), false, 'a second answer is refused');
    queue.resolved({
      turnId: 'turn_1',
      toolCallId: 'c1',
      outcome: 'approved',
      decision: 'allowForSession',
    });
    assert.deepEqual(ids(queue), ['c2']);
  });

  it('closes an approval resolved by another client', async () => {
    const queue = new ApprovalQueue();
    const removed: ApprovalEnd[] = [];
    queue.on('removed', ({ end }) => removed.push(end));
    queue.add(approvalRequest('c1'));
    queue.add(approvalRequest('c2'));
    const settled = queue.settled(approvalKey(approvalRequest('c2')));
    const closed = queue.resolved({
      turnId: 'turn_1',
      toolCallId: 'c2',
      outcome: 'approved',
      decision: 'allow',
      decidedBy: 'client_other',
    });
    assert.equal(closed, true);
    assert.deepEqual(ids(queue), ['c1']);
    const expected = {
      kind: 'resolved',
      outcome: 'approved',
      decision: 'allow',
      decidedBy: 'client_other',
    };
    assert.deepEqual(await settled, expected);
    assert.deepEqual(removed, [expected]);
  });

  it('drops an approval whose request was cancelled', async () => {
    const queue = new ApprovalQueue();
    queue.add(approvalRequest('c1'));
    const key = approvalKey(approvalRequest('c1'));
    const settled = queue.settled(key);
    assert.equal(queue.cancel(key), true);
    assert.deepEqual(ids(queue), []);
    assert.deepEqual(await settled, { kind: 'cancelled' });
  });

  it('a request re-sent after attach keeps its place and is not doubled', () => {
    const queue = new ApprovalQueue();
    let added = 0;
    queue.on('added', () => added++);
    assert.equal(queue.add(approvalRequest('c1')), 'added');
    assert.equal(queue.add(approvalRequest('c2')), 'added');
    assert.equal(queue.add(approvalRequest('c1')), 'duplicate');
    assert.deepEqual(ids(queue), ['c1', 'c2']);
    assert.equal(added, 2);
  });

  it('the same toolCallId in another turn is another approval', () => {
    const queue = new ApprovalQueue();
    queue.add(approvalRequest('c1'));
    assert.equal(queue.add(approvalRequest('c1', { turnId: 'turn_2' })), 'added');
    assert.equal(queue.size, 2);
  });

  it('a re-send of an approval answered here (not yet resolved) gets the same answer, not a new card', async () => {
    const queue = new ApprovalQueue();
    queue.add(approvalRequest('c1'));
    const key = approvalKey(approvalRequest('c1'));
    queue.decide(key, 'deny');
    assert.equal(queue.add(approvalRequest('c1')), 'alreadyAnswered');
    assert.equal(queue.size, 1);
    assert.deepEqual(await queue.settled(key), { kind: 'answered', answer: 'deny' });
    queue.resolved({ turnId: 'turn_1', toolCallId: 'c1', outcome: 'rejected' });
    assert.equal(
      queue.add(approvalRequest('c1')),
      'added',
      'once resolved, the answer is forgotten',
    );
  });

  it('sync with a snapshot adds missing approvals and withdraws the ones that ended meanwhile', async () => {
    const queue = new ApprovalQueue();
    queue.add(approvalRequest('gone'));
    queue.add(approvalRequest('kept'));
    const gone = queue.settled(approvalKey(approvalRequest('gone')));
    queue.sync([approvalRequest('kept'), approvalRequest('new')]);
    assert.deepEqual(ids(queue), ['kept', 'new']);
    assert.deepEqual(await gone, { kind: 'withdrawn' });
  });
});
