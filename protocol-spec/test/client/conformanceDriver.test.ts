import { strict as assert } from 'node:assert';
import { CancellationTokenSource } from 'vscode-jsonrpc';
import { Methods, type QuestionRequestParams } from '../../src/index.js';
import { ArborClient } from '../../src/client/arborClient.js';
import {
  DriverConfigError,
  driverAnswer,
  readDriverConfig,
  runConformanceDriver,
  type DriverConfig,
} from '../../src/client/conformanceDriver.js';
import { approvalRequest, SESSION, sessionInfo } from './builders.js';
import { FakeDaemon } from './fakeDaemon.js';

const question = (
  toolCallId: string,
  fields: Partial<QuestionRequestParams> = {},
): QuestionRequestParams => ({
  sessionId: SESSION,
  turnId: 'turn_1',
  nodeId: `n_${toolCallId}`,
  toolCallId,
  question: 'Which test runner?',
  options: [{ label: 'Vitest' }, { label: 'Jest' }],
  freeText: true,
  ...fields,
});

const STDIO = { ARBOR_CONFORMANCE_SCENARIO: 'x', ARBOR_DAEMON_COMMAND: 'arbor daemon --stdio' };

describe('conformance driver: the environment convention', () => {
  it('is off without ARBOR_CONFORMANCE_SCENARIO', () => {
    assert.equal(readDriverConfig({ ARBOR_DAEMON_COMMAND: 'arbor daemon --stdio' }), undefined);
  });

  it('defaults: stdio, a new session, controller, deny', () => {
    assert.deepEqual(readDriverConfig(STDIO), {
      scenario: 'x',
      connection: { kind: 'stdio', command: 'arbor daemon --stdio' },
      sessionId: undefined,
      role: 'controller',
      message: undefined,
      approval: 'deny',
      answer: undefined,
    });
  });

  it('the endpoint takes precedence over the daemon command', () => {
    const config = readDriverConfig({
      ...STDIO,
      ARBOR_CONFORMANCE_ENDPOINT: '/tmp/d.sock',
      ARBOR_CONFORMANCE_TOKEN_FILE: '/tmp/token',
      ARBOR_CONFORMANCE_SESSION: 's_1',
      ARBOR_CONFORMANCE_ROLE: 'observer',
      ARBOR_CONFORMANCE_MESSAGE: 'hi',
      ARBOR_CONFORMANCE_APPROVAL: 'allowForSession',
      ARBOR_CONFORMANCE_ANSWER: 'Vitest',
    });
    assert.deepEqual(config?.connection, {
      kind: 'socket',
      endpoint: '/tmp/d.sock',
      tokenFile: '/tmp/token',
    });
    assert.equal(config?.role, 'observer');
    assert.equal(config?.approval, 'allowForSession');
    assert.equal(config?.sessionId, 's_1');
    assert.equal(config?.answer, 'Vitest');
  });

  it('rejects a missing daemon, an unknown role or an unknown approval policy', () => {
    assert.throws(() => readDriverConfig({ ARBOR_CONFORMANCE_SCENARIO: 'x' }), DriverConfigError);
    assert.throws(
      () => readDriverConfig({ ...STDIO, ARBOR_CONFORMANCE_ROLE: 'admin' }),
      DriverConfigError,
    );
    assert.throws(
      () => readDriverConfig({ ...STDIO, ARBOR_CONFORMANCE_APPROVAL: 'approved' }),
      DriverConfigError,
    );
  });
});

describe('conformance driver over a fake daemon', () => {
  let daemon: FakeDaemon;
  let client: ArborClient;
  const config = (fields: Partial<DriverConfig>): DriverConfig => ({
    scenario: 'test',
    connection: { kind: 'stdio', command: 'unused' },
    sessionId: SESSION,
    role: 'controller',
    message: undefined,
    approval: 'deny',
    answer: undefined,
    ...fields,
  });

  beforeEach(() => {
    daemon = new FakeDaemon();
    daemon.answers.set(Methods.SessionAttach.method, () => ({
      session: sessionInfo(),
      role: 'controller',
      lastSeq: 0,
      replay: 'none',
    }));
    daemon.answers.set(Methods.ChatSend.method, () => ({ turnId: 'turn_9' }));
    client = new ArborClient(daemon.clientConnection, { clientInfo: { name: 'driver-test' } });
  });
  afterEach(() => {
    client.dispose();
    daemon.dispose();
  });

  it('initializes with approvals, questions and conformance, attaches, sends the message', async () => {
    await runConformanceDriver(client, config({ message: 'Hello' }), { workspaceRoot: '/w' });
    const init = await daemon.next(Methods.Initialize.method);
    assert.deepEqual((init.params as { capabilities: unknown }).capabilities, {
      approvals: {},
      conformance: {},
      openEnums: {},
      questions: {},
    });
    assert.deepEqual(daemon.methods(), [
      Methods.Initialize.method,
      Methods.Initialized.method,
      Methods.SessionAttach.method,
      Methods.ChatSend.method,
    ]);
    const send = await daemon.next(Methods.ChatSend.method);
    assert.deepEqual(send.params, { sessionId: SESSION, text: 'Hello' });
  });

  it('creates a session in its workspace root when none is named', async () => {
    daemon.answers.set(Methods.SessionNew.method, () => sessionInfo());
    await runConformanceDriver(client, config({ sessionId: undefined }), { workspaceRoot: '/w' });
    const created = await daemon.next(Methods.SessionNew.method);
    assert.equal((created.params as { workspaceRoot: string }).workspaceRoot, '/w');
  });

  for (const decision of ['allow', 'allowForSession', 'deny'] as const) {
    it(`answers every approval with the policy's decision: ${decision}`, async () => {
      await runConformanceDriver(client, config({ approval: decision }), { workspaceRoot: '/w' });
      const answer = await daemon.request(Methods.ApprovalRequest.method, approvalRequest('c1'));
      assert.deepEqual(answer, { decision });
    });
  }

  it('with ignore, leaves approvals pending until cancelled (-32800) and reports them', async () => {
    const run = await runConformanceDriver(client, config({ approval: 'ignore' }), {
      workspaceRoot: '/w',
    });
    const source = new CancellationTokenSource();
    const answer = daemon.request(
      Methods.ApprovalRequest.method,
      approvalRequest('c1'),
      source.token,
    );
    await new Promise((r) => setTimeout(r, 20));
    const state = await daemon.request(Methods.ConformanceState.method, { sessionId: SESSION });
    assert.deepEqual((state as { pendingApprovals: string[] }).pendingApprovals, ['c1']);
    assert.equal(run.view.approvals.awaiting().length, 1);
    source.cancel();
    await assert.rejects(answer, (error: { code?: number }) => error.code === -32800);
  });

  it('answers every question with ARBOR_CONFORMANCE_ANSWER where it is a valid answer', async () => {
    await runConformanceDriver(client, config({ answer: 'Vitest, fast' }), { workspaceRoot: '/w' });
    assert.deepEqual(await daemon.request(Methods.QuestionRequest.method, question('q1')), {
      answer: 'Vitest, fast',
    });
    // freeText false: only a label is valid, so the user picks the first option.
    assert.deepEqual(
      await daemon.request(Methods.QuestionRequest.method, question('q2', { freeText: false })),
      { answer: 'Vitest' },
    );
  });

  it("answers questions by default with the first option's label, or ok", () => {
    assert.equal(driverAnswer(question('q1'), undefined), 'Vitest');
    assert.equal(driverAnswer(question('q2', { options: undefined }), undefined), 'ok');
    assert.equal(driverAnswer(question('q3', { freeText: false }), 'Jest'), 'Jest');
  });

  it('with ignore, leaves questions waiting until cancelled (-32800) and reports them', async () => {
    const run = await runConformanceDriver(client, config({ approval: 'ignore' }), {
      workspaceRoot: '/w',
    });
    const source = new CancellationTokenSource();
    const answer = daemon.request(Methods.QuestionRequest.method, question('q1'), source.token);
    await new Promise((r) => setTimeout(r, 20));
    const state = await daemon.request(Methods.ConformanceState.method, { sessionId: SESSION });
    assert.deepEqual((state as { pendingQuestions: string[] }).pendingQuestions, ['q1']);
    assert.equal(run.view.questions.awaiting().length, 1);
    source.cancel();
    await assert.rejects(answer, (error: { code?: number }) => error.code === -32800);
  });
});
