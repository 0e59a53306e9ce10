/**
 * Two daemons on one data dir (two editor windows, each spawning its own stdio
 * daemon): the second one's startup must not mark the first one's running
 * turn interrupted, or that turn's answer could never be committed.
 */
import { strict as assert } from 'node:assert';
import { openStore } from '../../src/store/index.js';
import { newSession, removeScratchDirs, scratchDir, treeOf } from './helpers.js';

const usage = { inputTokens: 1, outputTokens: 1 };

describe('store: turns owned by another live daemon', () => {
  afterEach(removeScratchDirs);

  it('leaves a live daemon’s running turn alone, and that daemon can still commit it', () => {
    const dir = scratchDir();
    const first = openStore(dir, { ownerPid: 1001, isProcessAlive: () => true });
    const session = first.createSession(newSession());
    first.appendUserMessage(session.sessionId, 'turn-a', 'question');

    const second = openStore(dir, { ownerPid: 1002, isProcessAlive: (pid) => pid === 1001 });
    assert.deepEqual(second.markInterruptedTurns(), []);

    const answer = first.commitTurn({
      turnId: 'turn-a',
      stopReason: 'end_turn',
      assistantText: 'answer',
      tree: treeOf(1, 'turn-a'),
      usage,
      byModel: [],
    });
    assert.equal(answer.status, 'complete');
    assert.equal(second.getTurn('turn-a')?.status, 'complete');
    first.close();
    second.close();
  });

  it('interrupts turns of a daemon that is gone, and of an earlier process under a reused pid', () => {
    const dir = scratchDir();
    const dead = openStore(dir, { ownerPid: 2001 });
    const reused = openStore(dir, { ownerPid: 2002 });
    const a = dead.createSession(newSession());
    const b = reused.createSession(newSession());
    dead.appendUserMessage(a.sessionId, 'turn-dead', 'q1');
    reused.appendUserMessage(b.sessionId, 'turn-reused', 'q2');
    dead.close();
    reused.close();

    const restarted = openStore(dir, { ownerPid: 2002, isProcessAlive: () => true });
    const alive = (pid: number) => pid !== 2001;
    const check = openStore(dir, { ownerPid: 2002, isProcessAlive: alive });
    restarted.close();
    assert.deepEqual(check.markInterruptedTurns().sort(), ['turn-dead', 'turn-reused']);
    assert.equal(check.loadSession(a.sessionId)?.messages.at(-1)?.status, 'interrupted');
    check.close();
  });
});
