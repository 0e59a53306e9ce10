/**
 * A daemon that cannot start must not be restarted forever in silence:
 * one that rejects its configuration is reported at once (retrying cannot
 * fix it), one that keeps crashing is retried with growing delays and then given
 * up with a notification naming the reason. Runs first (files run sorted);
 * puts the runner's settings back and waits for the daemon before the others.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ArborApi } from '../../src/extension.js';

const ID = 'arbor.arbor-vscode';

async function api(): Promise<ArborApi> {
  const ext = vscode.extensions.getExtension<ArborApi>(ID);
  assert.ok(ext, `${ID} is not installed`);
  return ext.activate();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every connection state seen until `done` says stop (polled: the API has no event). */
async function watchStates(
  arbor: ArborApi,
  done: (state: { status: string; message?: string }) => boolean,
  ms: number,
): Promise<{ status: string; message?: string }[]> {
  const seen: { status: string; message?: string }[] = [];
  const end = Date.now() + ms;
  for (;;) {
    const state = arbor.connectionState();
    const last = seen.at(-1);
    if (!last || last.status !== state.status || last.message !== state.message) seen.push(state);
    if (done(state)) return seen;
    if (Date.now() > end)
      throw new Error(`timed out; states seen: ${JSON.stringify(seen.map((s) => s.status))}`);
    await sleep(100);
  }
}

describe('a daemon that cannot start', function () {
  this.timeout(120_000);
  const config = () => vscode.workspace.getConfiguration('arbor');
  let original: string | undefined;
  let dir: string;

  before(async () => {
    await api();
    original = config().inspect<string>('nodePath')?.globalValue;
    dir = mkdtempSync(join(tmpdir(), 'arbor-node-'));
  });

  after(async () => {
    await config().update('nodePath', original, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('arbor.restartDaemon');
    const arbor = await api();
    await watchStates(arbor, (s) => s.status === 'ready', 60_000);
    rmSync(dir, { recursive: true, force: true });
  });

  /** An executable at `arbor.nodePath`, then Restart Daemon. */
  async function useNode(name: string, script: string): Promise<string> {
    const file = join(dir, name);
    writeFileSync(file, `#!/bin/sh\n${script}\n`);
    chmodSync(file, 0o755);
    await config().update('nodePath', file, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('arbor.restartDaemon');
    return file;
  }

  it('a daemon that rejects its configuration (exit code 2) is reported at once with its reason, not retried', async () => {
    const arbor = await api();
    // Passes the version check, then fails as the daemon does on a bad config file.
    await useNode(
      'config-error-node',
      'if [ "$1" = "-p" ]; then echo 20.19.0; exit 0; fi\n' +
        'echo "arbor: config file /home/u/.arbor/config.json: unknown key \\"modle\\"" >&2\nexit 2',
    );
    const seen = await watchStates(arbor, (s) => s.status === 'failed', 20_000);
    assert.ok(
      seen.every((s) => s.status !== 'restarting'),
      `it was retried: ${JSON.stringify(seen)}`,
    );
    assert.match(seen.at(-1)!.message ?? '', /config\.json: unknown key "modle"/);
    await sleep(2500);
    assert.equal(arbor.connectionState().status, 'failed', 'something restarted it');
  });

  it('a daemon that crashes at every start is retried with growing delays, then given up with the reason', async () => {
    const arbor = await api();
    // Passes the version check, then fails like a daemon that cannot start.
    await useNode(
      'crashing-node',
      'if [ "$1" = "-p" ]; then echo 20.19.0; exit 0; fi\necho "boom: cannot start" >&2\nexit 1',
    );
    const seen = await watchStates(arbor, (s) => s.status === 'failed', 90_000);
    // Each wait is announced once ("Restarting in N s…"); the start after it shows no message.
    const delays = seen
      .map((s) => /Restarting in (\d+) s/.exec(s.message ?? '')?.[1])
      .filter((d) => d !== undefined)
      .map(Number);
    assert.deepEqual(delays, [1, 2, 4, 8, 16]);
    const final = seen.at(-1)!.message ?? '';
    assert.match(final, /exit code 1/);
    assert.match(final, /boom: cannot start/);
    assert.match(final, /stopped restarting/);
    await sleep(2500);
    assert.equal(arbor.connectionState().status, 'failed', 'it went on restarting');
  });
});
