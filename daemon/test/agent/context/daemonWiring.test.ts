/**
 * The daemon as shipped (`arbor daemon --stdio`) keeps each turn's context in
 * its store: a later turn gets the earlier turn's tool work, and an offloaded
 * result's artifact is there after the daemon exits.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
import { openStore } from '../../../src/store/index.js';
import { spawnStdioDaemon, type DaemonProcess } from '../../helpers/wire.js';
import { numberedText } from './contextHarness.js';

describe('context engine: the daemon process stores each turn’s context', function () {
  this.timeout(60_000);
  let daemon: DaemonProcess | undefined;
  const dirs: string[] = [];
  afterEach(() => {
    daemon?.child.kill('SIGKILL');
    daemon = undefined;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('a read_file result over the offload threshold is an artifact, and the turn is history with its tool call', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'arbor-context-data-'));
    const workspace = mkdtempSync(join(tmpdir(), 'arbor-context-ws-'));
    dirs.push(dataDir, workspace);
    const big = numberedText('file', 40_000);
    writeFileSync(join(workspace, 'big.txt'), big);
    daemon = spawnStdioDaemon(['--data-dir', dataDir, '--provider', 'scripted']);
    const { client } = daemon;
    await client.result(Methods.Initialize.method, {});
    client.notify(Methods.Initialized.method, {});
    const session = await client.result(Methods.SessionNew.method, {
      workspaceRoot: workspace,
      permissionMode: 'auto',
    });
    const sessionId = session['sessionId'] as string;
    await client.result(Methods.SetScript.method, {
      sessionId,
      script: {
        version: 1,
        conversations: {
          'read it': [
            { toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] },
            { text: 'read' },
          ],
        },
      },
    });
    const sent = await client.result(Methods.ChatSend.method, { sessionId, text: 'read it' });
    assert.equal((await client.turnEnd(sent['turnId']))['stopReason'], 'end_turn');
    daemon.child.kill('SIGTERM');
    daemon = undefined;

    const store = openStore(dataDir);
    try {
      const history = store.context.of(sessionId).history(100_000);
      assert.deepEqual(
        history.map((m) => m.role),
        ['user', 'assistant', 'tool', 'assistant'],
      );
      const result = history[2]!.content;
      const id = /artifact (art_[\w-]+): read the rest/.exec(result)?.[1];
      assert.ok(id, result.slice(-300));
      assert.ok(store.context.of(sessionId).artifacts.get(id)!.content.includes(big.slice(-200)));
      // Another session cannot read it.
      assert.equal(store.context.of('another-session').artifacts.get(id), undefined);
    } finally {
      store.close();
    }
  });
});
