/**
 * A daemon killed with SIGKILL mid-turn, again and again: every committed
 * message is there after the restart, the turn it was running comes back
 * `interrupted` (in session/load, with what it had streamed, and as its idle
 * event in the replayed log),
 * and the database passes `PRAGMA integrity_check` after every kill.
 */
import { strict as assert } from 'node:assert';
import { FINAL_NODE_STATUSES, type NodeStatus } from '@arbor/protocol';
import type { Json } from '../helpers/wire.js';
import { sleep } from '../helpers/wire.js';
import {
  integrityCheck,
  killAll,
  removeScratch,
  scratchDir,
  startDaemon,
  turnEnded,
  type RunningDaemon,
} from './daemonProcess.js';

const CHAINS = 4;
const KILLS_PER_CHAIN = 6; // 24 kills in all

interface Killed {
  sessionId: string;
  turnId: string;
  text: string;
  /** `fast` turns may have committed before the kill; `slow` ones never do. */
  fast: boolean;
  /** Killed after its tool node was done: that much of the tree was stored. */
  afterTool: boolean;
}

/** Where in the turn the kill lands, varied per round. */
async function killMidTurn(daemon: RunningDaemon, round: number): Promise<Killed> {
  const fast = round % 3 === 2;
  const afterTool = round % 3 === 1;
  const { sessionId } = await daemon.result('session/new', { workspaceRoot: '/tmp' });
  const text = `${fast ? 'fast' : 'slow'} round ${round}`;
  const { turnId } = await daemon.result('chat/send', { sessionId, text });
  if (fast) {
    await sleep(round % 6); // around the commit
  } else if (afterTool) {
    // After the tool call's node finished: the turn is deep in its second model call.
    // This turn's: the replayed log of an earlier kill may hold a finished tool node too.
    await daemon.waitForEvent(
      'tree/update',
      (p) =>
        p['turnId'] === turnId &&
        (p['nodes'] as Json[]).some((n) => n['kind'] === 'tool' && n['status'] === 'done'),
    );
  } // else: right after `{turnId}`, the user message just committed
  await daemon.kill();
  return { sessionId: sessionId as string, turnId: turnId as string, text, fast, afterTool };
}

/** What the restarted daemon must show for a turn killed in the previous run. */
async function checkKilledTurn(
  daemon: RunningDaemon,
  killed: Killed,
  where: string,
): Promise<void> {
  const loaded = await daemon.result('session/load', { sessionId: killed.sessionId });
  const messages = loaded['messages'] as Json[];
  assert.deepEqual(
    [messages[0]!['role'], messages[0]!['content']],
    ['user', killed.text],
    `${where}: the user message is present`,
  );
  const status = messages[0]!['status'];
  if (status === 'complete') {
    assert.ok(killed.fast, `${where}: only a fast turn can have completed before the kill`);
    assert.equal(messages.length, 2);
    assert.equal(messages[1]!['content'], 'quick answer');
    assert.ok(messages[1]!['tree'], `${where}: a committed answer has its tree`);
  } else {
    assert.equal(
      status,
      'interrupted',
      `${where}: the killed turn is marked interrupted; got ${JSON.stringify(messages)}`,
    );
    // Only what the turn had streamed comes back with it (turns.md#turns-partial-kept).
    assert.ok(messages.length <= 2, `${where}: one answer at most`);
    const answer = messages[1];
    if (killed.afterTool) assert.ok(answer, `${where}: the streamed tree is kept`);
    if (answer) {
      assert.deepEqual([answer['role'], answer['status']], ['assistant', 'interrupted']);
      const content = answer['content'] as string;
      assert.ok(
        killed.fast ? 'quick answer'.startsWith(content) : content === '',
        `${where}: the partial text is what was streamed; got ${content}`,
      );
      const nodes = (answer['tree'] as { nodes: Json[] }).nodes;
      assert.equal(nodes[0]!['id'], killed.turnId, `${where}: the turn node comes first`);
      for (const node of nodes)
        assert.ok(FINAL_NODE_STATUSES.includes(node['status'] as NodeStatus), `${where}: final`);
      if (killed.afterTool)
        assert.ok(
          nodes.some((n) => n['name'] === 'memory_write' && n['status'] === 'done'),
          `${where}: the finished tool node is kept`,
        );
    }
  }
  assert.equal((loaded['session'] as Json)['state'], 'idle');

  // Replaying the whole log: seq 1..n without gaps, and the turn ends with one idle event.
  const attached = await daemon.result('session/attach', {
    sessionId: killed.sessionId,
    role: 'observer',
    sinceSeq: 0,
  });
  assert.equal(attached['replay'], 'events');
  const idle = await daemon.waitForEvent('session/state', turnEnded(killed.turnId));
  assert.equal(idle['stopReason'], status === 'complete' ? 'end_turn' : 'interrupted');
  const replayed = daemon
    .events()
    .map((e) => e['params'] as Json)
    .filter((p) => p['sessionId'] === killed.sessionId);
  assert.deepEqual(
    replayed.map((p) => p['seq']),
    replayed.map((_, i) => i + 1),
    `${where}: the replayed log has no gaps`,
  );
  assert.equal(replayed.length, attached['lastSeq']);
}

async function chain(index: number): Promise<number> {
  const dataDir = scratchDir();
  let daemon = await startDaemon(dataDir);
  // A finished turn that every later kill must leave intact.
  const { sessionId: kept } = await daemon.result('session/new', { workspaceRoot: '/tmp' });
  const { turnId } = await daemon.result('chat/send', { sessionId: kept, text: 'plan a trip' });
  await daemon.waitForEvent('session/state', turnEnded(turnId));
  const keptMessages = (await daemon.result('session/load', { sessionId: kept }))['messages'];

  let kills = 0;
  const sessions = new Set<string>([kept as string]);
  for (let round = 0; round < KILLS_PER_CHAIN; round++) {
    const where = `chain ${index}, kill ${round + 1}`;
    const killed = await killMidTurn(daemon, round + index);
    kills += 1;
    sessions.add(killed.sessionId);
    assert.equal(integrityCheck(dataDir), 'ok', `${where}: integrity_check`);

    daemon = await startDaemon(dataDir);
    await checkKilledTurn(daemon, killed, where);
    const listed = await daemon.result('session/list', { limit: 200 });
    assert.deepEqual(
      new Set((listed['sessions'] as Json[]).map((s) => s['sessionId'])),
      sessions,
      `${where}: every session is listed`,
    );
    assert.deepEqual(
      (await daemon.result('session/load', { sessionId: kept }))['messages'],
      keptMessages,
      `${where}: the committed turn is intact`,
    );
  }
  assert.equal(await daemon.stop(), 0);
  assert.equal(integrityCheck(dataDir), 'ok');
  return kills;
}

describe('persistence: SIGKILL mid-turn, in a loop', function () {
  this.timeout(60_000);
  afterEach(killAll);
  after(removeScratch);

  it(`${CHAINS * KILLS_PER_CHAIN} kills: user messages kept, turns interrupted, integrity ok`, async () => {
    const kills = await Promise.all(Array.from({ length: CHAINS }, (_, i) => chain(i)));
    assert.ok(kills.reduce((a, b) => a + b, 0) >= 20);
  });
});
