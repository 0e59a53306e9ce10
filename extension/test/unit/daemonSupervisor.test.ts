/**
 * The supervisor against daemons that fail as real ones do (stand-in `node`
 * scripts, and the real daemon killed mid-run), with `vscode` replaced by
 * test/fixtures/fakeVscode.mjs and the restart waits shortened: it must give
 * up once with an actionable notification, report a configuration error at
 * once, and say why a live daemon was lost.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

type Fake = typeof import('../fixtures/fakeVscode.js');
type DaemonSupervisor = import('../../src/daemon/daemonSupervisor.js').DaemonSupervisor;
type SupervisorClass = typeof import('../../src/daemon/daemonSupervisor.js').DaemonSupervisor;

const extension = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const repo = resolve(extension, '..');

type State = DaemonSupervisor['state'];

describe('the daemon supervisor', function () {
  this.timeout(30_000);
  let dir: string;
  let supervisor: DaemonSupervisor | undefined;
  const log: string[] = [];
  let vscode: Fake;
  let Supervisor: SupervisorClass;

  before(async () => {
    // `vscode` resolves to the stand-in for everything imported from here on.
    register(new URL('../fixtures/vscodeHooks.mjs', import.meta.url));
    vscode = (await import('vscode' as string)) as Fake;
    Supervisor = (await import('../../src/daemon/daemonSupervisor.js')).DaemonSupervisor;
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'arbor-supervisor-'));
    vscode.errors.length = 0;
    log.length = 0;
    for (const key of Object.keys(vscode.settings)) delete vscode.settings[key];
  });
  afterEach(async () => {
    await supervisor?.stop();
    supervisor?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A supervisor on the repository's daemon, waits of 10-40 ms. */
  function start(): { states: State[]; done: (status: string) => Promise<State> } {
    const output = {
      appendLine: (line: string) => log.push(line),
      append: (text: string) => log.push(text),
      show: () => undefined,
    };
    supervisor = new Supervisor(
      vscode.Uri.file(join(extension, 'no-dist')) as never,
      output as never,
      async () => ({ options: {}, env: {} }),
      () => undefined,
      { backoff: { baseMs: 10, maxMs: 40 } },
    );
    const states: State[] = [];
    const waiters: { status: string; resolve: (s: State) => void }[] = [];
    supervisor.onDidChangeState((state) => {
      states.push(state);
      for (const w of waiters.filter((w) => w.status === state.status)) w.resolve(state);
    });
    void supervisor.start();
    return {
      states,
      done: (status) => new Promise((resolve) => waiters.push({ status, resolve })),
    };
  }

  /** A stand-in `node`: passes the version check, then runs `script` as the daemon. */
  function fakeNode(script: string): string {
    const file = join(dir, 'node');
    writeFileSync(
      file,
      `#!/bin/sh\nif [ "$1" = "-p" ]; then echo 20.19.0; exit 0; fi\n${script}\n`,
    );
    chmodSync(file, 0o755);
    // An entry that exists (the daemon runs in its folder); the stand-in ignores it.
    vscode.settings['daemon.path'] = join(repo, 'daemon', 'bin', 'arbor.js');
    return file;
  }

  it('retries a daemon that dies at startup with growing waits, then gives up once with Show Log / Retry / Open Settings', async () => {
    vscode.settings['nodePath'] = fakeNode('echo "boom: no database" >&2; exit 1');
    const { states, done } = start();
    const failed = await done('failed');
    const waits = states.filter((s) => /Restarting in/.test(s.message ?? '')).length;
    assert.equal(waits, 5, JSON.stringify(states));
    assert.match(failed.message ?? '', /exit code 1\): boom: no database\..*stopped restarting/);
    assert.deepEqual(vscode.errors, [
      [`Arbor: ${failed.message}`, 'Show Log', 'Retry', 'Open Settings'],
    ]);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(supervisor!.state.status, 'failed', 'it went on restarting');
  });

  it('reports a daemon that rejects its configuration (exit code 2) at once, with its reason', async () => {
    vscode.settings['nodePath'] = fakeNode(
      'echo "arbor: config file /u/.arbor/config.json: unknown key modle" >&2; exit 2',
    );
    const { states, done } = start();
    const failed = await done('failed');
    assert.deepEqual(
      states.map((s) => s.status),
      ['starting', 'failed'],
    );
    assert.equal(
      failed.message,
      'The Arbor daemon refused to start: config file /u/.arbor/config.json: unknown key modle',
    );
    assert.equal(vscode.errors.length, 1);
  });

  it('says why a running daemon was lost, then starts it again', async () => {
    vscode.settings['nodePath'] = process.execPath;
    vscode.settings['daemon.path'] = join(repo, 'daemon', 'bin', 'arbor.js');
    vscode.settings['daemon.dataDir'] = join(dir, 'data');
    vscode.settings['daemon.args'] = ['--provider', 'scripted', '--script', writeScript(dir)];
    const { done } = start();
    await done('ready');
    const lost = new Promise<string>((r) => supervisor!.onDidDisconnect(({ reason }) => r(reason)));
    process.kill(supervisor!.pid!, 'SIGKILL');
    assert.equal(await lost, 'The Arbor daemon stopped unexpectedly (killed by SIGKILL).');
    await done('ready');
    assert.equal(vscode.errors.length, 0);
  });

  it('says an attached daemon went away, and tries to attach again', async () => {
    const dataDir = join(dir, 'data');
    const daemon = await socketDaemon(dir, dataDir);
    vscode.settings['daemon.socket'] = daemon.socket;
    vscode.settings['daemon.dataDir'] = dataDir;
    const { states, done } = start();
    await done('ready');
    const lost = new Promise<string>((r) => supervisor!.onDidDisconnect(({ reason }) => r(reason)));
    daemon.kill();
    assert.equal(await lost, `The connection to the Arbor daemon at ${daemon.socket} was lost.`);
    await done('failed'); // nothing listens any more: it gives up after its attempts
    assert.ok(states.some((s) => s.status === 'restarting'));
  });
});

/** `arbor daemon --listen <unix socket>` on `dataDir`, once it listens. */
async function socketDaemon(
  dir: string,
  dataDir: string,
): Promise<{ socket: string; kill(): void }> {
  const socket = join(dir, 'arbor.sock');
  const child = spawn(
    process.execPath,
    [
      ...[join(repo, 'daemon', 'bin', 'arbor.js'), 'daemon', '--listen', socket],
      ...['--data-dir', dataDir, '--provider', 'scripted', '--script', writeScript(dir)],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening: ${stderr}`)), 15_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/listening on/.test(stderr)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { socket, kill: () => child.kill('SIGKILL') };
}

function writeScript(dir: string): string {
  const file = join(dir, 'script.json');
  writeFileSync(file, JSON.stringify({ version: 1, conversations: { '*': [{ text: 'ok' }] } }));
  return file;
}
