/** Lifecycle and routing over an in-memory transport. */
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { ErrorCodes, Methods } from '@arbor/protocol';
import { ResponseError } from 'vscode-jsonrpc';
import { inMemoryDaemon } from './helpers/inMemoryDaemon.js';
import { assertValid } from './helpers/schemas.js';

async function rpcError(promise: Promise<unknown>): Promise<ResponseError<unknown>> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ResponseError, `expected a ResponseError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the request to fail');
}

describe('routing and lifecycle (in memory)', () => {
  it('initialize answers version 1, capabilities and a clientId', async () => {
    const daemon = inMemoryDaemon();
    const client = await daemon.connect({ initialize: false });
    const result = await client.request(Methods.Initialize, {
      protocolVersion: 7,
      clientInfo: { name: 't' },
    });
    assertValid(Methods.Initialize.result, result, 'initialize result');
    assert.equal(result.protocolVersion, 1);
    assert.equal(result.capabilities.maxMessageBytes, 8 * 1024 * 1024);
    assert.equal(result.capabilities.attach.replayRetention, 10_000);
    assert.equal(result.capabilities.testing, undefined, 'testing is off unless asked for');
    assert.match(result.clientId, /\S/);
  });

  it('requests before initialize get -32002', async () => {
    const client = await inMemoryDaemon().connect({ initialize: false });
    const error = await rpcError(client.request(Methods.SessionList, {}));
    assert.equal(error.code, ErrorCodes.ServerNotInitialized);
  });

  it('a second initialize gets -33002', async () => {
    const client = await inMemoryDaemon().connect();
    const error = await rpcError(client.request(Methods.Initialize, {}));
    assert.equal(error.code, ErrorCodes.AlreadyInitialized);
  });

  it('after shutdown every request gets -32600', async () => {
    const client = await inMemoryDaemon().connect();
    assert.equal(await client.request(Methods.Shutdown), null);
    const error = await rpcError(client.request(Methods.SessionList, {}));
    assert.equal(error.code, ErrorCodes.InvalidRequest);
  });

  it('unknown methods get -32601, and _arbor/testing is unknown unless testing is on', async () => {
    const client = await inMemoryDaemon().connect();
    assert.equal(
      (await rpcError(client.rpc.sendRequest('no/such', {}))).code,
      ErrorCodes.MethodNotFound,
    );
    const script = { version: 1, conversations: {} };
    assert.equal(
      (await rpcError(client.request(Methods.SetScript, { script }))).code,
      ErrorCodes.MethodNotFound,
    );

    const testing = await inMemoryDaemon({ testing: true }).connect();
    assert.deepEqual(await testing.request(Methods.SetScript, { script }), {});
  });

  it('invalid params get -32602 naming the field', async () => {
    const client = await inMemoryDaemon().connect();
    const error = await rpcError(
      client.request(Methods.SessionSetPermissionMode, { sessionId: 's', mode: 'yolo' }),
    );
    assert.equal(error.code, ErrorCodes.InvalidParams);
    assert.match(error.message, /session\/setPermissionMode/);
    assert.match(error.message, /mode/);
  });

  it('unknown notifications are ignored and the connection keeps working', async () => {
    const client = await inMemoryDaemon().connect();
    await client.rpc.sendNotification('no/such/notification', { x: 1 });
    await client.rpc.sendNotification('$/somethingElse', {});
    const result = await client.request(Methods.SessionList, {});
    assert.deepEqual(result.sessions, []);
  });

  it('a socket connection without the right token is refused with -33000 and closed', async () => {
    const daemon = inMemoryDaemon({ requiredToken: 'secret-token-secret-token-secret-token' });
    const client = await daemon.connect({ initialize: false });
    const error = await rpcError(client.request(Methods.Initialize, { token: 'wrong' }));
    assert.equal(error.code, ErrorCodes.Unauthorized);
    await client.closed;

    const good = await daemon.connect({ initialize: false });
    const result = await good.request(Methods.Initialize, {
      initializationOptions: { token: 'secret-token-secret-token-secret-token' },
    });
    assert.equal(result.protocolVersion, 1);
  });

  it('session/new checks the workspace root (-33009)', async () => {
    const client = await inMemoryDaemon().connect();
    for (const workspaceRoot of [
      'relative/dir',
      '/definitely/not/here',
      new URL(import.meta.url).pathname,
    ]) {
      const error = await rpcError(client.request(Methods.SessionNew, { workspaceRoot }));
      assert.equal(error.code, ErrorCodes.InvalidWorkspaceRoot, workspaceRoot);
    }
    const session = await client.request(Methods.SessionNew, { workspaceRoot: tmpdir() });
    assertValid(Methods.SessionNew.result, session);
  });
});
