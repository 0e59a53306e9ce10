/** Sessions survive a daemon restart: list, load with trees, mode, seq and replay. */
import { strict as assert } from 'node:assert';
import { ErrorCodes, type ExecutionTreeNode } from '@arbor/protocol';
import { openStore } from '../../src/store/index.js';
import type { Json } from '../helpers/wire.js';
import { assertValid } from '../helpers/schemas.js';
import { Methods } from '@arbor/protocol';
import {
  killAll,
  removeScratch,
  scratchDir,
  startDaemon,
  turnEnded,
  type RunningDaemon,
} from './daemonProcess.js';

/** The tree a client builds by merging every tree/update of a turn in seq order. */
function foldTree(events: Json[], turnId: unknown): ExecutionTreeNode[] {
  const nodes = new Map<string, ExecutionTreeNode>();
  for (const event of events) {
    const params = event['params'] as Json;
    if (event['method'] !== 'tree/update' || params['turnId'] !== turnId) continue;
    for (const node of params['nodes'] as ExecutionTreeNode[]) {
      nodes.set(node.id, { ...nodes.get(node.id), ...node });
    }
  }
  return [...nodes.values()];
}

const byId = (nodes: ExecutionTreeNode[]) => [...nodes].sort((a, b) => a.id.localeCompare(b.id));

async function runTurn(daemon: RunningDaemon, sessionId: unknown, text: string): Promise<Json> {
  const { turnId } = await daemon.result('chat/send', { sessionId, text });
  return daemon.waitForEvent('session/state', turnEnded(turnId));
}

describe('persistence: restart', function () {
  this.timeout(30_000);
  afterEach(killAll);
  after(removeScratch);

  it('a session and its turn come back after a restart: listed, loaded with its tree, usage and mode', async () => {
    const dataDir = scratchDir();
    const workspaceRoot = scratchDir('arbor-ws-');
    const first = await startDaemon(dataDir);
    const { sessionId } = await first.result('session/new', { workspaceRoot });
    await first.result('session/setPermissionMode', { sessionId, mode: 'auto' });
    const idle = await runTurn(first, sessionId, 'plan my trip to Lisbon\nwith the details');
    const turnId = idle['turnId'];
    assert.equal(idle['stopReason'], 'end_turn');
    const streamed = foldTree(first.client.received.messages, turnId);
    assert.ok(streamed.some((n) => n.kind === 'tool' && n.name === 'memory_write'));
    const costSummary = first.events('cost/summary').at(-1)!['params'] as Json;
    // No graceful shutdown: what a turn committed survives the process.
    await first.kill();

    const second = await startDaemon(dataDir);
    const listed = await second.result('session/list', {});
    assertValid(Methods.SessionList.result, listed);
    const [info] = listed['sessions'] as Json[];
    assert.equal((listed['sessions'] as Json[]).length, 1);
    assert.equal(info!['sessionId'], sessionId);
    assert.equal(
      info!['title'],
      'plan my trip to Lisbon',
      'the title is the first line of the first message',
    );
    assert.equal(info!['permissionMode'], 'auto', 'the permission mode was persisted');
    assert.equal(info!['state'], 'idle');
    assert.equal(info!['workspaceRoot'], workspaceRoot);

    const loaded = await second.result('session/load', { sessionId });
    assertValid(Methods.SessionLoad.result, loaded);
    const messages = loaded['messages'] as Json[];
    assert.deepEqual(
      messages.map((m) => [m['role'], m['content'], m['status']]),
      [
        ['user', 'plan my trip to Lisbon\nwith the details', 'complete'],
        ['assistant', 'Trip planned: Lisbon.', 'complete'],
      ],
    );
    const tree = messages[1]!['tree'] as { version: number; nodes: ExecutionTreeNode[] };
    assert.equal(tree.version, 1);
    assert.deepEqual(byId(tree.nodes), byId(streamed), 'the stored tree equals the streamed one');
    assert.deepEqual(messages[1]!['usage'], idle['usage']);
    assert.equal(await second.stop(), 0);

    // Usage and cost per model, as the turn's cost/summary reported them.
    const store = openStore(dataDir);
    try {
      assert.deepEqual(store.turnUsage(turnId as string), costSummary['byModel']);
      assert.ok((costSummary['byModel'] as unknown[]).length > 0);
    } finally {
      store.close();
    }
  });

  it('seq continues after a restart; attach with sinceSeq replays events of the earlier run, then new ones', async () => {
    const dataDir = scratchDir();
    const first = await startDaemon(dataDir);
    const { sessionId } = await first.result('session/new', {
      workspaceRoot: scratchDir('arbor-ws-'),
    });
    await runTurn(first, sessionId, 'hello');
    const before = first.events().filter((e) => (e['params'] as Json)['sessionId'] === sessionId);
    const seqs = before.map((e) => (e['params'] as Json)['seq']);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
    );
    await first.kill();

    const second = await startDaemon(dataDir);
    const attached = await second.result('session/attach', { sessionId, sinceSeq: 2 });
    assert.equal(attached['replay'], 'events');
    assert.equal(attached['lastSeq'], before.length);
    const idle = await runTurn(second, sessionId, 'again');
    const after = second.events().filter((e) => (e['params'] as Json)['sessionId'] === sessionId);
    assert.deepEqual(after.slice(0, before.length - 2), before.slice(2), 'replayed as first sent');
    const newSeqs = after.slice(before.length - 2).map((e) => (e['params'] as Json)['seq']);
    assert.deepEqual(
      newSeqs,
      newSeqs.map((_, i) => before.length + 1 + i),
      'new events continue the numbering',
    );
    assert.equal((after.at(-1)!['params'] as Json)['turnId'], idle['turnId']);

    const loaded = await second.result('session/load', { sessionId });
    assert.deepEqual(
      (loaded['messages'] as Json[]).map((m) => [m['role'], m['content']]),
      [
        ['user', 'hello'],
        ['assistant', 'ok'],
        ['user', 'again'],
        ['assistant', 'ok'],
      ],
    );
  });

  it('a deleted session stays deleted after a restart', async () => {
    const dataDir = scratchDir();
    const first = await startDaemon(dataDir);
    const workspaceRoot = scratchDir('arbor-ws-');
    const kept = await first.result('session/new', { workspaceRoot, title: 'kept' });
    const gone = await first.result('session/new', { workspaceRoot, title: 'gone' });
    await runTurn(first, gone['sessionId'], 'hello');
    await first.result('session/delete', { sessionId: gone['sessionId'] });
    await first.kill();

    const second = await startDaemon(dataDir);
    const listed = await second.result('session/list', { workspaceRoot });
    assert.deepEqual(
      (listed['sessions'] as Json[]).map((s) => s['title']),
      ['kept'],
    );
    assert.equal(kept['title'], 'kept');
    const load = await second.client.request('session/load', { sessionId: gone['sessionId'] });
    assert.equal((load['error'] as Json)['code'], ErrorCodes.SessionNotFound);
    const attach = await second.client.request('session/attach', { sessionId: gone['sessionId'] });
    assert.equal((attach['error'] as Json)['code'], ErrorCodes.SessionNotFound);
  });
});
