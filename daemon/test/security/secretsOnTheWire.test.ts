/**
 * Process-level: the daemon's secrets (a provider key in its environment,
 * credentials in a `local:` model URL) never reach a client or the store,
 * whatever a command prints and whatever model string a client sends.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Methods, type ScriptInput } from '@arbor/protocol';
import { DATABASE_FILE_NAME } from '../../src/store/index.js';
import { FakeApi } from '../providers/fakeApi.js';
import { ARBOR_BIN, WireClient, type Json } from '../helpers/wire.js';
import { requireSandbox } from '../tools/sandboxSupport.js';

const KEY = `sk-test-${randomBytes(12).toString('hex')}`;
const PASSWORD = `pw-${randomBytes(12).toString('hex')}`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function startDaemon(args: string[], dataDir: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(
    process.execPath,
    [ARBOR_BIN, 'daemon', '--stdio', '--data-dir', dataDir, ...args],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, OPENAI_API_KEY: KEY, ...env },
    },
  );
  let stderr = '';
  const stdout: Buffer[] = [];
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.on('data', (c: Buffer) => stdout.push(c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const client = new WireClient(child.stdin, child.stdout);
  return {
    child,
    client,
    exited,
    stderr: () => stderr,
    stdout: () => Buffer.concat(stdout),
    async open(): Promise<void> {
      await client.result(Methods.Initialize.method, { clientInfo: { name: 'secrets-test' } });
      client.notify(Methods.Initialized.method, {});
    },
    async idle(turnId: string): Promise<Json> {
      const message = await client.received.waitFor(
        (m) =>
          m['method'] === Methods.SessionState.method &&
          (m['params'] as Json)['state'] === 'idle' &&
          (m['params'] as Json)['turnId'] === turnId,
        20_000,
      );
      return message['params'] as Json;
    },
    async stop(): Promise<void> {
      await client.result(Methods.Shutdown.method);
      client.notify(Methods.Exit.method);
      assert.equal(await exited, 0);
    },
  };
}

/** Neither secret on the wire, on stderr, nor in any byte of the data dir (log, SQLite, WAL). */
function assertNowhere(daemon: ReturnType<typeof startDaemon>, dataDir: string): void {
  for (const secret of [KEY, PASSWORD]) {
    assert.ok(!daemon.stdout().includes(secret), `wire: ${secret.slice(0, 3)}`);
    assert.ok(!daemon.stderr().includes(secret), 'stderr');
    for (const file of filesUnder(dataDir))
      assert.ok(!readFileSync(file).includes(secret), `${file} holds a secret`);
  }
}

describe('secrets never reach clients or the store (process)', function () {
  this.timeout(30_000);
  const scratch: string[] = [];
  const dir = (prefix: string): string => {
    const path = mkdtempSync(join(tmpdir(), prefix));
    scratch.push(path);
    return path;
  };
  after(() => {
    for (const path of scratch) rmSync(path, { recursive: true, force: true });
  });

  it('a key a command prints is redacted in tree/update and in the stored row; a local: model keeps no credentials', async () => {
    const dataDir = dir('arbor-secrets-data-');
    const workspace = dir('arbor-secrets-ws-');
    const script: ScriptInput = {
      version: 1,
      conversations: {
        leak: [
          {
            // Printed by the command, never written whole in its arguments.
            toolCalls: [
              {
                name: 'run_command',
                arguments: { command: `printf '%s%s\\n' '${KEY.slice(0, 8)}' '${KEY.slice(8)}'` },
              },
              // Any tool's result: its preview and the stored tree hold no known secret either.
              { name: 'read_file', arguments: { path: 'notes.txt' } },
            ],
          },
          { text: 'printed it' },
        ],
      },
    };
    const scriptFile = join(dir('arbor-secrets-script-'), 'script.json');
    writeFileSync(scriptFile, JSON.stringify(script));
    writeFileSync(join(workspace, 'notes.txt'), `deploy with ${KEY}\n`);
    const daemon = startDaemon(['--provider', 'scripted', '--script', scriptFile], dataDir);
    let sessionId: string;
    try {
      await daemon.open();
      const info = await daemon.client.result(Methods.SessionNew.method, {
        workspaceRoot: workspace,
        permissionMode: 'auto',
        model: `local:llama@http://alice:${PASSWORD}@127.0.0.1:9/v1`,
      });
      sessionId = info['sessionId'] as string;
      assert.equal(info['model'], 'local:llama@http://127.0.0.1:9/v1');

      const { turnId } = (await daemon.client.result(Methods.ChatSend.method, {
        sessionId,
        text: 'leak it',
      })) as { turnId: string };
      assert.equal((await daemon.idle(turnId))['stopReason'], 'end_turn');

      const finished = daemon.client
        .notifications(Methods.TreeUpdate.method)
        .flatMap((m) => (m['params'] as Json)['nodes'] as Json[])
        .filter((n) => n['name'] === 'run_command' && n['resultPreview'] !== undefined);
      assert.equal(finished.length, 1);
      assert.match(
        String(finished[0]!['resultPreview']),
        /^exit code 0\n(\[ran without .*\]\n)?\[redacted\]\n$/,
      );

      const list = await daemon.client.result(Methods.SessionList.method, {});
      const listed = (list['sessions'] as Json[]).find((s) => s['sessionId'] === sessionId)!;
      assert.equal(listed['model'], 'local:llama@http://127.0.0.1:9/v1');
      await daemon.stop();
    } finally {
      daemon.child.kill('SIGKILL');
    }

    const db = new Database(join(dataDir, DATABASE_FILE_NAME), { readonly: true });
    try {
      const row = db.prepare('SELECT model FROM sessions WHERE id = ?').get(sessionId) as {
        model: string;
      };
      assert.equal(row.model, 'local:llama@http://127.0.0.1:9/v1');
      const events = db
        .prepare(`SELECT params FROM events WHERE session_id = ? AND method = 'tree/update'`)
        .all(sessionId) as { params: string }[];
      assert.ok(
        events.some((e) => e.params.includes('[redacted]')),
        'the stored tree/update row',
      );
    } finally {
      db.close();
    }
    assertNowhere(daemon, dataDir);
  });

  it('the config reaches run_command: data dir hidden, allowEnv let through, the rest scrubbed', async function () {
    await requireSandbox(this);
    const dataDir = dir('arbor-secrets-wiring-');
    const configFile = join(dir('arbor-secrets-config-'), 'config.json');
    writeFileSync(configFile, JSON.stringify({ sandbox: { allowEnv: ['MY_DEPLOY_TOKEN'] } }));
    const command =
      `ls -a '${dataDir}'; test -n "$MY_DEPLOY_TOKEN" && echo has-deploy-token; ` +
      `test -z "$OPENAI_API_KEY" && echo no-openai-key`;
    const scriptFile = join(dir('arbor-secrets-script-'), 'script.json');
    writeFileSync(
      scriptFile,
      JSON.stringify({
        version: 1,
        conversations: {
          '*': [{ toolCalls: [{ name: 'run_command', arguments: { command } }] }, { text: 'done' }],
        },
      } satisfies ScriptInput),
    );
    const daemon = startDaemon(
      ['--provider', 'scripted', '--script', scriptFile, '--config', configFile],
      dataDir,
      { MY_DEPLOY_TOKEN: 'deploy-0123456789abcdef' },
    );
    try {
      await daemon.open();
      const info = await daemon.client.result(Methods.SessionNew.method, {
        workspaceRoot: dir('arbor-secrets-ws-'),
        permissionMode: 'auto',
      });
      const { turnId } = (await daemon.client.result(Methods.ChatSend.method, {
        sessionId: info['sessionId'],
        text: 'go',
      })) as { turnId: string };
      await daemon.idle(turnId);
      const [node] = daemon.client
        .notifications(Methods.TreeUpdate.method)
        .flatMap((m) => (m['params'] as Json)['nodes'] as Json[])
        .filter((n) => n['name'] === 'run_command' && n['resultPreview'] !== undefined);
      // The data dir holds arbor.db and logs/ on the host; the command sees it empty.
      assert.equal(
        node?.['resultPreview'],
        'exit code 0\n.\n..\nhas-deploy-token\nno-openai-key\n',
      );
      await daemon.stop();
    } finally {
      daemon.child.kill('SIGKILL');
    }
  });

  it('a local: model URL credentials reach the server (as Basic auth) and nothing else', async () => {
    const fake = await new FakeApi('openai').start();
    const dataDir = dir('arbor-secrets-local-');
    const daemon = startDaemon([], dataDir);
    try {
      fake.replyWith('text.sse');
      await daemon.open();
      const model = `local:llama@${fake.baseURL.replace('http://', `http://alice:${PASSWORD}@`)}`;
      const info = await daemon.client.result(Methods.SessionNew.method, {
        workspaceRoot: dir('arbor-secrets-ws-'),
        permissionMode: 'auto',
        model,
      });
      assert.equal(info['model'], `local:llama@${fake.baseURL}`);
      const { turnId } = (await daemon.client.result(Methods.ChatSend.method, {
        sessionId: info['sessionId'],
        text: 'hello',
      })) as { turnId: string };
      const idle = await daemon.idle(turnId);
      assert.equal(idle['stopReason'], 'end_turn', JSON.stringify(idle));
      await daemon.stop();
    } finally {
      daemon.child.kill('SIGKILL');
      await fake.stop();
    }
    assert.ok(fake.requests.length >= 1);
    const basic = `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`;
    for (const request of fake.requests) assert.equal(request.headers.authorization, basic);
    assertNowhere(daemon, dataDir);
  });
});
