/**
 * A full disk, for real: the data dir on a small tmpfs that the turns fill
 * up. The turn that hits it ends with a clear reason, nothing committed
 * before is lost, and once space is back the next turn simply works.
 * Mounting needs root (CI runs as root); elsewhere the test says why it skips,
 * and under CI=true it fails instead.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
import { tryMount } from '../../reliability/diskFull.js';
import { spawnStdioDaemon, type DaemonProcess, type Json } from '../helpers/wire.js';

describe('persistence: a full disk', function () {
  this.timeout(60_000);
  let mountPoint: string | undefined;
  let daemon: DaemonProcess | undefined;

  afterEach(() => {
    daemon?.child.kill('SIGKILL');
    daemon = undefined;
    if (mountPoint) {
      try {
        execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
      } catch {
        // already gone
      }
      rmSync(mountPoint, { recursive: true, force: true });
      mountPoint = undefined;
    }
  });

  it('ends the turn that fills it with a clear reason, loses no committed turn, and recovers once space is back', async function () {
    mountPoint = mkdtempSync(join(tmpdir(), 'arbor-full-'));
    const why = tryMount(mountPoint, '4m');
    if (why !== undefined) {
      if (process.env['CI']) assert.fail(`cannot mount a tmpfs for the disk-full test: ${why}`);
      console.log(`      skipped: mounting a tmpfs needs root (${why})`);
      this.skip();
    }
    const dataDir = join(mountPoint, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    daemon = spawnStdioDaemon(['--data-dir', dataDir, '--provider', 'scripted']);
    const { client } = daemon;
    await client.result(Methods.Initialize.method, {});
    client.notify(Methods.Initialized.method, {});
    const session = await client.result(Methods.SessionNew.method, { workspaceRoot: tmpdir() });
    const sessionId = session['sessionId'] as string;
    // ~200 KB an answer: a 4 MB disk is full after a dozen turns.
    await client.result(Methods.SetScript.method, {
      sessionId,
      script: { version: 1, conversations: { '*': [{ text: 'word '.repeat(40_000) }] } },
    });

    const completed: string[] = [];
    let failed: Json | undefined;
    for (let i = 0; i < 40 && !failed; i++) {
      const sent = await client.request(Methods.ChatSend.method, { sessionId, text: `turn ${i}` });
      if (sent['error']) {
        failed = sent['error'] as Json;
        break;
      }
      const idle = await client.turnEnd((sent['result'] as Json)['turnId']);
      if (idle['stopReason'] === 'end_turn') completed.push(`turn ${i}`);
      else failed = idle['error'] as Json;
    }
    assert.ok(
      completed.length >= 3,
      `${completed.length} turns completed before the disk was full`,
    );
    assert.ok(failed, 'the disk filled up');
    assert.match(String(failed['message']), /disk .*is full.*Free some space/s);

    // Space is back.
    execFileSync('mount', ['-o', 'remount,size=64m', mountPoint]);
    const after = await client.result(Methods.ChatSend.method, { sessionId, text: 'after' });
    assert.equal((await client.turnEnd(after['turnId']))['stopReason'], 'end_turn');

    const loaded = await client.result(Methods.SessionLoad.method, { sessionId });
    const messages = loaded['messages'] as Json[];
    const answered = messages.filter(
      (m, i) => m['role'] === 'user' && messages[i + 1]?.['status'] === 'complete',
    );
    assert.deepEqual(
      answered.map((m) => m['content']),
      [...completed, 'after'],
      'every turn a client saw complete is stored complete',
    );
  });
});
