/**
 * What a turn writes to the store, in an in-process daemon with a fake agent:
 * the user message before the agent starts, everything else in one commit at
 * the end whatever the stop reason, and the next turn's history read back
 * from the store, also by a daemon started later on the same data dir.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods, type ModelCost } from '@arbor/protocol';
import { EVENT_PRUNE_BATCH } from '../../src/store/index.js';
import { FakeRunner, inMemoryDaemon, until, type TestClient } from '../helpers/inMemoryDaemon.js';

const workspace = () => mkdtempSync(join(tmpdir(), 'arbor-ws-'));

async function idleOf(client: TestClient, turnId: string): Promise<Record<string, unknown>> {
  let idle: Record<string, unknown> | undefined;
  await until(
    () =>
      (idle = client
        .eventsOf(Methods.SessionState)
        .find((p) => p['turnId'] === turnId && p['state'] === 'idle')) !== undefined,
  );
  return idle!;
}

const BY_MODEL: ModelCost[] = [
  {
    provider: 'openai',
    model: 'gpt-4.1',
    calls: 2,
    usage: { inputTokens: 900, outputTokens: 120 },
    cost: 0.0031,
  },
  {
    provider: 'local',
    model: 'qwen',
    calls: 1,
    usage: { inputTokens: 50, outputTokens: 9 },
    cost: null,
  },
];

describe('persistence: what a turn commits', () => {
  it('the user message is stored before the agent starts; the answer, tree and per-model cost at the end', async () => {
    const runner = new FakeRunner();
    const daemon = inMemoryDaemon({ runner });
    const client = await daemon.connect();
    const { sessionId } = await client.request(Methods.SessionNew, { workspaceRoot: workspace() });
    const { turnId } = await client.request(Methods.ChatSend, {
      sessionId,
      text: 'count the files',
    });
    await until(() => runner.requests.length === 1);
    assert.deepEqual(
      daemon.store.loadSession(sessionId)!.messages.map((m) => [m.role, m.content, m.status]),
      [['user', 'count the files', undefined]],
      'committed while the turn runs',
    );
    const listed = await client.request(Methods.SessionList, {});
    assert.equal(listed.sessions[0].state, 'running');
    assert.equal(listed.sessions[0].title, 'count the files');

    runner.current.events.emit(Methods.CostSummary, {
      turnId,
      usage: { inputTokens: 950, outputTokens: 129 },
      cost: null,
      currency: 'USD',
      byModel: BY_MODEL,
    });
    runner.finish('There are 12 files.');
    await idleOf(client, turnId);
    const [, answer] = daemon.store.loadSession(sessionId)!.messages;
    assert.equal(answer!.content, 'There are 12 files.');
    assert.equal(answer!.status, 'complete');
    assert.equal(answer!.tree!.nodes[0]!.id, `${turnId}-root`);
    assert.deepEqual(daemon.store.turnUsage(turnId), BY_MODEL);
  });

  it('the first message titles the session, and attached clients hear it at once', async () => {
    const runner = new FakeRunner();
    const daemon = inMemoryDaemon({ runner });
    const client = await daemon.connect();
    const { sessionId } = await client.request(Methods.SessionNew, { workspaceRoot: workspace() });
    const first = await client.request(Methods.ChatSend, {
      sessionId,
      text: 'Why does test_io fail?\nIt started yesterday.',
    });
    await until(() => client.eventsOf(Methods.SessionUpdate).length === 1);
    assert.deepEqual(
      client.eventsOf(Methods.SessionUpdate).map((p) => p['title']),
      ['Why does test_io fail?'],
    );
    const running = client.eventsOf(Methods.SessionState)[0]!;
    assert.ok(
      (running['seq'] as number) < (client.eventsOf(Methods.SessionUpdate)[0]!['seq'] as number),
      'the turn starts first',
    );
    runner.finish('Encoding.');
    await idleOf(client, first.turnId);

    const second = await client.request(Methods.ChatSend, { sessionId, text: 'and now fix it' });
    await until(() => runner.requests.length === 2);
    runner.finish('Fixed.');
    await idleOf(client, second.turnId);
    assert.equal(
      client.eventsOf(Methods.SessionUpdate).length,
      1,
      'a titled session keeps its title',
    );
  });

  it('a failed turn keeps its streamed tree and error; a cancelled one its partial text and tree', async () => {
    const runner = new FakeRunner();
    const daemon = inMemoryDaemon({ runner });
    const client = await daemon.connect();
    const { sessionId } = await client.request(Methods.SessionNew, { workspaceRoot: workspace() });

    const failed = await client.request(Methods.ChatSend, { sessionId, text: 'fragile job' });
    await until(() => runner.requests.length === 1);
    const node = {
      id: `${failed.turnId}-root`,
      parentId: null,
      kind: 'turn' as const,
      name: 'turn',
      status: 'running' as const,
      depth: 0,
    };
    runner.current.events.emit(Methods.TreeUpdate, { turnId: failed.turnId, nodes: [node] });
    runner.fail('the provider went away');
    await idleOf(client, failed.turnId);

    const cancelled = await client.request(Methods.ChatSend, { sessionId, text: 'long job' });
    await until(() => runner.requests.length === 2);
    await client.request(Methods.ChatCancel, { sessionId });
    await idleOf(client, cancelled.turnId);

    const loaded = await client.request(Methods.SessionLoad, { sessionId });
    const answers = loaded.messages.filter((m: { role: string }) => m.role === 'assistant');
    assert.deepEqual(
      answers.map((m: { content: string; status: string }) => [m.content, m.status]),
      [
        ['', 'error'],
        ['partial', 'cancelled'],
      ],
    );
    assert.deepEqual(answers[0].tree, { version: 1, nodes: [node] }, 'the tree as streamed so far');
    assert.equal(answers[1].tree.nodes.length, 1);
    assert.equal(daemon.store.getTurn(failed.turnId)!.error, 'the provider went away');
  });

  it('the next turn’s history comes from the store, across a restart, trimmed to maxHistoryTokens', async () => {
    const first = new FakeRunner();
    first.autoResult = (request) => ({
      stopReason: 'end_turn',
      text: `answer to ${request.text}`,
      usage: { inputTokens: 1, outputTokens: 1 },
      tree: { version: 1, nodes: [] },
    });
    const before = inMemoryDaemon({ runner: first });
    const client = await before.connect();
    const { sessionId } = await client.request(Methods.SessionNew, { workspaceRoot: workspace() });
    for (const text of ['one', 'two', 'three']) {
      const { turnId } = await client.request(Methods.ChatSend, { sessionId, text });
      await idleOf(client, turnId);
    }
    before.close();

    // 'answer to three' and 'three' cost 4 + 2 tokens (4 characters a token): 8 keeps them and 'answer to two' no more.
    const runner = new FakeRunner();
    const after = inMemoryDaemon({ runner, dataDir: before.dataDir, maxHistoryTokens: 8 });
    const again = await after.connect();
    await again.request(Methods.SessionAttach, { sessionId });
    await again.request(Methods.ChatSend, { sessionId, text: 'four' });
    await until(() => runner.requests.length === 1);
    assert.deepEqual(runner.current.history, [
      { role: 'user', content: 'three' },
      { role: 'assistant', content: 'answer to three' },
    ]);
  });

  it('a missed event beyond the store’s retention gets a snapshot, also after a restart', async () => {
    const before = inMemoryDaemon({ eventRetention: 2 });
    const owner = await before.connect();
    const { sessionId } = await owner.request(Methods.SessionNew, { workspaceRoot: workspace() });
    const bus = before.context.sessions.get(sessionId).bus;
    for (let i = 1; i <= EVENT_PRUNE_BATCH; i++)
      bus.emit(Methods.SessionUpdate, { title: `t${i}` });
    before.close();

    const after = inMemoryDaemon({ eventRetention: 2, dataDir: before.dataDir });
    const late = await after.connect();
    const old = await late.request(Methods.SessionAttach, { sessionId, sinceSeq: 1 });
    assert.deepEqual([old.replay, old.lastSeq], ['snapshot', EVENT_PRUNE_BATCH]);
    const recent = await (
      await after.connect()
    ).request(Methods.SessionAttach, { sessionId, sinceSeq: EVENT_PRUNE_BATCH - 2 });
    assert.equal(recent.replay, 'events');
  });
});
