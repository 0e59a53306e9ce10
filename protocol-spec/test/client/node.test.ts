import { strict as assert } from 'node:assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createMessageConnection,
  SocketMessageReader,
  SocketMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import { Methods } from '../../src/index.js';
import { connectArbor, parseSocketAddress, spawnDaemon } from '../../src/client/node.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = join(here, 'fixtures', 'stdioDaemon.ts');
const packageRoot = join(here, '..', '..');

async function until(condition: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

/** A socket daemon in this process answering initialize/shutdown; records what it got. */
function socketDaemon(): { server: Server; received: string[]; connections: MessageConnection[] } {
  const received: string[] = [];
  const connections: MessageConnection[] = [];
  const server = createServer((socket) => {
    const connection = createMessageConnection(
      new SocketMessageReader(socket),
      new SocketMessageWriter(socket),
    );
    connections.push(connection);
    connection.onRequest(Methods.Initialize.method, (params: { token?: string }) => {
      received.push(`initialize token=${params.token}`);
      return {
        protocolVersion: 1,
        serverInfo: { name: 'socket-daemon' },
        capabilities: {},
        clientId: 'sock_1',
      };
    });
    connection.onRequest(Methods.Shutdown.method, () => (received.push('shutdown'), null));
    connection.onNotification(Methods.Exit.method, () => {
      received.push('exit');
      socket.end();
    });
    connection.listen();
  });
  return { server, received, connections };
}

describe('client/node transports', () => {
  it('spawns a daemon over stdio, initializes it, and shuts it down so it exits', async () => {
    let logs = '';
    const arbor = await connectArbor(
      {
        spawn: {
          command: process.execPath,
          args: ['--import', 'tsx', fixture],
          cwd: packageRoot,
          onStderr: (text) => (logs += text),
        },
      },
      { clientInfo: { name: 'stdio-test' } },
    );
    const result = await arbor.client.initialize();
    assert.equal(result.serverInfo.name, 'fixture-daemon');
    assert.equal(result.clientId, `${arbor.process?.child.pid}:stdio-test`);
    await arbor.close();
    const status = await arbor.process!.exited;
    assert.deepEqual(status, { code: 0, signal: null }, 'exit made the daemon process end cleanly');
    assert.match(logs, /fixture daemon: listening on stdio/, 'the daemon log reaches onStderr');
  });

  it('a daemon command that does not exist is a rejected promise, not a crash', async () => {
    await assert.rejects(spawnDaemon({ command: 'arbor-no-such-command-xyz' }), /ENOENT/);
  });

  it('connects to a Unix socket and presents the token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbor-client-'));
    const path = join(dir, 'arbor.sock');
    const daemon = socketDaemon();
    await new Promise<void>((resolve) => daemon.server.listen(path, resolve));
    try {
      const arbor = await connectArbor({ socket: path }, { token: 't0ken' });
      assert.equal((await arbor.client.initialize()).clientId, 'sock_1');
      await arbor.close();
      await until(() => daemon.received.includes('exit'));
      assert.deepEqual(daemon.received, ['initialize token=t0ken', 'shutdown', 'exit']);
    } finally {
      daemon.connections.forEach((c) => c.dispose());
      daemon.server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('connects to 127.0.0.1:port', async () => {
    const daemon = socketDaemon();
    await new Promise<void>((resolve) => daemon.server.listen(0, '127.0.0.1', resolve));
    const { port } = daemon.server.address() as { port: number };
    try {
      const arbor = await connectArbor({ socket: `127.0.0.1:${port}` });
      assert.equal((await arbor.client.initialize()).serverInfo.name, 'socket-daemon');
      await arbor.close();
    } finally {
      daemon.connections.forEach((c) => c.dispose());
      daemon.server.close();
    }
  });

  it('parses socket addresses: host:port and bare ports are TCP, anything else a path', () => {
    assert.deepEqual(parseSocketAddress('127.0.0.1:7777'), { host: '127.0.0.1', port: 7777 });
    assert.deepEqual(parseSocketAddress('localhost:80'), { host: 'localhost', port: 80 });
    assert.deepEqual(parseSocketAddress('[::1]:9000'), { host: '::1', port: 9000 });
    assert.deepEqual(parseSocketAddress('7777'), { host: '127.0.0.1', port: 7777 });
    assert.deepEqual(parseSocketAddress('/run/user/1000/arbor.sock'), {
      path: '/run/user/1000/arbor.sock',
    });
    assert.deepEqual(parseSocketAddress('./arbor.sock'), { path: './arbor.sock' });
    assert.deepEqual(parseSocketAddress('\\\\.\\pipe\\arbor'), { path: '\\\\.\\pipe\\arbor' });
  });

  it('the common client modules import no Node-only module', () => {
    const dir = join(packageRoot, 'src', 'client');
    const common = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'node.ts');
    assert.ok(common.length >= 8, 'the check is not vacuous');
    const nodeOnly =
      /from\s+['"](node:[\w/]+|fs|net|child_process|os|path|stream|vscode-jsonrpc\/node)['"]/;
    const offenders = common.filter((f) => nodeOnly.test(readFileSync(join(dir, f), 'utf8')));
    assert.deepEqual(offenders, []);
  });
});
