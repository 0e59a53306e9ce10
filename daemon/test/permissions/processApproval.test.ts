/**
 * Process-level: a spawned `arbor daemon --stdio --provider scripted` asks a
 * raw-frame client before a write; the client allows; the file changes on disk.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApprovalRequestParams, Methods } from '@arbor/protocol';
import { spawnStdioDaemon, type DaemonProcess } from '../helpers/wire.js';
import { tempDir } from './helpers.js';

describe('approvals (spawned daemon)', function () {
  this.timeout(20_000);
  let daemon: DaemonProcess | undefined;
  afterEach(() => {
    daemon?.child.kill('SIGKILL');
    daemon = undefined;
  });

  async function start(ws: string, extra: string[] = []): Promise<DaemonProcess> {
    const scriptFile = join(tempDir('arbor-script-'), 'script.json');
    writeFileSync(
      scriptFile,
      JSON.stringify({
        version: 1,
        conversations: {
          'write hello': [
            {
              toolCalls: [
                {
                  id: 'call_1',
                  name: 'write_file',
                  arguments: { path: 'hello.txt', content: 'hi from arbor' },
                },
              ],
            },
            { text: 'written' },
          ],
        },
      }),
    );
    daemon = spawnStdioDaemon([
      '--provider',
      'scripted',
      '--script',
      scriptFile,
      '--data-dir',
      tempDir('arbor-data-'),
      ...extra,
    ]);
    await daemon.client.result(Methods.Initialize.method, { capabilities: { approvals: {} } });
    daemon.client.notify(Methods.Initialized.method, {});
    writeFileSync(join(ws, 'hello.txt'), 'before');
    return daemon;
  }

  it('a write asks, the client allows, the file changes on disk', async () => {
    const ws = tempDir();
    const { client } = await start(ws);
    const session = await client.result(Methods.SessionNew.method, { workspaceRoot: ws });
    const sessionId = session['sessionId'] as string;
    const { turnId } = (await client.result(Methods.ChatSend.method, {
      sessionId,
      text: 'write hello',
    })) as { turnId: string };
    const ask = await client.received.waitFor(
      (m) => m['method'] === Methods.ApprovalRequest.method && 'id' in m,
    );
    const params = ApprovalRequestParams.parse(ask['params']);
    assert.equal(params.name, 'write_file');
    assert.equal(params.turnId, turnId);
    assert.equal(readFileSync(join(ws, 'hello.txt'), 'utf8'), 'before');
    client.send({ jsonrpc: '2.0', id: ask['id'], result: { decision: 'allow' } });
    await client.received.waitFor(
      (m) =>
        m['method'] === Methods.SessionState.method &&
        (m['params'] as { state: string }).state === 'idle',
    );
    assert.equal(readFileSync(join(ws, 'hello.txt'), 'utf8'), 'hi from arbor');
    const resolved = client.notifications(Methods.ApprovalResolved.method)[0]!['params'] as Record<
      string,
      unknown
    >;
    assert.equal(resolved['outcome'], 'approved');
    assert.equal(resolved['decision'], 'allow');
  });

  it('a config naming an unknown always-ask tool stops the daemon at startup', async () => {
    const dir = tempDir('arbor-config-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ alwaysAsk: ['write_fiel'] }));
    const proc = spawnStdioDaemon([
      '--config',
      join(dir, 'config.json'),
      '--data-dir',
      tempDir('arbor-data-'),
    ]);
    const code = await proc.exited;
    assert.notEqual(code, 0);
    assert.match(proc.stderr(), /alwaysAsk names unknown tools: write_fiel/);
  });
});
