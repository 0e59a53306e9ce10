import { strict as assert } from 'node:assert';
import { CancellationTokenSource, ResponseError } from 'vscode-jsonrpc/node';
import { ErrorCodes, Methods, type ApprovalRequestParams } from '../../src/index.js';
import {
  ArborClient,
  CapabilityNotNegotiatedError,
  MessageTooLargeError,
  ProtocolValidationError,
  UnsupportedDaemonVersionError,
  type ArborClientOptions,
} from '../../src/client/index.js';
import { approvalRequest, SESSION, TURN } from './builders.js';
import { DAEMON_INIT, FakeDaemon, settle } from './fakeDaemon.js';

const EDITOR_TOOL = {
  name: 'get_selection',
  description: 'The selected text',
  inputSchema: { type: 'object' },
  category: 'read',
} as const;

describe('ArborClient against a fake daemon', () => {
  let daemon: FakeDaemon;
  let client: ArborClient;
  let errors: Error[];

  function start(options: ArborClientOptions = {}): ArborClient {
    client = new ArborClient(daemon.clientConnection, options);
    errors = [];
    client.on('error', (e) => errors.push(e));
    return client;
  }

  async function rejection(promise: Promise<unknown>): Promise<unknown> {
    try {
      await promise;
    } catch (error) {
      return error;
    }
    assert.fail('expected a rejection');
  }

  beforeEach(() => {
    daemon = new FakeDaemon();
  });
  afterEach(() => {
    client?.dispose();
    daemon.dispose();
  });

  describe('lifecycle', () => {
    it('initialize sends version 1, clientInfo, capabilities, the tools manifest and the token, then initialized', async () => {
      start({
        clientInfo: { name: 'test-client', version: '1.2.3' },
        tools: [EDITOR_TOOL],
        token: 'secret-token',
        onApprovalRequest: () => 'allow',
        onToolExecute: () => ({ content: '' }),
      });
      const result = await client.initialize();
      assert.equal(result.clientId, 'client_1');
      assert.equal(client.phase, 'ready');
      const init = await daemon.next(Methods.Initialize.method);
      assert.deepEqual(init.params, {
        protocolVersion: 1,
        clientInfo: { name: 'test-client', version: '1.2.3' },
        capabilities: { approvals: {}, clientTools: {}, openEnums: {} },
        tools: [EDITOR_TOOL],
        token: 'secret-token',
      });
      const initialized = await daemon.next(Methods.Initialized.method);
      assert.equal(initialized.kind, 'notification');
      assert.deepEqual(daemon.methods(), [Methods.Initialize.method, Methods.Initialized.method]);
    });

    it('refuses a daemon that answers with a protocol version it does not speak', async () => {
      daemon.answers.set(Methods.Initialize.method, () => ({ ...DAEMON_INIT, protocolVersion: 2 }));
      start();
      const error = await rejection(client.initialize());
      assert.ok(error instanceof UnsupportedDaemonVersionError);
      assert.equal(error.daemonVersion, 2);
      assert.equal(client.phase, 'closed');
      await settle();
      assert.deepEqual(
        daemon.methods(),
        [Methods.Initialize.method, Methods.Exit.method],
        'exit, never initialized',
      );
      assert.ok(errors.some((e) => e instanceof UnsupportedDaemonVersionError));
    });

    it('no request goes out before initialize', async () => {
      start();
      await assert.rejects(client.request(Methods.SessionList), /client is created/);
      await settle();
      assert.deepEqual(daemon.received, []);
    });

    it('shutdown sends shutdown then exit and closes', async () => {
      start();
      await client.initialize();
      let closed = false;
      client.on('close', () => (closed = true));
      await client.shutdown();
      await settle();
      assert.deepEqual(daemon.methods().slice(-2), [Methods.Shutdown.method, Methods.Exit.method]);
      assert.equal(client.phase, 'closed');
      assert.equal(closed, true);
    });
  });

  describe('typed requests', () => {
    it('validates params (applying defaults) and the result', async () => {
      daemon.answers.set(Methods.SessionList.method, () => ({ sessions: [], nextCursor: 'c2' }));
      start();
      await client.initialize();
      const result = await client.request(Methods.SessionList, { workspaceRoot: '/w' });
      assert.equal(result.nextCursor, 'c2');
      const sent = await daemon.next(Methods.SessionList.method);
      assert.deepEqual(sent.params, { workspaceRoot: '/w', limit: 50 });
    });

    it('refuses to send invalid params', async () => {
      start();
      await client.initialize();
      const error = await rejection(
        client.request(Methods.ChatSend, { sessionId: SESSION, text: '' }),
      );
      assert.ok(error instanceof ProtocolValidationError);
      assert.equal(error.origin, 'client');
      await settle();
      assert.ok(!daemon.methods().includes(Methods.ChatSend.method));
    });

    it('a result that fails its schema rejects the request and is reported, the client goes on', async () => {
      daemon.answers.set(Methods.ChatSend.method, () => ({ turnId: 42 }));
      daemon.answers.set(Methods.ChatCancel.method, () => ({ cancelled: true }));
      start();
      await client.initialize();
      const error = await rejection(
        client.request(Methods.ChatSend, { sessionId: SESSION, text: 'hi' }),
      );
      assert.ok(error instanceof ProtocolValidationError);
      assert.equal(error.origin, 'daemon');
      assert.equal(errors.length, 1);
      assert.deepEqual(await client.request(Methods.ChatCancel, { sessionId: SESSION }), {
        cancelled: true,
      });
    });

    it('a method whose capability the daemon did not offer is not sent', async () => {
      start();
      await client.initialize();
      const error = await rejection(
        client.request(Methods.SetScript, { script: { version: 1, conversations: {} } }),
      );
      assert.ok(error instanceof CapabilityNotNegotiatedError);
      assert.equal(error.capability, 'daemon.testing.scriptedProvider');
    });

    it('a daemon error comes back as the ResponseError with its code', async () => {
      daemon.answers.set(Methods.ChatSend.method, () => {
        throw new ResponseError(ErrorCodes.TurnInProgress, 'busy');
      });
      start();
      await client.initialize();
      const error = await rejection(
        client.request(Methods.ChatSend, { sessionId: SESSION, text: 'hi' }),
      );
      assert.ok(error instanceof ResponseError);
      assert.equal(error.code, ErrorCodes.TurnInProgress);
    });
  });

  describe('notifications', () => {
    it('a notification with malformed params is ignored and reported; the client keeps working', async () => {
      start();
      await client.initialize();
      const texts: string[] = [];
      client.onNotification(Methods.ChatChunk, (p) => texts.push(p.text));
      await daemon.notify(Methods.ChatChunk.method, {
        sessionId: SESSION,
        seq: 'one',
        turnId: TURN,
        text: 'bad',
      });
      await daemon.notify(Methods.ChatChunk.method, {
        sessionId: SESSION,
        seq: 2,
        turnId: TURN,
        nodeId: 't',
        text: 'good',
      });
      await settle();
      assert.deepEqual(texts, ['good']);
      assert.equal(errors.length, 1);
      const [error] = errors;
      assert.ok(error instanceof ProtocolValidationError);
      assert.equal(error.method, Methods.ChatChunk.method);
      assert.equal(error.origin, 'daemon');
      daemon.answers.set(Methods.ChatCancel.method, () => ({ cancelled: false }));
      assert.deepEqual(await client.request(Methods.ChatCancel, { sessionId: SESSION }), {
        cancelled: false,
      });
    });

    it('accepts a notification with unknown extra fields (they are dropped)', async () => {
      start();
      await client.initialize();
      const seen: unknown[] = [];
      client.onNotification(Methods.TreeUpdate, (p) => seen.push(p));
      await daemon.notify(Methods.TreeUpdate.method, {
        sessionId: SESSION,
        seq: 1,
        turnId: TURN,
        futureTopLevel: { x: 1 },
        nodes: [
          {
            id: 't',
            parentId: null,
            kind: 'turn',
            name: 'turn',
            status: 'running',
            depth: 0,
            futureNodeField: 'x',
          },
        ],
      });
      await settle();
      assert.deepEqual(seen, [
        {
          sessionId: SESSION,
          seq: 1,
          turnId: TURN,
          nodes: [
            { id: 't', parentId: null, kind: 'turn', name: 'turn', status: 'running', depth: 0 },
          ],
        },
      ]);
      assert.deepEqual(errors, []);
    });

    it('reads enum values it does not know as their stand-ins (open enums), never dropping the message', async () => {
      start();
      await client.initialize();
      const states: unknown[] = [];
      const trees: unknown[] = [];
      const resolved: unknown[] = [];
      client.onNotification(Methods.SessionState, (p) => states.push(p));
      client.onNotification(Methods.TreeUpdate, (p) => trees.push(p));
      client.onNotification(Methods.ApprovalResolved, (p) => resolved.push(p));
      await daemon.notify(Methods.SessionState.method, {
        sessionId: SESSION,
        seq: 1,
        state: 'idle',
        turnId: TURN,
        stopReason: 'refusal_from_the_future',
        usage: { inputTokens: 1, outputTokens: 2 },
      });
      await daemon.notify(Methods.TreeUpdate.method, {
        sessionId: SESSION,
        seq: 2,
        turnId: TURN,
        nodes: [
          {
            id: 'n',
            parentId: 't',
            kind: 'tool',
            name: 'write_file',
            status: 'skipped_in_v9',
            depth: 0,
            approval: 'approved_by_policy_v9',
          },
        ],
      });
      await daemon.notify(Methods.ApprovalResolved.method, {
        sessionId: SESSION,
        seq: 3,
        turnId: TURN,
        toolCallId: 'c1',
        outcome: 'approved_by_policy_v9',
      });
      await settle();
      assert.deepEqual(errors, []);
      assert.equal((states[0] as { stopReason: string }).stopReason, 'end_turn');
      const node = (trees[0] as { nodes: { status: string; approval: string }[] }).nodes[0]!;
      assert.deepEqual([node.status, node.approval], ['error', 'rejected']);
      assert.equal((resolved[0] as { outcome: string }).outcome, 'rejected');
    });

    it('open enums stop at unknown strings: a wrongly typed value still fails the message', async () => {
      start();
      await client.initialize();
      const states: unknown[] = [];
      client.onNotification(Methods.SessionState, (p) => states.push(p));
      await daemon.notify(Methods.SessionState.method, {
        sessionId: SESSION,
        seq: 1,
        state: 'idle',
        stopReason: 42,
      });
      await settle();
      assert.deepEqual(states, []);
      assert.ok(errors[0] instanceof ProtocolValidationError);
    });

    it('ignores unknown notifications and _-prefixed extensions', async () => {
      start();
      await client.initialize();
      await daemon.notify('_vendor/telemetry', { anything: true });
      await daemon.notify('someday/newNotification', { sessionId: SESSION, seq: 1 });
      await settle();
      assert.deepEqual(errors, []);
      assert.equal(client.phase, 'ready');
      daemon.answers.set(Methods.ChatCancel.method, () => ({ cancelled: false }));
      assert.deepEqual(await client.request(Methods.ChatCancel, { sessionId: SESSION }), {
        cancelled: false,
      });
    });

    it('every listener of a notification gets it; a throwing listener is reported, not fatal', async () => {
      start();
      await client.initialize();
      const got: string[] = [];
      client.onNotification(Methods.ChatChunk, () => {
        throw new Error('broken view');
      });
      const sub = client.onNotification(Methods.ChatChunk, (p) => got.push(p.text));
      const chunk = (seq: number) => ({
        sessionId: SESSION,
        seq,
        turnId: TURN,
        nodeId: 't',
        text: `c${seq}`,
      });
      await daemon.notify(Methods.ChatChunk.method, chunk(1));
      await settle();
      sub.dispose();
      await daemon.notify(Methods.ChatChunk.method, chunk(2));
      await settle();
      assert.deepEqual(got, ['c1']);
      assert.deepEqual(
        errors.map((e) => e.message),
        ['broken view', 'broken view'],
      );
    });
  });

  describe('requests from the daemon', () => {
    it('answers an unknown request with -32601', async () => {
      start();
      await client.initialize();
      for (const method of ['_vendor/ping', 'workspace/unknownThing']) {
        const error = await rejection(daemon.request(method, {}));
        assert.ok(error instanceof ResponseError, method);
        assert.equal(error.code, ErrorCodes.MethodNotFound, method);
      }
    });

    it('an approval request is answered by the callback', async () => {
      const asked: ApprovalRequestParams[] = [];
      start({
        onApprovalRequest: (params) => {
          asked.push(params);
          return 'allowForSession';
        },
      });
      await client.initialize();
      const answer = await daemon.request(
        Methods.ApprovalRequest.method,
        approvalRequest('call_1'),
      );
      assert.deepEqual(answer, { decision: 'allowForSession' });
      assert.equal(asked[0]?.toolCallId, 'call_1');
      assert.equal(asked[0]?.category, 'write');
    });

    it('a cancelled approval answers -32800 and cancels the callback token', async () => {
      let callbackToken: { isCancellationRequested: boolean } | undefined;
      start({
        // A user who never answers.
        onApprovalRequest: (_params, token) => {
          callbackToken = token;
          return new Promise(() => undefined);
        },
      });
      await client.initialize();
      const source = new CancellationTokenSource();
      const pending = rejection(
        daemon.request(Methods.ApprovalRequest.method, approvalRequest('call_1'), source.token),
      );
      await settle();
      assert.equal(callbackToken?.isCancellationRequested, false);
      source.cancel();
      const error = await pending;
      assert.ok(error instanceof ResponseError);
      assert.equal(error.code, ErrorCodes.RequestCancelled);
      assert.equal(callbackToken?.isCancellationRequested, true);
    });

    it('an approval request with invalid params gets -32602 and never reaches the callback', async () => {
      let called = false;
      start({ onApprovalRequest: () => ((called = true), 'allow') });
      await client.initialize();
      const error = await rejection(
        daemon.request(Methods.ApprovalRequest.method, {
          ...approvalRequest('c1'),
          category: 'teleport',
        }),
      );
      assert.ok(error instanceof ResponseError);
      assert.equal(error.code, ErrorCodes.InvalidParams);
      assert.equal(called, false);
      assert.ok(errors[0] instanceof ProtocolValidationError);
    });

    it('without an approval callback, tool/approvalRequest is an unknown method (-32601)', async () => {
      start();
      await client.initialize();
      const init = await daemon.next(Methods.Initialize.method);
      assert.deepEqual(
        (init.params as { capabilities: unknown }).capabilities,
        { openEnums: {} },
        'approvals not declared',
      );
      const error = await rejection(
        daemon.request(Methods.ApprovalRequest.method, approvalRequest('c1')),
      );
      assert.ok(error instanceof ResponseError);
      assert.equal(error.code, ErrorCodes.MethodNotFound);
    });

    it('tool/execute runs the declared tool through the callback', async () => {
      start({
        tools: [EDITOR_TOOL],
        onToolExecute: (params) => ({
          content: `ran ${params.name} with ${JSON.stringify(params.args)}`,
        }),
      });
      await client.initialize();
      const answer = await daemon.request(Methods.ToolExecute.method, {
        sessionId: SESSION,
        turnId: TURN,
        nodeId: 'n1',
        toolCallId: 'call_9',
        name: 'get_selection',
        args: { uri: 'file:///a.ts' },
      });
      assert.deepEqual(answer, { content: 'ran get_selection with {"uri":"file:///a.ts"}' });
    });

    it('a tool callback returning a malformed result answers -32603, reported as the client’s fault', async () => {
      start({ tools: [EDITOR_TOOL], onToolExecute: () => ({ content: 42 }) as never });
      await client.initialize();
      const error = await rejection(
        daemon.request(Methods.ToolExecute.method, {
          sessionId: SESSION,
          turnId: TURN,
          nodeId: 'n1',
          toolCallId: 'call_9',
          name: 'get_selection',
          args: {},
        }),
      );
      assert.ok(error instanceof ResponseError);
      assert.equal(error.code, ErrorCodes.InternalError);
      assert.ok(errors[0] instanceof ProtocolValidationError && errors[0].origin === 'client');
    });
  });

  describe("the daemon's maxMessageBytes (transport-client-respects-max)", () => {
    const small = (): void => {
      daemon.answers.set(Methods.Initialize.method, () => ({
        ...DAEMON_INIT,
        capabilities: { ...DAEMON_INIT.capabilities, maxMessageBytes: 400 },
      }));
    };

    it('a request that would not fit is refused before anything is written; smaller ones still go', async () => {
      small();
      start();
      await client.initialize();
      const error = await rejection(
        client.request(Methods.ChatSend, { sessionId: SESSION, text: 'x'.repeat(400) }),
      );
      assert.ok(error instanceof MessageTooLargeError);
      assert.equal(error.maxMessageBytes, 400);
      assert.ok(error.bytes > 400);
      daemon.answers.set(Methods.ChatCancel.method, () => ({ cancelled: false }));
      await client.request(Methods.ChatCancel, { sessionId: SESSION });
      assert.deepEqual(daemon.methods(), ['initialize', 'initialized', 'chat/cancel']);
    });

    it('multi-byte text is measured in UTF-8 bytes, not characters', async () => {
      small();
      start();
      await client.initialize();
      // 170 UTF-16 code units, 340 bytes: fits when counted in characters, not in bytes.
      const error = await rejection(
        client.request(Methods.ChatSend, { sessionId: SESSION, text: '🌳'.repeat(85) }),
      );
      assert.ok(error instanceof MessageTooLargeError);
    });

    it('a tool result that would not fit is answered -32603 instead, and reported', async () => {
      small();
      start({ tools: [EDITOR_TOOL], onToolExecute: () => ({ content: 'y'.repeat(500) }) });
      await client.initialize();
      const error = await rejection(
        daemon.request(Methods.ToolExecute.method, {
          sessionId: SESSION,
          turnId: TURN,
          nodeId: 'n1',
          toolCallId: 'call_9',
          name: 'get_selection',
          args: {},
        }),
      );
      assert.ok(error instanceof ResponseError);
      assert.equal(error.code, ErrorCodes.InternalError);
      assert.match(error.message, /more than the daemon accepts \(400\)/);
      assert.ok(errors.some((e) => e instanceof MessageTooLargeError));
    });
  });
});
