/**
 * A tiny in-process daemon on a Unix socket that runs one scripted turn with
 * a write that needs approval: it asks `tool/approvalRequest`, records the
 * client's decision, announces `tool/approvalResolved` and ends the turn.
 * Every message it sends is checked against the protocol schemas first, so a
 * broken fake cannot pass for a broken client.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import {
  createMessageConnection,
  SocketMessageReader,
  SocketMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import {
  Methods,
  type ApprovalDecision,
  type NotificationDescriptor,
  type RequestDescriptor,
} from '@arbor/protocol';
import type { z } from 'zod';

export interface FakeDaemon {
  socketPath: string;
  dataDir: string;
  /** Decisions the client sent, in order. */
  decisions: ApprovalDecision[];
  close(): Promise<void>;
}

const TOKEN = 'fake-token';

export async function startFakeApprovalDaemon(dir: string): Promise<FakeDaemon> {
  const socketPath = join(dir, 'daemon.sock');
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  const decisions: ApprovalDecision[] = [];
  const connections: MessageConnection[] = [];
  const server: Server = createServer((socket) => {
    const rpc = createMessageConnection(
      new SocketMessageReader(socket),
      new SocketMessageWriter(socket),
    );
    connections.push(rpc);
    serve(rpc, decisions);
    rpc.listen();
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    dataDir: dir,
    decisions,
    close: () =>
      new Promise((resolve) => {
        connections.forEach((c) => c.dispose());
        server.close(() => resolve());
      }),
  };
}

function serve(rpc: MessageConnection, decisions: ApprovalDecision[]): void {
  let seq = 0;
  const now = () => new Date().toISOString();
  const notify = <D extends NotificationDescriptor>(d: D, params: z.input<D['params']>) =>
    rpc.sendNotification(d.method, d.params.parse(params));
  const session = {
    sessionId: 'ses_fake',
    workspaceRoot: '/tmp',
    title: 'fake',
    permissionMode: 'default' as const,
    chatContext: { kind: 'thread' as const },
    state: 'idle' as const,
    createdAt: now(),
    updatedAt: now(),
  };
  const result = <D extends RequestDescriptor>(d: D, value: z.input<D['result']>) =>
    d.result.parse(value);

  rpc.onRequest(Methods.Initialize.method, (params: { token?: string }) => {
    if (params.token !== TOKEN) throw new Error('bad token');
    return result(Methods.Initialize, {
      protocolVersion: 1,
      serverInfo: { name: 'fake', version: '0' },
      capabilities: { permissionModes: ['plan', 'default', 'auto'], maxMessageBytes: 1 << 20 },
      clientId: 'client-1',
    });
  });
  rpc.onNotification(Methods.Initialized.method, () => undefined);
  rpc.onRequest(Methods.Shutdown.method, () => null);
  rpc.onNotification(Methods.Exit.method, () => rpc.dispose());
  rpc.onRequest(Methods.SessionNew.method, () => result(Methods.SessionNew, session));
  rpc.onRequest(Methods.ChatCancel.method, () => result(Methods.ChatCancel, { cancelled: false }));
  rpc.onRequest(Methods.ChatSend.method, () => {
    const turnId = 'turn_1';
    const sessionId = session.sessionId;
    setTimeout(() => void runTurn(turnId, sessionId), 50);
    return result(Methods.ChatSend, { turnId });
  });

  async function runTurn(turnId: string, sessionId: string): Promise<void> {
    const base = () => ({ sessionId, seq: ++seq, turnId });
    const turn = {
      id: turnId,
      parentId: null,
      kind: 'turn' as const,
      name: 'turn',
      depth: 0,
      startedAt: now(),
    };
    const write = {
      id: 'n1',
      parentId: turnId,
      kind: 'tool' as const,
      name: 'write_file',
      depth: 0,
      argsPreview: '{"path":"notes.md"}',
    };
    await notify(Methods.SessionState, { ...base(), state: 'running' });
    await notify(Methods.TreeUpdate, { ...base(), nodes: [{ ...turn, status: 'running' }] });
    await notify(Methods.ChatChunk, { ...base(), nodeId: turnId, text: 'Writing the notes.' });
    await notify(Methods.TreeUpdate, {
      ...base(),
      nodes: [{ ...write, status: 'awaiting_approval' }],
    });
    await notify(Methods.SessionState, { ...base(), state: 'requires_action' });
    const request = Methods.ApprovalRequest.params.parse({
      sessionId,
      turnId,
      nodeId: 'n1',
      toolCallId: 'call_1',
      name: 'write_file',
      args: { path: 'notes.md', content: 'hello' },
      category: 'write',
      reason: 'write_file changes files in the workspace',
    });
    const answer = Methods.ApprovalRequest.result.parse(
      await rpc.sendRequest(Methods.ApprovalRequest.method, request),
    );
    decisions.push(answer.decision);
    const approved = answer.decision !== 'deny';
    await notify(Methods.ApprovalResolved, {
      ...base(),
      toolCallId: 'call_1',
      outcome: approved ? 'approved' : 'rejected',
      decision: answer.decision,
      decidedBy: 'client-1',
    });
    await notify(Methods.SessionState, { ...base(), state: 'running' });
    await notify(Methods.TreeUpdate, {
      ...base(),
      nodes: [
        {
          ...write,
          status: approved ? 'done' : 'denied',
          approval: approved ? 'approved' : 'rejected',
          durationMs: 5,
        },
      ],
    });
    await notify(Methods.ChatChunk, {
      ...base(),
      nodeId: turnId,
      text: approved ? ' The notes are written.' : ' The write was denied.',
    });
    await notify(Methods.TreeUpdate, {
      ...base(),
      nodes: [{ ...turn, status: 'done', durationMs: 80 }],
    });
    const usage = { inputTokens: 10, outputTokens: 5 };
    await notify(Methods.CostSummary, {
      ...base(),
      usage,
      cost: 0,
      currency: 'USD',
      byModel: [{ provider: 'fake', model: 'fake', calls: 1, usage, cost: 0 }],
    });
    await notify(Methods.SessionState, { ...base(), state: 'idle', stopReason: 'end_turn', usage });
  }
}
