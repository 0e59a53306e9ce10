/**
 * A tiny in-process daemon on a Unix socket that runs one scripted turn that
 * asks the user: a write that needs approval (`tool/approvalRequest`, then
 * `tool/approvalResolved`), or the model's question (`tool/question`, then
 * `tool/questionResolved`, answered here or — when told to — by another
 * client first). It records what the client answered and ends the turn.
 * Every message it sends is checked against the protocol schemas first, so a
 * broken fake cannot pass for a broken client.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import {
  CancellationTokenSource,
  createMessageConnection,
  SocketMessageReader,
  SocketMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import {
  Methods,
  type ApprovalDecision,
  type NotificationDescriptor,
  type QuestionRequestParams,
  type RequestDescriptor,
} from '@arbor/protocol';
import type { z } from 'zod';

export interface FakeDaemon {
  socketPath: string;
  dataDir: string;
  /** Decisions the client sent, in order. */
  decisions: ApprovalDecision[];
  /** Answers to the question the client sent, in order. */
  answers: string[];
  close(): Promise<void>;
}

/** The turn asks a question instead of an approval. */
export interface QuestionScenario {
  /** Overrides of the asked question (default: which test runner, two options, free text). */
  question?: Partial<Pick<QuestionRequestParams, 'question' | 'options' | 'freeText'>>;
  /** Another client answers this after `afterMs` unless the user answered first. */
  answeredElsewhere?: { answer: string; afterMs: number };
}

const TOKEN = 'fake-token';

export function startFakeApprovalDaemon(dir: string): Promise<FakeDaemon> {
  return startFakePromptDaemon(dir, undefined);
}

export function startFakeQuestionDaemon(
  dir: string,
  scenario: QuestionScenario = {},
): Promise<FakeDaemon> {
  return startFakePromptDaemon(dir, scenario);
}

async function startFakePromptDaemon(
  dir: string,
  question: QuestionScenario | undefined,
): Promise<FakeDaemon> {
  const socketPath = join(dir, 'daemon.sock');
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  const decisions: ApprovalDecision[] = [];
  const answers: string[] = [];
  const connections: MessageConnection[] = [];
  const server: Server = createServer((socket) => {
    const rpc = createMessageConnection(
      new SocketMessageReader(socket),
      new SocketMessageWriter(socket),
    );
    connections.push(rpc);
    serve(rpc, { decisions, answers }, question);
    rpc.listen();
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    dataDir: dir,
    decisions,
    answers,
    close: () =>
      new Promise((resolve) => {
        connections.forEach((c) => c.dispose());
        server.close(() => resolve());
      }),
  };
}

function serve(
  rpc: MessageConnection,
  record: { decisions: ApprovalDecision[]; answers: string[] },
  question: QuestionScenario | undefined,
): void {
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
      capabilities: {
        permissionModes: ['plan', 'default', 'auto'],
        maxMessageBytes: 1 << 20,
        questions: {},
      },
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
    setTimeout(
      () => void (question ? askTurn(turnId, sessionId, question) : runTurn(turnId, sessionId)),
      50,
    );
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
    record.decisions.push(answer.decision);
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

  /** ask_user: the question, the client's answer (or another client's), then the turn ends. */
  async function askTurn(turnId: string, sessionId: string, scenario: QuestionScenario) {
    const base = () => ({ sessionId, seq: ++seq, turnId });
    const turn = {
      id: turnId,
      parentId: null,
      kind: 'turn' as const,
      name: 'turn',
      depth: 0,
      startedAt: now(),
    };
    const ask = {
      id: 'n1',
      parentId: turnId,
      kind: 'tool' as const,
      name: 'ask_user',
      depth: 0,
      argsPreview: '{"question":"Which runner?"}',
    };
    await notify(Methods.SessionState, { ...base(), state: 'running' });
    await notify(Methods.TreeUpdate, { ...base(), nodes: [{ ...turn, status: 'running' }] });
    await notify(Methods.TreeUpdate, {
      ...base(),
      nodes: [{ ...ask, status: 'awaiting_approval' }],
    });
    await notify(Methods.SessionState, { ...base(), state: 'requires_action' });
    const request = Methods.QuestionRequest.params.parse({
      sessionId,
      turnId,
      nodeId: 'n1',
      toolCallId: 'call_q',
      question: 'The tests use both Jest and Vitest. Which runner should the new tests use?',
      options: [
        { label: 'Vitest', description: 'Used by the 40 newer test files' },
        { label: 'Jest' },
      ],
      freeText: true,
      ...scenario.question,
    });
    const cancel = new CancellationTokenSource();
    let answered: { answer: string; by: string } | undefined;
    const elsewhere = scenario.answeredElsewhere;
    const other = elsewhere
      ? new Promise<void>((resolve) =>
          setTimeout(() => {
            answered ??= { answer: elsewhere.answer, by: 'client-2' };
            resolve();
          }, elsewhere.afterMs),
        )
      : new Promise<void>(() => undefined);
    const mine = rpc
      .sendRequest(Methods.QuestionRequest.method, request, cancel.token)
      .then((result) => {
        const { answer } = Methods.QuestionRequest.result.parse(result);
        record.answers.push(answer);
        answered ??= { answer, by: 'client-1' };
      })
      // Cancelled once another client answered (-32800).
      .catch(() => undefined);
    await Promise.race([mine, other]);
    cancel.cancel();
    const result = answered!;
    await notify(Methods.QuestionResolved, {
      ...base(),
      toolCallId: 'call_q',
      outcome: 'answered',
      answer: result.answer,
      answeredBy: result.by,
    });
    await notify(Methods.SessionState, { ...base(), state: 'running' });
    await notify(Methods.TreeUpdate, {
      ...base(),
      nodes: [{ ...ask, status: 'done', resultPreview: result.answer, durationMs: 5 }],
    });
    await notify(Methods.ChatChunk, {
      ...base(),
      nodeId: turnId,
      text: `Using ${result.answer}.`,
    });
    await notify(Methods.TreeUpdate, {
      ...base(),
      nodes: [{ ...turn, status: 'done', durationMs: 80 }],
    });
    const usage = { inputTokens: 10, outputTokens: 5 };
    await notify(Methods.SessionState, { ...base(), state: 'idle', stopReason: 'end_turn', usage });
  }
}
