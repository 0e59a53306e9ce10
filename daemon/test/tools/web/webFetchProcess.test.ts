/**
 * Process-level: `arbor daemon --stdio` with `webFetch.privateNetworkAllowlist`
 * in its config fetches from the local test server (the bundled Readability,
 * linkedom and Turndown at work), still refuses other loopback addresses, and
 * keeps URL credentials out of every event and everything in its data dir.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
import { spawnStdioDaemon, type DaemonProcess, type Json } from '../../helpers/wire.js';
import { tempDir } from '../../permissions/helpers.js';
import { startFetchServer, type FetchServer } from './fetchServer.js';

const PASSWORD = 'fetch-pa55word-in-url';

/** Every file under `dir`, read whole. */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return { path, bytes: readFileSync(path) };
    });
}

describe('web_fetch in the daemon process', function () {
  this.timeout(30_000);
  let server: FetchServer;
  let daemon: DaemonProcess | undefined;

  beforeEach(async () => {
    server = await startFetchServer();
  });
  afterEach(async () => {
    daemon?.child.kill('SIGKILL');
    daemon = undefined;
    await server.close();
  });

  it('fetches what the config allows, refuses the rest, and stores no URL credentials', async () => {
    const dir = tempDir();
    const dataDir = tempDir('arbor-data-');
    const calls = [
      { id: 'c1', name: 'web_fetch', arguments: { url: `${server.origin}/article` } },
      { id: 'c2', name: 'web_fetch', arguments: { url: `http://[::1]:${server.port}/article` } },
      {
        id: 'c3',
        name: 'web_fetch',
        arguments: { url: `http://me:${PASSWORD}@127.0.0.1:${server.port}/auth` },
      },
    ];
    writeFileSync(
      join(dir, 'script.json'),
      JSON.stringify({
        version: 1,
        conversations: { go: [{ toolCalls: calls }, { text: 'done' }] },
      }),
    );
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        provider: 'scripted',
        script: join(dir, 'script.json'),
        webFetch: { privateNetworkAllowlist: ['127.0.0.1'] },
      }),
    );
    daemon = spawnStdioDaemon(['--data-dir', dataDir, '--config', join(dir, 'config.json')]);
    const { client } = daemon;
    await client.result(Methods.Initialize.method, {});
    client.notify(Methods.Initialized.method, {});
    const { sessionId } = (await client.result(Methods.SessionNew.method, {
      workspaceRoot: tempDir(),
      permissionMode: 'auto',
    })) as { sessionId: string };
    const { turnId } = await client.result(Methods.ChatSend.method, { sessionId, text: 'go' });
    await client.turnEnd(turnId);

    const nodes = new Map<string, Json>();
    for (const update of client.notifications(Methods.TreeUpdate.method)) {
      for (const node of (update['params'] as Json)['nodes'] as Json[])
        nodes.set(node['id'] as string, { ...nodes.get(node['id'] as string), ...node });
    }
    const fetches = [...nodes.values()].filter((node) => node['name'] === 'web_fetch');
    assert.equal(fetches.length, 3);
    const [article, loopback, withCredentials] = fetches;
    assert.equal(article!['status'], 'done');
    assert.match(
      article!['resultPreview'] as string,
      new RegExp(
        `^${server.origin}/article: HTTP 200 OK, text/html; charset=utf-8, \\d+ bytes\\n\\n# Release notes`,
      ),
    );
    assert.equal(loopback!['isError'], true);
    assert.match(loopback!['resultPreview'] as string, /^refused: ::1 is a loopback/);
    assert.equal(withCredentials!['status'], 'done');
    assert.match(withCredentials!['resultPreview'] as string, /authorization: Basic /);
    assert.match(withCredentials!['argsPreview'] as string, /me:\[redacted\]@127\.0\.0\.1/);
    assert.deepEqual(server.requests, ['/article', '/auth']);

    await client.result(Methods.Shutdown.method, null);
    client.notify(Methods.Exit.method, null);
    assert.equal(await daemon.exited, 0);
    const wire = client.received.messages.map((m) => JSON.stringify(m)).join('\n');
    assert.ok(!wire.includes(PASSWORD), 'no event carries the password');
    for (const file of filesUnder(dataDir)) {
      assert.ok(!file.bytes.includes(PASSWORD), `${file.path} holds the password`);
    }
  });
});
