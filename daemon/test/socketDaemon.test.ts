/** Process-level: a spawned `arbor daemon --listen ...` with several raw-frame clients. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCodes, Methods } from '@arbor/protocol';
import { assertValid, assertValidNotification } from './helpers/schemas.js';
import {
  ARBOR_BIN,
  connectTo,
  sleep,
  spawnSocketDaemon,
  type Json,
  type SocketDaemon,
  type WireClient,
} from './helpers/wire.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'arbor-sock-'));

describe('socket daemon (process)', function () {
  this.timeout(20_000);
  const running: SocketDaemon[] = [];

  afterEach(() => {
    for (const d of running.splice(0)) d.child.kill('SIGKILL');
  });

  async function start(
    listen: (dir: string) => string,
  ): Promise<{ daemon: SocketDaemon; dataDir: string; token: string }> {
    const dataDir = tmp();
    const daemon = await spawnSocketDaemon(listen(dataDir), ['--data-dir', dataDir]);
    running.push(daemon);
    return { daemon, dataDir, token: readFileSync(join(dataDir, 'token'), 'utf8').trim() };
  }

  async function client(address: string, token: string): Promise<WireClient> {
    const { client } = await connectTo(address);
    const init = await client.result(Methods.Initialize.method, { token });
    assertValid(Methods.Initialize.result, init);
    client.notify(Methods.Initialized.method, {});
    return client;
  }

  it('Unix socket: mode 0600, token file mode 0600, data dir 0700', async () => {
    const { daemon, dataDir, token } = await start((dir) => join(dir, 'arbor.sock'));
    assert.equal(daemon.address, `unix:${join(dataDir, 'arbor.sock')}`);
    assert.equal(statSync(join(dataDir, 'arbor.sock')).mode & 0o777, 0o600);
    assert.equal(statSync(join(dataDir, 'token')).mode & 0o777, 0o600);
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    assert.match(token, /^[0-9a-f]{64}$/);
    const c = await client(daemon.address, token);
    assert.deepEqual((await c.result(Methods.SessionList.method, {}))['sessions'], []);
  });

  for (const [name, initParams] of [
    ['missing', {}],
    ['wrong', { token: 'not-the-token' }],
    ['wrong (initializationOptions)', { initializationOptions: { token: 'nope' } }],
  ] as const) {
    it(`a ${name} token is refused with -33000 and the connection is closed`, async () => {
      const { daemon } = await start(() => '127.0.0.1:0');
      const { client, socket } = await connectTo(daemon.address);
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      const answer = await client.request(Methods.Initialize.method, initParams);
      assert.equal((answer['error'] as { code: number }).code, ErrorCodes.Unauthorized);
      await closed;
    });
  }

  it('requests before a successful initialize are not served', async () => {
    const { daemon } = await start(() => '127.0.0.1:0');
    const { client } = await connectTo(daemon.address);
    const early = await client.request(Methods.SessionList.method, {});
    assert.equal((early['error'] as { code: number }).code, ErrorCodes.ServerNotInitialized);
  });

  it('TCP on 127.0.0.1:0 prints the bound port; the token may come in initializationOptions', async () => {
    const { daemon, token } = await start(() => '127.0.0.1:0');
    assert.match(daemon.address, /^127\.0\.0\.1:\d+$/);
    assert.notEqual(daemon.address, '127.0.0.1:0');
    const { client } = await connectTo(daemon.address);
    const init = await client.result(Methods.Initialize.method, {
      initializationOptions: { token },
    });
    assert.equal(init['protocolVersion'], 1);
  });

  it('refuses a non-loopback host', () => {
    const run = spawnSync(
      process.execPath,
      [ARBOR_BIN, 'daemon', '--listen', '0.0.0.0:4000', '--data-dir', tmp()],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(run.status, 2);
    assert.match(run.stderr, /only 127\.0\.0\.1 or a Unix socket path/);
  });

  it('replaces a stale socket file, but never a live one', async () => {
    const dir = tmp();
    const path = join(dir, 'stale.sock');
    // A socket file nobody listens on: bind, then close without unlinking.
    const stale = createServer();
    await new Promise<void>((resolve) => stale.listen(path, resolve));
    const handle = (stale as unknown as { _handle: { close(): void } })._handle;
    handle.close();
    const first = await spawnSocketDaemon(path, ['--data-dir', dir]);
    running.push(first);
    const token = readFileSync(join(dir, 'token'), 'utf8').trim();
    await client(first.address, token);
    const second = spawnSync(
      process.execPath,
      [ARBOR_BIN, 'daemon', '--listen', path, '--data-dir', dir],
      {
        encoding: 'utf8',
        timeout: 10_000,
      },
    );
    assert.equal(second.status, 2);
    assert.match(second.stderr, /already listening/);
    await client(first.address, token);
  });

  it('two clients on one session get identical events, no seq gaps; an observer cannot send', async () => {
    const { daemon, token } = await start((dir) => join(dir, 'a.sock'));
    const owner = await client(daemon.address, token);
    const watcher = await client(daemon.address, token);
    const { sessionId } = await owner.result(Methods.SessionNew.method, { workspaceRoot: tmp() });
    const attached = await watcher.result(Methods.SessionAttach.method, {
      sessionId,
      role: 'observer',
    });
    assert.equal(attached['role'], 'observer');
    const modes = ['plan', 'auto', 'default', 'auto', 'plan'];
    for (const mode of modes)
      await owner.result(Methods.SessionSetPermissionMode.method, { sessionId, mode });

    const updates = async (c: WireClient): Promise<Json[]> => {
      for (
        let i = 0;
        i < 200 && c.notifications(Methods.SessionUpdate.method).length < modes.length;
        i++
      )
        await sleep(10);
      return c.notifications(Methods.SessionUpdate.method);
    };
    const seen = await updates(owner);
    assert.deepEqual(await updates(watcher), seen);
    assert.deepEqual(
      seen.map((m) => (m['params'] as { seq: number }).seq),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(
      seen.map((m) => (m['params'] as { permissionMode: string }).permissionMode),
      modes,
    );
    for (const m of seen) assertValidNotification(m['method'] as string, m['params']);

    for (const [method, params] of [
      [Methods.ChatSend.method, { sessionId, text: 'hi' }],
      [Methods.ChatCancel.method, { sessionId }],
      [Methods.SessionSetPermissionMode.method, { sessionId, mode: 'auto' }],
    ] as const) {
      const refused = await watcher.request(method, params);
      assert.equal((refused['error'] as { code: number }).code, ErrorCodes.NotController, method);
    }
  });

  it('a client killed mid-session does not disturb the other; exit closes only its own connection', async () => {
    const { daemon, token } = await start(() => '127.0.0.1:0');
    const a = await connectTo(daemon.address);
    await a.client.result(Methods.Initialize.method, { token });
    const b = await client(daemon.address, token);
    const { sessionId } = await a.client.result(Methods.SessionNew.method, {
      workspaceRoot: tmp(),
    });
    await b.result(Methods.SessionAttach.method, { sessionId, role: 'controller' });
    // Half a frame, then the socket dies.
    a.socket.write('Content-Length: 500\r\n\r\n{"jsonrpc":"2.0",');
    a.socket.destroy();
    await sleep(50);
    await b.result(Methods.SessionSetPermissionMode.method, { sessionId, mode: 'auto' });
    const update = await b.received.waitFor((m) => m['method'] === Methods.SessionUpdate.method);
    assert.equal((update['params'] as { seq: number }).seq, 1);

    const c = await connectTo(daemon.address);
    await c.client.result(Methods.Initialize.method, { token });
    const closed = new Promise<void>((resolve) => c.socket.on('close', () => resolve()));
    await c.client.result(Methods.Shutdown.method);
    c.client.notify(Methods.Exit.method);
    await closed;
    assert.ok(
      await b.result(Methods.SessionList.method, {}),
      'the daemon and other clients live on',
    );
    assert.equal(daemon.child.exitCode, null);
  });

  it('a reconnecting client replays what it missed with sinceSeq', async () => {
    const { daemon, token } = await start(() => '127.0.0.1:0');
    const owner = await client(daemon.address, token);
    const { sessionId } = await owner.result(Methods.SessionNew.method, { workspaceRoot: tmp() });
    for (const mode of ['plan', 'auto', 'default']) {
      await owner.result(Methods.SessionSetPermissionMode.method, { sessionId, mode });
    }
    const late = await client(daemon.address, token);
    const attach = await late.result(Methods.SessionAttach.method, {
      sessionId,
      role: 'observer',
      sinceSeq: 1,
    });
    assert.equal(attach['replay'], 'events');
    const replayed = await late.received
      .waitFor(() => late.notifications(Methods.SessionUpdate.method).length === 2)
      .then(() => late.notifications(Methods.SessionUpdate.method));
    assert.deepEqual(
      replayed.map((m) => (m['params'] as { seq: number }).seq),
      [2, 3],
    );
    const attachIndex = late.received.messages.findIndex((m) => m['result'] === attach);
    const firstReplay = late.received.messages.indexOf(replayed[0]!);
    assert.ok(attachIndex < firstReplay, 'the attach response comes before the replayed events');
  });

  it('config errors are reported with the key path and exit code 2', () => {
    const dir = tmp();
    const config = join(dir, 'bad.json');
    writeFileSync(
      config,
      JSON.stringify({ logLevel: 'info', budgets: { maxDepht: 2 }, colour: 'red' }),
    );
    const run = spawnSync(
      process.execPath,
      [ARBOR_BIN, 'daemon', '--stdio', '--config', config, '--data-dir', dir],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(run.status, 2);
    assert.match(run.stderr, /budgets\.maxDepht: unknown key/);
    assert.match(run.stderr, /colour: unknown key/);
    assert.equal(run.stdout, '');
  });
});
