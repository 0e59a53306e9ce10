/**
 * Process-level: an agent profile's data policy (agents/dataPolicy.ts). A
 * session whose profile keeps no tool results shows the whole turn live, but
 * nothing of a result reaches the data directory; session/load and a replay
 * after a restart show what was kept and the stored message says what was not.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Methods, type ExecutionTreeNode, type StoredMessage } from '@arbor/protocol';
import {
  commandCall,
  nodesSince,
  spawnConfiguredDaemon,
  workspaceWith,
} from '../helpers/configuredDaemon.js';
import type { DaemonProcess } from '../helpers/wire.js';
import { tempDir } from '../permissions/helpers.js';

/** What the command prints; its arguments do not hold it (the shell computes the number). */
const MARKER = 'printed-by-the-tool-4711';
const CONFIG = {
  agents: {
    private: { dataPolicy: { toolResults: false } },
    open: {},
  },
};
const SCRIPT = { echo: commandCall('echo printed-by-the-tool-$((4700 + 11))') };

/** Every byte the daemon keeps in its data directory (database, WAL, artifacts). */
function dataDirHolds(dataDir: string, text: string): boolean {
  const files = readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((entry) =>
    entry.isFile(),
  );
  return files.some((entry) =>
    readFileSync(join(entry.parentPath, entry.name)).includes(Buffer.from(text)),
  );
}

describe('agent profile data policy (spawned daemon)', function () {
  this.timeout(60_000);
  const daemons: DaemonProcess[] = [];
  afterEach(() => {
    for (const daemon of daemons.splice(0)) daemon.child.kill('SIGKILL');
  });

  async function start(dataDir: string): Promise<DaemonProcess> {
    const proc = spawnConfiguredDaemon(CONFIG, SCRIPT, dataDir);
    daemons.push(proc);
    await proc.client.result(Methods.Initialize.method, { capabilities: { openEnums: {} } });
    proc.client.notify(Methods.Initialized.method, {});
    return proc;
  }

  async function turn(
    proc: DaemonProcess,
    agent: string,
  ): Promise<{ sessionId: string; live: ExecutionTreeNode[] }> {
    const info = await proc.client.result(Methods.SessionNew.method, {
      workspaceRoot: workspaceWith(),
      permissionMode: 'auto',
      agent,
    });
    const sessionId = info['sessionId'] as string;
    const from = proc.client.received.messages.length;
    const { turnId } = (await proc.client.result(Methods.ChatSend.method, {
      sessionId,
      text: 'echo',
    })) as { turnId: string };
    const idle = await proc.client.turnEnd(turnId, 30_000, from);
    assert.equal(idle['stopReason'], 'end_turn', JSON.stringify(idle));
    return { sessionId, live: nodesSince(proc, from) };
  }

  it('toolResults: false — live clients see the result, the store keeps none of it and says so', async () => {
    const dataDir = tempDir('arbor-data-');
    const first = await start(dataDir);
    const { sessionId, live } = await turn(first, 'private');
    const liveCall = live.find((node) => node.name === 'run_command')!;
    assert.match(
      liveCall.resultPreview ?? '',
      new RegExp(MARKER),
      'the live node shows the result',
    );

    const loaded = await first.client.result(Methods.SessionLoad.method, { sessionId });
    const answer = (loaded['messages'] as StoredMessage[]).find((m) => m.role === 'assistant')!;
    assert.deepEqual(answer.omitted, ['toolResults']);
    assert.equal(answer.content, 'done', 'the answer is kept');
    const stored = answer.tree!.nodes.find((node) => node.name === 'run_command')!;
    assert.equal(stored.resultPreview, undefined);
    assert.equal(stored.output, undefined);
    assert.equal(stored.status, 'done');
    assert.match(stored.argsPreview ?? '', /echo/, 'the call itself is kept');
    first.child.kill('SIGKILL');
    await first.exited;
    assert.equal(dataDirHolds(dataDir, MARKER), false, 'no byte of the result is on disk');

    // After a restart, a replay of the session's events shows what was kept.
    const second = await start(dataDir);
    const from = second.client.received.messages.length;
    await second.client.result(Methods.SessionAttach.method, { sessionId, sinceSeq: 0 });
    const replayed = nodesSince(second, from);
    assert.ok(replayed.some((node) => node.name === 'run_command'));
    assert.equal(JSON.stringify(replayed).includes(MARKER), false);
  });

  it('a profile that keeps everything stores the result and claims no omission', async () => {
    const dataDir = tempDir('arbor-data-');
    const proc = await start(dataDir);
    const { sessionId } = await turn(proc, 'open');
    const loaded = await proc.client.result(Methods.SessionLoad.method, { sessionId });
    const answer = (loaded['messages'] as StoredMessage[]).find((m) => m.role === 'assistant')!;
    assert.equal(answer.omitted, undefined);
    const stored = answer.tree!.nodes.find((node) => node.name === 'run_command')!;
    assert.match(stored.resultPreview ?? '', new RegExp(MARKER));
  });
});
