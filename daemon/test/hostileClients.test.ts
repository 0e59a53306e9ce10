/**
 * Strangers and broken clients on a real socket (an in-process daemon on a
 * Unix socket, raw frames): what they send must cost a bounded amount, get a
 * clear answer, and leave every other client unaffected.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCodes, Methods } from '@arbor/protocol';
import type { ConnectionLimits } from '../src/server/connectionLimits.js';
import { serveSocket, type SocketServer } from '../src/server/socketTransport.js';
import {
  FakeRunner,
  inMemoryDaemon,
  until,
  type InMemoryDaemon,
} from './helpers/inMemoryDaemon.js';
import { connectTo, frame, sleep, type Json, type WireClient } from './helpers/wire.js';

const TOKEN = 'a'.repeat(64);

function errorCode(response: Json): number | undefined {
  return (response['error'] as { code?: number } | undefined)?.code;
}

function closed(socket: Socket): Promise<void> {
  if (socket.destroyed || socket.readableEnded) return Promise.resolve();
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

describe('hostile and broken clients on a socket', function () {
  this.timeout(30_000);
  let daemon: InMemoryDaemon;
  let server: SocketServer;
  let runner: FakeRunner;
  const sockets: Socket[] = [];

  async function start(limits: Partial<ConnectionLimits> = {}): Promise<void> {
    runner = new FakeRunner();
    daemon = inMemoryDaemon({ runner });
    daemon.context.connectionLimits = limits;
    const path = join(mkdtempSync(join(tmpdir(), 'arbor-sock-')), 'arbor.sock');
    server = await serveSocket(daemon.context, { kind: 'unix', path }, TOKEN);
  }

  async function open(): Promise<{ socket: Socket; client: WireClient }> {
    const address = `unix:${(server.address as { path: string }).path}`;
    const opened = await connectTo(address);
    sockets.push(opened.socket);
    return opened;
  }

  async function authenticated(): Promise<{ socket: Socket; client: WireClient }> {
    const opened = await open();
    await opened.client.result(Methods.Initialize.method, { token: TOKEN });
    opened.client.notify(Methods.Initialized.method, {});
    return opened;
  }

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await server.close();
    daemon.close();
  });

  it('a token of the wrong type, or two different tokens, is a wrong token: -33000, then closed', async () => {
    await start();
    const badTokens: object[] = [
      { token: 42 },
      { token: ['a'] },
      { token: { value: TOKEN } },
      { token: 'x'.repeat(4000) },
      { token: TOKEN, initializationOptions: { token: 'other' } },
      { initializationOptions: { token: 7 } },
    ];
    for (const params of badTokens) {
      const { socket, client } = await open();
      const answer = await client.request(Methods.Initialize.method, params);
      assert.equal(errorCode(answer), ErrorCodes.Unauthorized, JSON.stringify(params).slice(0, 80));
      await closed(socket);
    }
    const { client } = await authenticated();
    assert.ok(await client.result(Methods.SessionList.method, {}));
  });

  it('before the token: a large frame is refused and the connection closed', async () => {
    await start({ preAuthMaxMessageBytes: 64 * 1024 });
    const { socket, client } = await open();
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: Methods.Initialize.method,
      params: { token: TOKEN, clientInfo: { name: 'x'.repeat(100_000) } },
    });
    client.write(frame(big));
    const answer = await client.response(null);
    assert.equal(errorCode(answer), ErrorCodes.MessageTooLarge);
    await closed(socket);
    // The same frame after authenticating is fine (below maxMessageBytes).
    const ok = await authenticated();
    ok.client.write(frame(big.replace('"id":1', '"id":99')));
    assert.equal(errorCode(await ok.client.response(99)), ErrorCodes.AlreadyInitialized);
  });

  it('a connection that never authenticates is closed at the deadline; more than the cap are refused', async () => {
    await start({ authTimeoutMs: 300, maxUnauthenticated: 3 });
    const idle = await Promise.all([open(), open(), open()]);
    const extra = await open();
    await closed(extra.socket); // over the cap: closed at once
    await Promise.all(idle.map(({ socket }) => closed(socket))); // the deadline
    const authed = await authenticated(); // the slots are free again
    await sleep(500);
    assert.ok(await authed.client.result(Methods.SessionList.method, {}), 'an honest client stays');
  });

  it('a duplicate in-flight id gets -32600 with that id; the first request is answered', async () => {
    await start();
    const { client } = await authenticated();
    const request = { jsonrpc: '2.0', id: 7, method: Methods.SessionList.method, params: {} };
    // One write: the second arrives while the first is still in flight.
    client.write(Buffer.concat([frame(request), frame(request)]));
    await sleep(200);
    const answers = client.received.messages.filter((m) => m['id'] === 7);
    assert.equal(answers.length, 2);
    assert.equal(answers.filter((m) => errorCode(m) === ErrorCodes.InvalidRequest).length, 1);
    assert.equal(answers.filter((m) => m['result'] !== undefined).length, 1);
    // Once answered, the id may be used again.
    assert.ok(await client.result(Methods.SessionList.method, {}));
    client.write(frame({ ...request, id: 7 }));
    await sleep(100);
    assert.equal(client.received.messages.filter((m) => m['id'] === 7).length, 3);
  });

  it('a body nested thousands of levels deep is refused unread; the connection and others go on', async () => {
    await start();
    const { client } = await authenticated();
    const other = await authenticated();
    const deep = `{"jsonrpc":"2.0","id":3,"method":"session/list","params":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    client.write(frame(deep));
    const answer = await client.response(null);
    assert.equal(errorCode(answer), ErrorCodes.InvalidRequest);
    assert.match(String((answer['error'] as Json)['message']), /deeper than 256/);
    assert.ok(await client.result(Methods.SessionList.method, {}));
    assert.ok(await other.client.result(Methods.SessionList.method, {}));
  });

  it('an observer that reads nothing costs at most the cap, then gets session/detached and resumes by seq', async () => {
    const cap = 1024 * 1024;
    await start({ maxQueuedBytes: cap });
    const owner = await authenticated();
    const session = await owner.client.result(Methods.SessionNew.method, {
      workspaceRoot: mkdtempSync(join(tmpdir(), 'arbor-ws-')),
    });
    const sessionId = session['sessionId'] as string;
    const slow = await authenticated();
    await slow.client.result(Methods.SessionAttach.method, { sessionId, role: 'observer' });
    slow.socket.pause(); // reads nothing from here on

    await owner.client.result(Methods.ChatSend.method, { sessionId, text: 'stream a lot' });
    await until(() => runner.requests.length === 1);
    const chunk = 'y'.repeat(256 * 1024);
    const turn = runner.current;
    const nodeId = `${turn.turnId}-root`;
    // As a model streams: over time, so a client that reads keeps up.
    for (let i = 0; i < 40; i++) {
      turn.events.emit(Methods.ChatChunk, { turnId: turn.turnId, nodeId, text: chunk });
      await sleep(10);
    }
    runner.finish('done');
    await owner.client.received.waitFor(
      (m) =>
        m['method'] === Methods.SessionState.method && (m['params'] as Json)['state'] === 'idle',
      10_000,
    );

    slow.socket.resume();
    const notice = await slow.client.received.waitFor(
      (m) => m['method'] === Methods.SessionDetached.method,
    );
    assert.deepEqual(notice['params'], { sessionId, reason: 'slow_consumer' });
    const before = slow.client.received.messages;
    const seen = before
      .filter((m) => m['method'] === Methods.ChatChunk.method)
      .map((m) => (m['params'] as Json)['seq'] as number);
    // 10 MiB were streamed; what was buffered for the observer stayed near the cap.
    const bufferedBytes = seen.length * chunk.length;
    assert.ok(
      bufferedBytes <= cap + 2 * chunk.length + 1024 * 1024,
      `${bufferedBytes} bytes queued`,
    );
    assert.equal(
      before.at(-1)?.['method'],
      Methods.SessionDetached.method,
      'the notice comes last',
    );

    // It acts on the notice: re-attach from its last seq and get every missed event.
    const lastSeq = Math.max(
      ...before.map((m) => ((m['params'] as Json | undefined)?.['seq'] as number) ?? 0),
    );
    const from = slow.client.received.messages.length;
    const attached = await slow.client.result(Methods.SessionAttach.method, {
      sessionId,
      role: 'observer',
      sinceSeq: lastSeq,
    });
    assert.equal(attached['replay'], 'events');
    const idle = await slow.client.received.waitFor(
      (m) =>
        m['method'] === Methods.SessionState.method && (m['params'] as Json)['state'] === 'idle',
      10_000,
      from,
    );
    const replayed = slow.client.received.messages
      .slice(from)
      .filter((m) => m['method'] !== undefined)
      .map((m) => (m['params'] as Json)['seq'] as number);
    assert.deepEqual(
      replayed,
      Array.from({ length: replayed.length }, (_, i) => lastSeq + 1 + i),
      'no gap after re-attaching',
    );
    assert.equal((idle['params'] as Json)['seq'], attached['lastSeq']);
    assert.ok(await owner.client.result(Methods.SessionList.method, {}), 'the owner never noticed');
  });
});
