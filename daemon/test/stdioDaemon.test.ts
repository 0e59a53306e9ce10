/**
 * Process-level: a spawned `arbor daemon --stdio`, spoken to with raw frames
 * written by hand (test/helpers/wire.ts), never with the daemon's own code.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCodes, MessageTooLargeData, Methods } from '@arbor/protocol';
import { assertValid, assertValidNotification } from './helpers/schemas.js';
import { frame, sleep, spawnStdioDaemon, type DaemonProcess } from './helpers/wire.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'arbor-stdio-'));

describe('stdio daemon (process)', function () {
  this.timeout(20_000);
  let daemon: DaemonProcess | undefined;

  afterEach(() => {
    daemon?.child.kill('SIGKILL');
    daemon = undefined;
  });

  async function started(extra: string[] = []): Promise<DaemonProcess> {
    daemon = spawnStdioDaemon(['--data-dir', tmp(), ...extra]);
    const init = await daemon.client.result(Methods.Initialize.method, {
      clientInfo: { name: 'wire-test' },
    });
    assertValid(Methods.Initialize.result, init);
    daemon.client.notify(Methods.Initialized.method, {});
    return daemon;
  }

  it('full lifecycle: initialize, shutdown, exit -> exit code 0; stdout holds only frames', async () => {
    const { client, exited, rawStdout, stderr } = await started();
    await client.result(Methods.SessionNew.method, { workspaceRoot: tmp() });
    assert.equal(await client.result(Methods.Shutdown.method), null);
    client.notify(Methods.Exit.method);
    assert.equal(await exited, 0);
    assert.deepEqual(client.received.garbage, []);
    assert.equal(client.received.leftover, 0, 'no stray bytes after the last frame');
    assert.ok(rawStdout().length > 0);
    assert.match(stderr(), /client-1: initialized/);
  });

  it('exit without shutdown -> exit code 1', async () => {
    const { client, exited } = await started();
    client.notify(Methods.Exit.method);
    assert.equal(await exited, 1);
  });

  it('requests before initialize get -32002; notifications before it are dropped', async () => {
    daemon = spawnStdioDaemon(['--data-dir', tmp()]);
    daemon.client.notify(Methods.Initialized.method, {});
    const early = await daemon.client.request(Methods.SessionList.method, {});
    assert.equal((early['error'] as { code: number }).code, ErrorCodes.ServerNotInitialized);
    const init = await daemon.client.request(Methods.Initialize.method, {});
    assert.ok(init['result']);
  });

  it('malformed JSON -> -32700 with id null, then the connection still works', async () => {
    const { client } = await started();
    client.write(frame('{"jsonrpc": "2.0", "id": 5, "method": '));
    const error = await client.response(null);
    assert.equal((error['error'] as { code: number }).code, ErrorCodes.ParseError);
    assert.ok(await client.result(Methods.SessionList.method, {}));
  });

  it('invalid envelopes -> -32600 (with the id when it is usable)', async () => {
    const { client } = await started();
    client.send({ jsonrpc: '1.0', id: 41, method: Methods.SessionList.method });
    const badVersion = await client.response(41);
    assert.equal((badVersion['error'] as { code: number }).code, ErrorCodes.InvalidRequest);
    client.send({ jsonrpc: '2.0', id: { nested: true }, method: Methods.SessionList.method });
    client.send({ jsonrpc: '2.0', id: 42 });
    const missingMethod = await client.response(42);
    assert.equal((missingMethod['error'] as { code: number }).code, ErrorCodes.InvalidRequest);
    const nulls = await waitForCount(
      () => client.received.messages.filter((m) => m['id'] === null).length,
      1,
    );
    assert.ok(nulls >= 1, 'an object id is answered with id null');
    client.write(frame('"just a string"'));
    assert.ok(await client.result(Methods.SessionList.method, {}));
  });

  it('a batch -> one -32600 with id null, and none of its requests run', async () => {
    const { client } = await started();
    client.write(
      frame([
        { jsonrpc: '2.0', id: 100, method: Methods.SessionList.method, params: {} },
        { jsonrpc: '2.0', id: 101, method: Methods.SessionList.method, params: {} },
      ]),
    );
    const error = await client.response(null);
    assert.equal((error['error'] as { code: number }).code, ErrorCodes.InvalidRequest);
    await client.result(Methods.SessionList.method, {});
    assert.equal(
      client.received.messages.filter((m) => m['id'] === 100 || m['id'] === 101).length,
      0,
    );
  });

  it('an oversized frame -> -33003 with id null, its body discarded, the next request works', async () => {
    const dir = tmp();
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ maxMessageBytes: 2048 }));
    const { client } = await started(['--config', config]);
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 77,
      method: Methods.SessionNew.method,
      params: { workspaceRoot: '/', title: 'x'.repeat(300) + '"' + 'y'.repeat(5000) },
    });
    const bytes = frame(big);
    // Streamed in pieces, so the daemon cannot wait for the whole body.
    for (let i = 0; i < bytes.length; i += 700) {
      client.write(bytes.subarray(i, i + 700));
      await sleep(2);
    }
    const error = await client.response(null);
    assert.equal((error['error'] as { code: number }).code, ErrorCodes.MessageTooLarge);
    const data = (error['error'] as { data?: unknown }).data;
    assertValid(MessageTooLargeData, data, 'the -33003 data');
    assert.equal((data as MessageTooLargeData).contentLength, bytes.length - bytes.indexOf('{'));
    const list = await client.result(Methods.SessionList.method, {});
    assert.deepEqual(list['sessions'], [], 'the oversized session/new never ran');
    assert.equal(client.received.messages.filter((m) => m['id'] === 77).length, 0);
  });

  it('frames split 1 byte at a time, and two frames in one write, are read correctly', async () => {
    const { client } = await started();
    const one = frame({
      jsonrpc: '2.0',
      id: 'split',
      method: Methods.SessionList.method,
      params: {},
    });
    for (const byte of one) {
      client.write(Buffer.from([byte]));
    }
    assert.ok((await client.response('split'))['result']);
    client.write(
      Buffer.concat([
        frame({ jsonrpc: '2.0', id: 'a', method: Methods.SessionList.method, params: {} }),
        frame({
          jsonrpc: '2.0',
          id: 'b',
          method: Methods.SessionList.method,
          params: { limit: 1 },
        }),
      ]),
    );
    assert.ok((await client.response('a'))['result']);
    assert.ok((await client.response('b'))['result']);
  });

  it('a non-ASCII body with its UTF-8 byte Content-Length round-trips intact', async () => {
    const { client } = await started();
    const title = 'Grüße 🌳 — 日本語';
    const session = await client.result(Methods.SessionNew.method, { workspaceRoot: tmp(), title });
    assert.equal(session['title'], title);
  });

  it('unknown method -> -32601; unknown and $/ notifications are ignored', async () => {
    const { client } = await started();
    const unknown = await client.request('nope/nothing', {});
    assert.equal((unknown['error'] as { code: number }).code, ErrorCodes.MethodNotFound);
    client.notify('nope/notification', { a: 1 });
    client.notify('$/unknownThing', {});
    assert.ok(await client.result(Methods.SessionList.method, {}));
  });

  it('$/cancelRequest: a request cancelled before it runs answers -32800; stray cancels are harmless', async () => {
    const { client } = await started();
    client.write(
      Buffer.concat([
        frame({ jsonrpc: '2.0', id: 900, method: Methods.SessionList.method, params: {} }),
        frame({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 900 } }),
      ]),
    );
    const cancelled = await client.response(900);
    assert.equal((cancelled['error'] as { code: number }).code, ErrorCodes.RequestCancelled);
    client.notify('$/cancelRequest', { id: 12345 });
    client.notify('$/cancelRequest', {});
    client.notify('$/cancelRequest');
    assert.ok(await client.result(Methods.SessionList.method, {}));
    // A request of that name is an unknown method like any other: it is answered.
    for (const params of [undefined, {}, null, [], { id: { bad: true } }]) {
      const answer = await client.request('$/cancelRequest', params, 2000);
      assert.equal((answer['error'] as { code: number }).code, ErrorCodes.MethodNotFound);
    }
  });

  it('$/setTrace on makes the daemon send $/logTrace', async () => {
    const { client } = await started();
    client.notify('$/setTrace', { value: 'messages' });
    await client.result(Methods.SessionList.method, {});
    await client.received.waitFor((m) => m['method'] === '$/logTrace');
  });

  it('session events carry seq and validate against the protocol', async () => {
    const { client } = await started();
    const { sessionId } = await client.result(Methods.SessionNew.method, { workspaceRoot: tmp() });
    await client.result(Methods.SessionSetPermissionMode.method, { sessionId, mode: 'auto' });
    const update = await client.received.waitFor(
      (m) => m['method'] === Methods.SessionUpdate.method,
    );
    assertValidNotification(Methods.SessionUpdate.method, update['params']);
    assert.equal((update['params'] as { seq: number }).seq, 1);
  });

  it('an unreadable header gets -32700 and the daemon closes the stream', async () => {
    const { client, exited } = await started();
    client.write('Content-Length: banana\r\n\r\n{}');
    const error = await client.response(null);
    assert.equal((error['error'] as { code: number }).code, ErrorCodes.ParseError);
    assert.equal(await exited, 1);
  });
});

async function waitForCount(count: () => number, atLeast: number): Promise<number> {
  for (let i = 0; i < 200 && count() < atLeast; i++) await sleep(10);
  return count();
}
