/** Sessions, seq, fan-out, replay, roles and turns over an in-memory transport (store in a temp dir). */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCodes, Methods } from '@arbor/protocol';
import { EVENT_PRUNE_BATCH } from '../src/store/index.js';
import {
  FakeRunner,
  inMemoryDaemon,
  until,
  type TestClient,
  errorCodeOf as code,
} from './helpers/inMemoryDaemon.js';
import { assertValid, assertValidNotification } from './helpers/schemas.js';

const root = () => mkdtempSync(join(tmpdir(), 'arbor-ws-'));

function seqs(client: TestClient): number[] {
  return client.events
    .filter((e) => e.params['sessionId'] !== undefined)
    .map((e) => e.params['seq'] as number);
}

function assertAllValid(client: TestClient): void {
  for (const event of client.events) assertValidNotification(event.method, event.params);
}

describe('sessions (in-process daemon)', () => {
  it('list is newest first, paged with a cursor, and filtered by workspace root', async () => {
    const client = await inMemoryDaemon().connect();
    const a = root();
    const b = root();
    const ids: string[] = [];
    for (const workspaceRoot of [a, b, a, a, b]) {
      ids.push((await client.request(Methods.SessionNew, { workspaceRoot })).sessionId);
    }
    const page1 = await client.request(Methods.SessionList, { limit: 2 });
    assertValid(Methods.SessionList.result, page1);
    assert.deepEqual(
      page1.sessions.map((s: { sessionId: string }) => s.sessionId),
      [ids[4], ids[3]],
    );
    const page2 = await client.request(Methods.SessionList, { limit: 2, cursor: page1.nextCursor });
    assert.deepEqual(
      page2.sessions.map((s: { sessionId: string }) => s.sessionId),
      [ids[2], ids[1]],
    );
    const page3 = await client.request(Methods.SessionList, { limit: 2, cursor: page2.nextCursor });
    assert.deepEqual(
      page3.sessions.map((s: { sessionId: string }) => s.sessionId),
      [ids[0]],
    );
    assert.equal(page3.nextCursor, undefined);
    const onlyA = await client.request(Methods.SessionList, { workspaceRoot: a });
    assert.deepEqual(
      onlyA.sessions.map((s: { sessionId: string }) => s.sessionId),
      [ids[3], ids[2], ids[0]],
    );
  });

  it('two clients on one session get identical events with seq 1, 2, 3... and no gaps', async () => {
    const daemon = inMemoryDaemon();
    const one = await daemon.connect();
    const two = await daemon.connect();
    const { sessionId } = await one.request(Methods.SessionNew, { workspaceRoot: root() });
    const attach = await two.request(Methods.SessionAttach, { sessionId, role: 'controller' });
    assertValid(Methods.SessionAttach.result, attach);
    for (const mode of ['plan', 'auto', 'default', 'plan'] as const) {
      const changed = await (mode === 'auto' ? two : one).request(
        Methods.SessionSetPermissionMode,
        { sessionId, mode },
      );
      assert.deepEqual(changed, { mode });
    }
    await until(() => one.events.length === 4 && two.events.length === 4);
    assert.deepEqual(seqs(one), [1, 2, 3, 4]);
    assert.deepEqual(one.events, two.events);
    assert.deepEqual(
      one.eventsOf(Methods.SessionUpdate).map((p) => p['permissionMode']),
      ['plan', 'auto', 'default', 'plan'],
    );
    assertAllValid(one);
  });

  it('attach with sinceSeq replays exactly the missed events, before any new one', async () => {
    const daemon = inMemoryDaemon();
    const owner = await daemon.connect();
    const { sessionId } = await owner.request(Methods.SessionNew, { workspaceRoot: root() });
    for (const mode of ['plan', 'auto', 'default'] as const) {
      await owner.request(Methods.SessionSetPermissionMode, { sessionId, mode });
    }
    const late = await daemon.connect();
    const attached = await late.request(Methods.SessionAttach, {
      sessionId,
      role: 'observer',
      sinceSeq: 1,
    });
    assert.equal(attached.replay, 'events');
    assert.equal(attached.lastSeq, 3);
    await owner.request(Methods.SessionSetPermissionMode, { sessionId, mode: 'auto' });
    await until(() => late.events.length === 3);
    assert.deepEqual(seqs(late), [2, 3, 4]);
    assert.deepEqual(
      late.events.slice(0, 2),
      owner.events.slice(1, 3),
      'replayed with their original seq',
    );
  });

  it('attach beyond the retained events answers replay snapshot', async () => {
    const daemon = inMemoryDaemon({ eventRetention: 2 });
    const owner = await daemon.connect();
    const { sessionId } = await owner.request(Methods.SessionNew, { workspaceRoot: root() });
    // The store prunes once per EVENT_PRUNE_BATCH appends, down to the newest eventRetention.
    const bus = daemon.context.sessions.get(sessionId).bus;
    for (let i = 0; i < EVENT_PRUNE_BATCH; i++) bus.emit(Methods.SessionUpdate, { title: `t${i}` });
    const late = await daemon.connect();
    const attached = await late.request(Methods.SessionAttach, {
      sessionId,
      sinceSeq: EVENT_PRUNE_BATCH - 3,
    });
    assertValid(Methods.SessionAttach.result, attached);
    assert.equal(attached.replay, 'snapshot');
    assert.equal(attached.lastSeq, EVENT_PRUNE_BATCH);
    assert.deepEqual(attached.snapshot.pendingApprovals, []);
    const within = await (
      await daemon.connect()
    ).request(Methods.SessionAttach, { sessionId, sinceSeq: EVENT_PRUNE_BATCH - 2 });
    assert.equal(within.replay, 'events');
  });

  it('a snapshot of a running turn carries its tree and the text streamed so far', async () => {
    const runner = new FakeRunner();
    const daemon = inMemoryDaemon({ runner, eventRetention: 2 });
    const owner = await daemon.connect();
    const { sessionId } = await owner.request(Methods.SessionNew, { workspaceRoot: root() });
    const { turnId } = await owner.request(Methods.ChatSend, { sessionId, text: 'go' });
    await until(() => runner.requests.length === 1);
    const events = runner.current.events;
    const rootId = `${turnId}-root`;
    const turnNode = { id: rootId, parentId: null, kind: 'turn', name: 'turn', depth: 0 } as const;
    events.emit(Methods.TreeUpdate, { turnId, nodes: [{ ...turnNode, status: 'running' }] });
    events.emit(Methods.ChatChunk, { turnId, nodeId: rootId, text: 'Looking ' });
    // Enough events that the store prunes the early ones.
    for (let i = 0; i < EVENT_PRUNE_BATCH; i++)
      events.emit(Methods.ChatChunk, { turnId, nodeId: rootId, text: '.' });

    const late = await daemon.connect();
    const attached = await late.request(Methods.SessionAttach, { sessionId, sinceSeq: 1 });
    assertValid(Methods.SessionAttach.result, attached);
    assert.equal(attached.replay, 'snapshot');
    assert.equal(attached.snapshot.turnId, turnId);
    assert.deepEqual(
      attached.snapshot.tree.nodes.map((n: { id: string }) => n.id),
      [rootId],
    );
    assert.deepEqual(attached.snapshot.texts, [
      { nodeId: rootId, text: 'Looking ' + '.'.repeat(EVENT_PRUNE_BATCH) },
    ]);
    runner.finish('done');
  });

  it('attach with sinceSeq at or past the newest event replays nothing (replay events)', async () => {
    const daemon = inMemoryDaemon();
    const owner = await daemon.connect();
    const { sessionId } = await owner.request(Methods.SessionNew, { workspaceRoot: root() });
    await owner.request(Methods.SessionSetPermissionMode, { sessionId, mode: 'plan' });
    for (const sinceSeq of [1, 7]) {
      const late = await daemon.connect();
      const attached = await late.request(Methods.SessionAttach, { sessionId, sinceSeq });
      assert.deepEqual([attached.replay, attached.lastSeq], ['events', 1]);
      await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(late.events, []);
    }
  });

  it('observers receive events but cannot send, cancel or change the mode (-33006)', async () => {
    const daemon = inMemoryDaemon();
    const owner = await daemon.connect();
    const watcher = await daemon.connect();
    const { sessionId } = await owner.request(Methods.SessionNew, { workspaceRoot: root() });
    await watcher.request(Methods.SessionAttach, { sessionId, role: 'observer' });
    assert.equal(
      await code(watcher.request(Methods.ChatSend, { sessionId, text: 'hi' })),
      ErrorCodes.NotController,
    );
    assert.equal(
      await code(watcher.request(Methods.ChatCancel, { sessionId })),
      ErrorCodes.NotController,
    );
    assert.equal(
      await code(watcher.request(Methods.SessionSetPermissionMode, { sessionId, mode: 'auto' })),
      ErrorCodes.NotController,
    );
    await owner.request(Methods.SessionSetPermissionMode, { sessionId, mode: 'auto' });
    await until(() => watcher.events.length === 1);
    const stranger = await daemon.connect();
    assert.equal(
      await code(stranger.request(Methods.ChatSend, { sessionId, text: 'hi' })),
      ErrorCodes.NotAttached,
    );
    assert.equal(
      await code(stranger.request(Methods.SessionDetach, { sessionId })),
      ErrorCodes.NotAttached,
    );
    assert.equal(
      await code(stranger.request(Methods.SessionLoad, { sessionId: 'nope' })),
      ErrorCodes.SessionNotFound,
    );
  });

  it('a turn: {turnId} at once, running, agent events, idle with usage; load shows it', async () => {
    const runner = new FakeRunner();
    const daemon = inMemoryDaemon({ runner });
    const client = await daemon.connect();
    const workspaceRoot = root();
    const { sessionId } = await client.request(Methods.SessionNew, {
      workspaceRoot,
      permissionMode: 'plan',
    });
    const { turnId } = await client.request(Methods.ChatSend, { sessionId, text: 'hello' });
    await until(() => runner.requests.length === 1);
    const request = runner.current;
    assert.equal(request.turnId, turnId);
    assert.equal(request.workspaceRoot, workspaceRoot);
    assert.equal(request.permissionMode(), 'plan');
    assert.equal(
      await code(client.request(Methods.ChatSend, { sessionId, text: 'again' })),
      ErrorCodes.TurnInProgress,
    );
    await client.request(Methods.SessionSetPermissionMode, { sessionId, mode: 'auto' });
    assert.equal(request.permissionMode(), 'auto', 'the runner reads the mode at call time');
    request.events.emit(Methods.ChatChunk, { turnId, nodeId: `${turnId}-root`, text: 'Hel' });
    runner.finish('Hello!');
    await until(() => client.eventsOf(Methods.SessionState).length === 2);
    const states = client.eventsOf(Methods.SessionState);
    assert.deepEqual(
      states.map((s) => s['state']),
      ['running', 'idle'],
    );
    assert.equal(states[1]!['stopReason'], 'end_turn');
    assert.deepEqual(states[1]!['usage'], { inputTokens: 3, outputTokens: 5 });
    // running, the title from the first message, the mode switch, the chunk, idle
    assert.deepEqual(seqs(client), [1, 2, 3, 4, 5]);
    assertAllValid(client);

    const loaded = await client.request(Methods.SessionLoad, { sessionId });
    assertValid(Methods.SessionLoad.result, loaded);
    assert.deepEqual(
      loaded.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
      [
        ['user', 'hello'],
        ['assistant', 'Hello!'],
      ],
    );
    assert.equal(loaded.messages[1].tree.nodes.length, 1);

    await client.request(Methods.ChatSend, { sessionId, text: 'next' });
    await until(() => runner.requests.length === 2);
    assert.deepEqual(runner.requests[1]!.history, [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'Hello!' },
    ]);
  });

  it('chat/cancel aborts the turn, which ends with stopReason cancelled', async () => {
    const runner = new FakeRunner();
    const client = await inMemoryDaemon({ runner }).connect();
    const { sessionId } = await client.request(Methods.SessionNew, { workspaceRoot: root() });
    const { turnId } = await client.request(Methods.ChatSend, { sessionId, text: 'long job' });
    await until(() => runner.requests.length === 1);
    assert.deepEqual(await client.request(Methods.ChatCancel, { sessionId, turnId: 'other' }), {
      cancelled: false,
    });
    assert.deepEqual(await client.request(Methods.ChatCancel, { sessionId, turnId }), {
      cancelled: true,
    });
    await until(() => client.eventsOf(Methods.SessionState).length === 2);
    assert.equal(client.eventsOf(Methods.SessionState)[1]!['stopReason'], 'cancelled');
    assert.deepEqual(await client.request(Methods.ChatCancel, { sessionId }), { cancelled: false });
  });

  it('a runner that throws (or a missing agent) ends the turn with stopReason error, never a crash', async () => {
    const client = await inMemoryDaemon({
      runner: () => Promise.reject(new Error('the agent loop is not built yet')),
    }).connect();
    const { sessionId } = await client.request(Methods.SessionNew, { workspaceRoot: root() });
    await client.request(Methods.ChatSend, { sessionId, text: 'hi' });
    await until(() => client.eventsOf(Methods.SessionState).length === 2);
    const idle = client.eventsOf(Methods.SessionState)[1]!;
    assert.equal(idle['stopReason'], 'error');
    assert.deepEqual(idle['error'], { message: 'the agent loop is not built yet' });
    assertAllValid(client);
    // The session takes the next turn.
    await client.request(Methods.ChatSend, { sessionId, text: 'again' });
  });

  it('a client that disconnects is detached; the session and its turn go on for the others', async () => {
    const runner = new FakeRunner();
    const daemon = inMemoryDaemon({ runner });
    const owner = await daemon.connect();
    const other = await daemon.connect();
    const { sessionId } = await owner.request(Methods.SessionNew, { workspaceRoot: root() });
    await other.request(Methods.SessionAttach, { sessionId, role: 'observer' });
    await owner.request(Methods.ChatSend, { sessionId, text: 'work' });
    await until(() => runner.requests.length === 1);
    owner.close();
    await owner.closed;
    runner.finish('finished anyway');
    await until(() => other.eventsOf(Methods.SessionState).length === 2);
    assert.equal(other.eventsOf(Methods.SessionState)[1]!['stopReason'], 'end_turn');
    const loaded = await other.request(Methods.SessionLoad, { sessionId });
    assert.equal(loaded.messages[1].content, 'finished anyway');
  });

  it('session/delete cancels a running turn and the session is gone', async () => {
    const runner = new FakeRunner();
    const client = await inMemoryDaemon({ runner }).connect();
    const { sessionId } = await client.request(Methods.SessionNew, { workspaceRoot: root() });
    await client.request(Methods.ChatSend, { sessionId, text: 'work' });
    await until(() => runner.requests.length === 1);
    const signal = runner.current.signal;
    assert.deepEqual(await client.request(Methods.SessionDelete, { sessionId }), {});
    assert.equal(signal.aborted, true);
    assert.equal(
      await code(client.request(Methods.SessionLoad, { sessionId })),
      ErrorCodes.SessionNotFound,
    );
  });

  it('setScript stores a script per session and as the default for new sessions', async () => {
    const runner = new FakeRunner();
    runner.autoResult = (request) => ({
      stopReason: 'end_turn',
      text: JSON.stringify(request.script ?? null),
      usage: { inputTokens: 0, outputTokens: 0 },
      tree: { version: 1, nodes: [] },
    });
    const client = await inMemoryDaemon({ runner, testing: true }).connect();
    const script = { version: 1, conversations: { '*': [{ text: 'scripted' }] } };
    await client.request(Methods.SetScript, { script });
    const { sessionId } = await client.request(Methods.SessionNew, { workspaceRoot: root() });
    await client.request(Methods.ChatSend, { sessionId, text: 'x' });
    await until(() => runner.requests.length === 1);
    assert.deepEqual(runner.requests[0]!.script, script);
  });

  it('a turn keeps the script it was accepted with, though setScript comes before its runner starts', async () => {
    const runner = new FakeRunner();
    let release = (): void => undefined;
    const started = new Promise<void>((resolve) => (release = resolve));
    // The runner is slow to build: setScript is answered while the accepted turn waits for it.
    const client = await inMemoryDaemon({
      runner: () => started.then(() => runner),
      testing: true,
    }).connect();
    const { sessionId } = await client.request(Methods.SessionNew, { workspaceRoot: root() });
    const first = { version: 1, conversations: { '*': [{ text: 'first' }] } };
    const second = { version: 1, conversations: { '*': [{ text: 'second' }] } };
    await client.request(Methods.SetScript, {
      sessionId,
      script: first,
      budgets: { llm_calls: 3 },
    });
    await client.request(Methods.ChatSend, { sessionId, text: 'x' });
    await client.request(Methods.SetScript, { sessionId, script: second });
    release();
    await until(() => runner.requests.length === 1);
    assert.deepEqual(runner.requests[0]!.script, first);
    assert.deepEqual(runner.requests[0]!.budgets, { llm_calls: 3 });
    runner.finish('done');
    await until(() => client.eventsOf(Methods.SessionState).length === 2);
    await client.request(Methods.ChatSend, { sessionId, text: 'y' });
    await until(() => runner.requests.length === 2);
    assert.deepEqual(runner.requests[1]!.script, second);
    assert.equal(runner.requests[1]!.budgets, undefined);
  });
});
