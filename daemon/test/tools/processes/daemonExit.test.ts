/**
 * Process-level: background processes do not outlive the daemon, stopped
 * or killed outright: one without a sandbox is killed by its watchdog
 * (orphanWatchdog.ts), a sandboxed one dies with bwrap (--die-with-parent).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
import { until } from '../../permissions/helpers.js';
import { spawnStdioDaemon, type DaemonProcess, type Json } from '../../helpers/wire.js';
import { requireSandbox } from '../sandboxSupport.js';
import { alive, processTree } from './procfs.js';

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

describe('background processes and the daemon', function () {
  this.timeout(30_000);
  let daemon: DaemonProcess | undefined;
  afterEach(() => {
    daemon?.child.kill('SIGKILL');
    daemon = undefined;
  });

  /** A daemon whose session started a shell with two sleeps; the host pids of all of it. */
  async function daemonWithProcess(sandbox: 'auto' | 'off'): Promise<number[]> {
    const config = join(tmp('arbor-config-'), 'config.json');
    writeFileSync(config, JSON.stringify({ sandbox: { mode: sandbox } }));
    daemon = spawnStdioDaemon([
      '--data-dir',
      tmp('arbor-data-'),
      '--provider',
      'scripted',
      '--config',
      config,
    ]);
    const { client } = daemon;
    await client.result(Methods.Initialize.method, {});
    client.notify(Methods.Initialized.method, {});
    const { sessionId } = await client.result(Methods.SessionNew.method, {
      workspaceRoot: tmp('arbor-ws-'),
      permissionMode: 'auto',
    });
    await client.result(Methods.SetScript.method, {
      sessionId,
      script: {
        version: 1,
        conversations: {
          '*': [
            {
              toolCalls: [
                { name: 'process_start', arguments: { command: 'sleep 300 & sleep 301; wait' } },
              ],
            },
            { text: 'started' },
          ],
        },
      },
    });
    const { turnId } = await client.result(Methods.ChatSend.method, { sessionId, text: 'go' });
    await client.turnEnd(turnId);
    const preview = client
      .notifications(Methods.TreeUpdate.method)
      .flatMap((m) => (m['params'] as Json)['nodes'] as Json[])
      .map((node) => node['resultPreview'])
      .find((text) => typeof text === 'string' && text.startsWith('p1: running'));
    const pid = Number(/pid (\d+)/.exec(String(preview))?.[1]);
    assert.ok(pid > 0, `no pid in ${String(preview)}\n${daemon.stderr()}`);
    const tree = processTree(pid);
    assert.ok(tree.length >= 3 && tree.every(alive), tree.join(' '));
    return tree;
  }

  it('a process without a sandbox ends with a daemon stopped by SIGTERM', async () => {
    const tree = await daemonWithProcess('off');
    daemon!.child.kill('SIGTERM');
    await daemon!.exited;
    await until(() => !tree.some(alive), 5000);
  });

  it('a process without a sandbox dies with a daemon killed outright', async () => {
    const tree = await daemonWithProcess('off');
    daemon!.child.kill('SIGKILL');
    await daemon!.exited;
    await until(() => !tree.some(alive), 5000);
  });

  it('a sandboxed process dies with a daemon killed outright', async function () {
    await requireSandbox(this);
    const tree = await daemonWithProcess('auto');
    daemon!.child.kill('SIGKILL');
    await daemon!.exited;
    await until(() => !tree.some(alive), 5000);
  });
});
