/**
 * Live approvals through the protocol (approvals.md#approval-lifecycle): a
 * daemon with the real agent, gate and workspace tools, and controller /
 * observer clients that answer `tool/approvalRequest` like a user would.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApprovalRequestParams, ApprovalResolvedParams, Methods } from '@arbor/protocol';
import { script } from '../agent/harness.js';
import {
  newSession,
  permDaemon,
  send,
  tempDir,
  toolNodes,
  toolResults,
  turnEnd,
  until,
  type PermDaemon,
} from './helpers.js';

const writeCall = (id: string, path = 'a.txt', content = 'new') => ({
  id,
  name: 'write_file',
  arguments: { path, content },
});

describe('approvals (live, through the protocol)', function () {
  this.timeout(20_000);
  let daemon: PermDaemon | undefined;
  let ws: string;

  beforeEach(() => {
    ws = tempDir();
    writeFileSync(join(ws, 'a.txt'), 'old');
  });
  afterEach(async () => {
    await daemon?.close();
    daemon = undefined;
  });

  const oneWrite = script({
    'write it': [{ toolCalls: [writeCall('call_1')] }, { text: 'done' }],
  });

  it('allow: the call runs after requires_action, approvalRequest, approvalResolved, running', async () => {
    daemon = permDaemon(oneWrite);
    const client = await daemon.connect();
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'write it');
    await until(() => client.asks.length === 1);
    const ask = client.asks[0]!;
    const params = ApprovalRequestParams.parse(ask.params);
    assert.equal(params.name, 'write_file');
    assert.equal(params.category, 'write');
    assert.equal(params.toolCallId, 'call_1');
    assert.deepEqual(params.args, { path: 'a.txt', content: 'new' });
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'old', 'nothing runs before the answer');
    const awaiting = toolNodes(client, 'write_file')[0]!;
    assert.equal(awaiting['status'], 'awaiting_approval');

    ask.answer({ decision: 'allow' });
    await turnEnd(client, turnId);
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'new');
    const resolved = client
      .eventsOf(Methods.ApprovalResolved)
      .map((p) => ApprovalResolvedParams.parse(p));
    assert.equal(resolved.length, 1);
    assert.equal(resolved[0]!.outcome, 'approved');
    assert.equal(resolved[0]!.decision, 'allow');
    assert.equal(resolved[0]!.decidedBy, client.clientId);
    const node = toolNodes(client, 'write_file')[0]!;
    assert.equal(node['status'], 'done');
    assert.equal(node['approval'], 'approved');
    const order = client.log
      .slice(client.log.indexOf('session/state:requires_action'))
      .filter((m) =>
        [
          'session/state:requires_action',
          Methods.ApprovalRequest.method,
          Methods.ApprovalResolved.method,
          'session/state:running',
        ].includes(m),
      );
    assert.deepEqual(order, [
      'session/state:requires_action',
      Methods.ApprovalRequest.method,
      Methods.ApprovalResolved.method,
      'session/state:running',
    ]);
    assert.equal(toolResults(daemon.provider)[0]!.metadata?.approval, 'approved');
    const logged = daemon.store.approvals(sessionId);
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.outcome, 'approved');
    assert.equal(logged[0]!.decidedBy, client.clientId);
  });

  it('allowForSession: a later call of the tool, in a subtask too, runs without asking', async () => {
    daemon = permDaemon(
      script({
        'twice please': [
          { toolCalls: [writeCall('call_1', 'a.txt', 'one')] },
          { toolCalls: [writeCall('call_2', 'b.txt', 'two')] },
          {
            toolCalls: [
              {
                id: 'call_3',
                name: 'run_subtask',
                arguments: { title: 'sub', instructions: 'SUB: write c' },
              },
            ],
          },
          { text: 'done' },
        ],
        'SUB: write c': [
          { toolCalls: [writeCall('call_s', 'c.txt', 'three')] },
          { text: 'sub done' },
        ],
      }),
    );
    const client = await daemon.connect();
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'twice please');
    await until(() => client.asks.length === 1);
    client.asks[0]!.answer({ decision: 'allowForSession' });
    await turnEnd(client, turnId);
    assert.equal(client.asks.length, 1, 'only the first call asked');
    assert.equal(readFileSync(join(ws, 'b.txt'), 'utf8'), 'two');
    assert.equal(readFileSync(join(ws, 'c.txt'), 'utf8'), 'three');
    const approvals = toolNodes(client, 'write_file').map((n) => n['approval']);
    assert.deepEqual(approvals, ['approved', 'not_required', 'not_required']);
  });

  it('deny: the call does not run, the node is denied, the model sees permission_denied', async () => {
    daemon = permDaemon(oneWrite);
    const client = await daemon.connect();
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'write it');
    await until(() => client.asks.length === 1);
    client.asks[0]!.answer({ decision: 'deny' });
    const end = await turnEnd(client, turnId);
    assert.equal(end['stopReason'], 'end_turn', 'a refused call does not end the turn');
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'old');
    const node = toolNodes(client, 'write_file')[0]!;
    assert.equal(node['status'], 'denied');
    assert.equal(node['approval'], 'rejected');
    const result = toolResults(daemon.provider)[0]!;
    assert.equal(result.isError, true);
    assert.match(result.content, /^permission_denied/);
    assert.match(result.content, /not retry/i);
    const resolved = client.eventsOf(Methods.ApprovalResolved)[0]!;
    assert.equal(resolved['outcome'], 'rejected');
    assert.equal(resolved['decision'], 'deny');
  });

  it('timeout: an unanswered approval ends as timed_out and its request is cancelled', async () => {
    daemon = permDaemon(oneWrite, { approvalTimeoutMs: 150 });
    const client = await daemon.connect();
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'write it');
    await until(() => client.asks.length === 1);
    await client.asks[0]!.cancelled; // $/cancelRequest arrives
    await turnEnd(client, turnId);
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'old');
    const resolved = client.eventsOf(Methods.ApprovalResolved);
    assert.equal(resolved.length, 1);
    assert.equal(resolved[0]!['outcome'], 'timed_out');
    assert.equal(resolved[0]!['decision'], undefined);
    assert.equal(toolNodes(client, 'write_file')[0]!['status'], 'denied');
    assert.match(toolResults(daemon.provider)[0]!.content, /^permission_denied/);
  });

  it('no controller with client.approvals: timed_out at once, without requires_action', async () => {
    daemon = permDaemon(oneWrite);
    const client = await daemon.connect({ capabilities: {} });
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'write it');
    await turnEnd(client, turnId);
    assert.equal(client.asks.length, 0);
    assert.ok(!client.log.includes('session/state:requires_action'));
    assert.equal(client.eventsOf(Methods.ApprovalResolved)[0]!['outcome'], 'timed_out');
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'old');
  });

  it('chat/cancel: the pending approval is cancelled, its request gets $/cancelRequest, the node is cancelled', async () => {
    daemon = permDaemon(oneWrite);
    const client = await daemon.connect();
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'write it');
    await until(() => client.asks.length === 1);
    await client.request(Methods.ChatCancel, { sessionId });
    await client.asks[0]!.cancelled;
    const end = await turnEnd(client, turnId);
    assert.equal(end['stopReason'], 'cancelled');
    assert.equal(client.eventsOf(Methods.ApprovalResolved)[0]!['outcome'], 'cancelled');
    const node = toolNodes(client, 'write_file')[0]!;
    assert.equal(node['status'], 'cancelled');
    assert.equal(node['approval'], 'cancelled');
    // A late allow changes nothing.
    client.asks[0]!.answer({ decision: 'allow' });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'old');
    assert.equal(client.eventsOf(Methods.ApprovalResolved).length, 1);
  });

  it('switching to auto releases the pending approval as approved (no decision), and the call runs', async () => {
    daemon = permDaemon(oneWrite);
    const client = await daemon.connect();
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'write it');
    await until(() => client.asks.length === 1);
    await client.request(Methods.SessionSetPermissionMode, { sessionId, mode: 'auto' });
    await turnEnd(client, turnId);
    const resolved = client.eventsOf(Methods.ApprovalResolved)[0]!;
    assert.equal(resolved['outcome'], 'approved');
    assert.ok(!('decision' in resolved) && !('decidedBy' in resolved));
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'new');
    await client.asks[0]!.cancelled;
  });

  it('switching to plan releases it as rejected: node blocked, model sees blocked_in_plan_mode', async () => {
    daemon = permDaemon(oneWrite);
    const client = await daemon.connect();
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'write it');
    await until(() => client.asks.length === 1);
    await client.request(Methods.SessionSetPermissionMode, { sessionId, mode: 'plan' });
    await turnEnd(client, turnId);
    assert.equal(client.eventsOf(Methods.ApprovalResolved)[0]!['outcome'], 'rejected');
    assert.equal(toolNodes(client, 'write_file')[0]!['status'], 'blocked');
    assert.match(toolResults(daemon.provider)[0]!.content, /^blocked_in_plan_mode/);
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'old');
  });

  it('two controllers racing: exactly one decision applies and is broadcast once to everyone', async () => {
    daemon = permDaemon(oneWrite);
    const a = await daemon.connect();
    const b = await daemon.connect();
    const sessionId = await newSession(a, ws);
    await b.request(Methods.SessionAttach, { sessionId, role: 'controller' });
    const turnId = await send(a, sessionId, 'write it');
    await until(() => a.asks.length === 1 && b.asks.length === 1);
    // Both answer in the same tick, with opposite decisions.
    a.asks[0]!.answer({ decision: 'deny' });
    b.asks[0]!.answer({ decision: 'allow' });
    await turnEnd(a, turnId);
    await turnEnd(b, turnId);
    const seenByA = a.eventsOf(Methods.ApprovalResolved);
    const seenByB = b.eventsOf(Methods.ApprovalResolved);
    assert.equal(seenByA.length, 1);
    assert.deepEqual(seenByA, seenByB);
    const winner = seenByA[0]!;
    const written = readFileSync(join(ws, 'a.txt'), 'utf8') === 'new';
    assert.equal(
      written,
      winner['decision'] === 'allow',
      'the broadcast decision is the one that applied',
    );
    assert.equal(winner['decidedBy'], winner['decision'] === 'allow' ? b.clientId : a.clientId);
  });

  it('a controller attaching while an approval is pending gets it again, after its attach response', async () => {
    daemon = permDaemon(oneWrite);
    const a = await daemon.connect();
    const sessionId = await newSession(a, ws);
    const turnId = await send(a, sessionId, 'write it');
    await until(() => a.asks.length === 1);
    const b = await daemon.connect();
    const attached = await b.request(Methods.SessionAttach, {
      sessionId,
      role: 'controller',
      sinceSeq: 0,
    });
    assert.equal(attached.session.state, 'requires_action');
    await until(() => b.asks.length === 1);
    assert.deepEqual(b.asks[0]!.params, a.asks[0]!.params, 'same params as the original');
    // Replayed events come before the re-sent request.
    const requestAt = b.log.indexOf(Methods.ApprovalRequest.method);
    assert.ok(b.log.slice(0, requestAt).includes('session/state:requires_action'));
    b.asks[0]!.answer({ decision: 'allow' });
    await turnEnd(a, turnId);
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'new');
    await a.asks[0]!.cancelled; // the other request is withdrawn
  });

  it('snapshot attach lists pending approvals', async () => {
    daemon = permDaemon(oneWrite);
    const a = await daemon.connect();
    const sessionId = await newSession(a, ws);
    await send(a, sessionId, 'write it');
    await until(() => a.asks.length === 1);
    const session = daemon.sessions.get(sessionId);
    assert.deepEqual(session.approvals.pending(), [a.asks[0]!.params]);
    a.asks[0]!.answer({ decision: 'deny' });
  });

  it('an observer is never asked and its answers never count; it sees approvalResolved', async () => {
    daemon = permDaemon(oneWrite, { approvalTimeoutMs: 300 });
    const controller = await daemon.connect({ capabilities: {} }); // cannot answer approvals
    const observer = await daemon.connect();
    const sessionId = await newSession(controller, ws);
    await observer.request(Methods.SessionAttach, { sessionId, role: 'observer' });
    const turnId = await send(controller, sessionId, 'write it');
    await turnEnd(observer, turnId);
    assert.equal(observer.asks.length, 0);
    assert.equal(observer.eventsOf(Methods.ApprovalResolved).length, 1);
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'old');
  });

  it('a controller that re-attaches as observer keeps no say: its late allow is ignored', async () => {
    daemon = permDaemon(oneWrite, { approvalTimeoutMs: 400 });
    const a = await daemon.connect();
    const sessionId = await newSession(a, ws);
    const turnId = await send(a, sessionId, 'write it');
    await until(() => a.asks.length === 1);
    await a.request(Methods.SessionAttach, { sessionId, role: 'observer' });
    a.asks[0]!.answer({ decision: 'allow' });
    await turnEnd(a, turnId);
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'old');
    assert.equal(a.eventsOf(Methods.ApprovalResolved)[0]!['outcome'], 'timed_out');
  });

  for (const garbage of [
    { decision: 'approved' },
    { decision: 'Allow' },
    { decison: 'allow' },
    { decision: true },
    'allow',
    null,
  ]) {
    it(`a garbage answer (${JSON.stringify(garbage)}) is never approval: rejected`, async () => {
      daemon = permDaemon(oneWrite);
      const client = await daemon.connect();
      const sessionId = await newSession(client, ws);
      const turnId = await send(client, sessionId, 'write it');
      await until(() => client.asks.length === 1);
      client.asks[0]!.answer(garbage);
      await turnEnd(client, turnId);
      assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'old');
      const resolved = client.eventsOf(Methods.ApprovalResolved)[0]!;
      assert.equal(resolved['outcome'], 'rejected');
      assert.equal(resolved['decision'], undefined);
      assert.match(toolResults(daemon.provider)[0]!.content, /^permission_denied/);
    });
  }

  it('an error response is never approval either', async () => {
    daemon = permDaemon(oneWrite);
    const client = await daemon.connect();
    const sessionId = await newSession(client, ws);
    const turnId = await send(client, sessionId, 'write it');
    await until(() => client.asks.length === 1);
    client.asks[0]!.fail('the user closed the window');
    await turnEnd(client, turnId);
    assert.equal(client.eventsOf(Methods.ApprovalResolved)[0]!['outcome'], 'rejected');
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'old');
  });

  it('one garbage answer does not decide while another controller can still answer', async () => {
    daemon = permDaemon(oneWrite);
    const a = await daemon.connect();
    const b = await daemon.connect();
    const sessionId = await newSession(a, ws);
    await b.request(Methods.SessionAttach, { sessionId, role: 'controller' });
    const turnId = await send(a, sessionId, 'write it');
    await until(() => a.asks.length === 1 && b.asks.length === 1);
    a.asks[0]!.answer({ decision: 'yes' });
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(a.eventsOf(Methods.ApprovalResolved).length, 0, 'still pending');
    b.asks[0]!.answer({ decision: 'allow' });
    await turnEnd(a, turnId);
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'new');
  });

  it('the only asked controller disconnecting resolves the approval as rejected', async () => {
    daemon = permDaemon(oneWrite);
    const a = await daemon.connect();
    const watcher = await daemon.connect();
    const sessionId = await newSession(a, ws);
    await watcher.request(Methods.SessionAttach, { sessionId, role: 'observer' });
    const turnId = await send(a, sessionId, 'write it');
    await until(() => a.asks.length === 1);
    a.close();
    await turnEnd(watcher, turnId);
    assert.equal(watcher.eventsOf(Methods.ApprovalResolved)[0]!['outcome'], 'rejected');
    assert.ok(!existsSync(join(ws, 'b.txt')));
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'old');
  });
});
