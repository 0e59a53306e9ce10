/** Everything the store keeps comes back as it went in, typed as the protocol says. */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import {
  SessionInfo,
  SessionLoadResult,
  StoredMessage,
  type StoredPart,
  type StoredTurnCost,
} from '@arbor/protocol';
import { digestArgs, openStore, StoreError, type Store } from '../../src/store/index.js';
import {
  byModel,
  count,
  newSession,
  rawDb,
  removeScratchDirs,
  scratchDir,
  steppingClock,
  treeOf,
  turnCommit,
  usage,
} from './helpers.js';

describe('store: round trip of every table', () => {
  let store: Store;
  beforeEach(() => {
    store = openStore(scratchDir(), { now: steppingClock() });
  });
  afterEach(() => {
    store.close();
    removeScratchDirs();
  });

  it('sessions: create, get, update, list and delete', () => {
    const created = store.createSession(
      newSession({
        workspaceRoot: '/w/a',
        permissionMode: 'plan',
        chatContext: { kind: 'editor' },
        model: 'openai:gpt-4.1',
        title: 'Fix the build',
      }),
    );
    SessionInfo.parse(created);
    assert.deepEqual(store.getSession(created.sessionId), created);
    assert.equal(created.title, 'Fix the build');
    assert.equal(created.permissionMode, 'plan');
    assert.deepEqual(created.chatContext, { kind: 'editor' });
    assert.equal(created.model, 'openai:gpt-4.1');
    assert.equal(created.state, 'idle');

    const updated = store.updateSession(created.sessionId, {
      title: 'Renamed',
      permissionMode: 'auto',
      model: null,
    });
    assert.equal(updated.title, 'Renamed');
    assert.equal(updated.permissionMode, 'auto');
    assert.equal(updated.model, undefined);
    assert.ok(updated.updatedAt > created.updatedAt);
    assert.equal(updated.createdAt, created.createdAt);

    const chosen = store.createSession(newSession({ sessionId: 'chosen-id' }));
    assert.equal(chosen.sessionId, 'chosen-id');
    assert.deepEqual(
      store.listSessions({ limit: 10 }).sessions.map((s) => s.sessionId),
      ['chosen-id', created.sessionId],
    );
    assert.equal(store.deleteSession('chosen-id'), true);
    assert.equal(store.deleteSession('chosen-id'), false);
    assert.equal(store.getSession('chosen-id'), undefined);
    assert.throws(
      () => store.updateSession('chosen-id', { title: 'x' }),
      (e: unknown) => e instanceof StoreError && e.code === 'not_found',
    );
  });

  it('a session takes its title from the first user message, and keeps an edited one', () => {
    const { sessionId } = store.createSession(newSession());
    store.appendUserMessage(
      sessionId,
      't1',
      '  Why does the parser hang?\nIt loops on empty input.',
    );
    assert.equal(store.getSession(sessionId)!.title, 'Why does the parser hang?');
    store.commitTurn(turnCommit('t1'));
    store.updateSession(sessionId, { title: 'Parser hang' });
    store.appendUserMessage(sessionId, 't2', 'another question');
    assert.equal(store.getSession(sessionId)!.title, 'Parser hang');
    store.appendUserMessage(store.createSession(newSession()).sessionId, 't3', 'y'.repeat(300));
    assert.ok(store.listSessions({ limit: 1 }).sessions[0]!.title.length <= 80);
  });

  it('messages, trees, turn usage and per-model usage come back from loadSession', () => {
    const { sessionId } = store.createSession(newSession());
    const user = store.appendUserMessage(sessionId, 't1', 'read the repo');
    assert.equal(store.getSession(sessionId)!.state, 'running');
    const tree = treeOf(25, 't1');
    const assistant = store.commitTurn(
      turnCommit('t1', {
        tree,
        toolMessages: [{ content: 'file contents', providerFields: { tool_call_id: 'call_1' } }],
      }),
    );
    const loaded = store.loadSession(sessionId)!;
    SessionLoadResult.parse(loaded);
    assert.equal(loaded.session.state, 'idle');
    assert.deepEqual(
      loaded.messages.map((m) => [m.role, m.content, m.status]),
      [
        ['user', 'read the repo', 'complete'],
        ['tool', 'file contents', 'complete'],
        ['assistant', 'answer of t1', 'complete'],
      ],
    );
    assert.equal(loaded.messages[0]!.id, user.id);
    const answer = loaded.messages[2]!;
    assert.equal(answer.id, assistant.id);
    assert.deepEqual(answer.tree, tree);
    assert.deepEqual(answer.usage, usage);
    assert.equal(loaded.messages[0]!.tree, undefined);
    for (const m of loaded.messages) StoredMessage.parse(m);

    assert.deepEqual(store.turnUsage('t1'), byModel);
    const turn = store.getTurn('t1')!;
    assert.equal(turn.status, 'complete');
    assert.equal(turn.stopReason, 'end_turn');
    assert.deepEqual(turn.usage, usage);
    assert.ok(turn.endedAt! >= turn.startedAt);
  });

  it('an answer’s parts and cost/summary come back from loadSession as committed', () => {
    const { sessionId } = store.createSession(newSession());
    store.appendUserMessage(sessionId, 't1', 'q');
    const parts: StoredPart[] = [
      { type: 'text', nodeId: 't1', text: 'Reading first. ' },
      { type: 'node', nodeId: 't1-n1' },
      { type: 'text', nodeId: 't1-n1', text: 'inside the subtask' },
      { type: 'text', nodeId: 't1', text: 'Done.' },
    ];
    const cost: StoredTurnCost = { usage, cost: 0.0042, currency: 'USD', byModel };
    const committed = store.commitTurn(turnCommit('t1', { parts, cost }));
    store.appendUserMessage(sessionId, 't2', 'q2');
    store.commitTurn(turnCommit('t2'));
    const [, answer, , plain] = store.loadSession(sessionId)!.messages;
    assert.deepEqual(answer!.parts, parts);
    assert.deepEqual(answer!.cost, cost);
    assert.deepEqual(committed.parts, parts);
    assert.equal(plain!.parts, undefined, 'a turn committed without parts has none');
    assert.equal(plain!.cost, undefined, 'no cost/summary, no cost');
    StoredMessage.parse(answer);
  });

  it('provider-specific fields are kept verbatim and handed to the next turn', () => {
    const { sessionId } = store.createSession(newSession());
    store.appendUserMessage(sessionId, 't1', 'q');
    const providerFields = {
      anthropic: { thinking: [{ type: 'thinking', signature: 'sig==', thinking: 'ü\u0000"' }] },
      n: 1.5,
      nil: null,
    };
    store.commitTurn(turnCommit('t1', { providerFields }));
    const history = store.historyForNextTurn(sessionId, 10_000);
    assert.deepEqual(history[1], { role: 'assistant', content: 'answer of t1', providerFields });
  });

  it('a cancelled or budget-exceeded turn keeps its partial text and tree', () => {
    const { sessionId } = store.createSession(newSession());
    store.appendUserMessage(sessionId, 't1', 'long task');
    store.commitTurn(
      turnCommit('t1', { stopReason: 'budget_exceeded', assistantText: 'partial ans' }),
    );
    store.appendUserMessage(sessionId, 't2', 'again');
    store.commitTurn(turnCommit('t2', { stopReason: 'cancelled', assistantText: '' }));
    store.appendUserMessage(sessionId, 't3', 'and again');
    store.commitTurn(
      turnCommit('t3', { stopReason: 'error', assistantText: '', error: 'provider unreachable' }),
    );
    const messages = store.loadSession(sessionId)!.messages;
    assert.deepEqual(
      messages
        .filter((m) => m.role === 'assistant')
        .map((m) => [m.status, m.content, m.tree?.nodes.length]),
      [
        ['budget_exceeded', 'partial ans', 4],
        ['cancelled', '', 4],
        ['error', '', 4],
      ],
    );
    assert.equal(store.getTurn('t3')!.error, 'provider unreachable');
    assert.throws(
      () => store.commitTurn(turnCommit('t3')),
      (e: unknown) => e instanceof StoreError && e.code === 'conflict',
    );
  });

  it('turns left running are marked interrupted and shown so on load', () => {
    const { sessionId } = store.createSession(newSession());
    store.appendUserMessage(sessionId, 't1', 'done one');
    store.commitTurn(turnCommit('t1'));
    store.appendUserMessage(sessionId, 't2', 'cut off');
    assert.deepEqual(store.markInterruptedTurns(), ['t2']);
    assert.deepEqual(store.markInterruptedTurns(), []);
    const messages = store.loadSession(sessionId)!.messages;
    assert.deepEqual(
      messages.map((m) => m.status),
      ['complete', 'complete', 'interrupted'],
    );
    assert.equal(store.getTurn('t2')!.stopReason, 'interrupted');
    assert.equal(store.getSession(sessionId)!.state, 'idle');
  });

  it('one turn at a time per session; unknown sessions and turns are reported', () => {
    const { sessionId } = store.createSession(newSession());
    store.beginTurn(sessionId, 't1');
    assert.throws(
      () => store.beginTurn(sessionId, 't2'),
      (e: unknown) => e instanceof StoreError && e.code === 'conflict',
    );
    assert.throws(
      () => store.appendUserMessage('nope', 't9', 'x'),
      (e: unknown) => e instanceof StoreError && e.code === 'not_found',
    );
    assert.throws(
      () => store.commitTurn(turnCommit('t9')),
      (e: unknown) => e instanceof StoreError && e.code === 'not_found',
    );
    store.appendUserMessage(sessionId, 't1', 'after an explicit beginTurn');
    assert.equal(store.loadSession(sessionId)!.messages.length, 1);
    assert.equal(store.loadSession('nope'), undefined);
  });

  it('approvals are logged with a digest of the arguments, never the arguments', () => {
    const { sessionId } = store.createSession(newSession());
    store.appendUserMessage(sessionId, 't1', 'deploy');
    const secret = 'sk-live-THIS-MUST-NOT-BE-STORED';
    const args = { command: `deploy --token ${secret}`, cwd: '.' };
    const first = store.recordApproval({
      sessionId,
      turnId: 't1',
      toolCallId: 'call_1',
      tool: 'run_command',
      args,
      decision: 'allow',
      outcome: 'approved',
      decidedBy: 'client-vscode-1',
    });
    store.recordApproval({
      sessionId,
      turnId: 't1',
      toolCallId: 'call_2',
      tool: 'write_file',
      args: { b: 1, a: 2 },
      outcome: 'timed_out',
    });
    assert.equal(
      first.argsDigest,
      digestArgs({ cwd: '.', command: `deploy --token ${secret}` }),
      'key order does not matter',
    );
    assert.match(first.argsDigest, /^[0-9a-f]{64}$/);
    assert.deepEqual(store.approvals(sessionId), [
      first,
      {
        sessionId,
        turnId: 't1',
        toolCallId: 'call_2',
        tool: 'write_file',
        argsDigest: digestArgs({ a: 2, b: 1 }),
        outcome: 'timed_out',
        decidedAt: store.approvals(sessionId)[1]!.decidedAt,
      },
    ]);
    assert.throws(
      () =>
        store.recordApproval({
          sessionId,
          turnId: 'unknown',
          toolCallId: 'c',
          tool: 't',
          args: {},
          outcome: 'cancelled',
        }),
      (e: unknown) => e instanceof StoreError && e.code === 'not_found',
    );
    store.close();
    // Look at the bytes of the database and its WAL: the secret is nowhere.
    for (const file of [store.path, `${store.path}-wal`]) {
      try {
        assert.ok(!readFileSync(file).includes(secret), `${file} holds the raw args`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  });

  it('deleteSession removes every row of the session in every table', () => {
    const keep = store.createSession(newSession()).sessionId;
    const gone = store.createSession(newSession()).sessionId;
    for (const [sessionId, turnId] of [
      [keep, 'k1'],
      [gone, 'g1'],
    ] as const) {
      store.appendUserMessage(sessionId, turnId, 'hi');
      store.recordApproval({
        sessionId,
        turnId,
        toolCallId: 'c',
        tool: 't',
        args: {},
        outcome: 'approved',
        decision: 'allow',
      });
      store.commitTurn(turnCommit(turnId));
      store.appendEvent(sessionId, 1, 'session/state', { state: 'idle' });
    }
    store.deleteSession(gone);
    const db = rawDb(store.path);
    try {
      for (const table of [
        'sessions',
        'turns',
        'messages',
        'trees',
        'turn_usage',
        'approvals',
        'events',
      ]) {
        const left = db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
        assert.ok(left > 0, `${table} lost the other session's rows`);
      }
      assert.equal(count(db, 'sessions'), 1);
      assert.equal(count(db, 'turns'), 1);
      assert.equal(count(db, 'messages'), 2);
      assert.equal(count(db, 'trees'), 1);
      assert.equal(count(db, 'turn_usage'), 2);
      assert.equal(count(db, 'approvals'), 1);
      assert.equal(count(db, 'events'), 1);
    } finally {
      db.close();
    }
    assert.equal(store.loadSession(keep)!.messages.length, 2);
  });

  it('the next turn’s history comes from the store, trimmed from the oldest to the token budget', () => {
    const { sessionId } = store.createSession(newSession());
    for (let i = 1; i <= 5; i++) {
      store.appendUserMessage(sessionId, `t${i}`, `q${i}`.padEnd(40, '.')); // 10 tokens
      store.commitTurn(turnCommit(`t${i}`, { assistantText: `a${i}`.padEnd(80, '.') })); // 20 tokens
    }
    store.appendUserMessage(sessionId, 't6', 'the running turn’s own message is not history');
    const all = store.historyForNextTurn(sessionId, 1_000);
    assert.equal(all.length, 10);
    assert.deepEqual(
      all.map((m) => m.role),
      [
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
      ],
    );
    assert.ok(all[0]!.content.startsWith('q1'));

    const trimmed = store.historyForNextTurn(sessionId, 65); // a5 20 + q5 10 + a4 20 + q4 10 = 60; a3 would exceed
    assert.deepEqual(
      trimmed.map((m) => m.content.slice(0, 2)),
      ['q4', 'a4', 'q5', 'a5'],
    );
    const noLeadingAnswer = store.historyForNextTurn(sessionId, 50); // a5 q5 a4 fit (50) but a4 cannot lead
    assert.deepEqual(
      noLeadingAnswer.map((m) => m.content.slice(0, 2)),
      ['q5', 'a5'],
    );
    assert.deepEqual(store.historyForNextTurn(sessionId, 5), []);
  });
});
