/**
 * Process-level: `arbor daemon --stdio --model openai:gpt-4.1` with
 * OPENAI_API_KEY / OPENAI_BASE_URL pointing at the local fake. A canary key
 * must reach the fake (it is used) and appear nowhere else: not in any wire
 * message, not on stderr, not in any file of the data dir (log file, SQLite
 * database and its WAL).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
import { ARBOR_BIN, WireClient, type Json } from '../helpers/wire.js';
import { FakeApi } from './fakeApi.js';

const CANARY = `sk-canary-${Math.random().toString(36).slice(2)}-do-not-leak`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('daemon with a real provider (process, canary key)', function () {
  this.timeout(30_000);
  const fake = new FakeApi('openai');
  before(() => fake.start());
  after(() => fake.stop());

  it('--model openai:gpt-4.1 runs turns against OPENAI_BASE_URL; the key never leaks', async () => {
    let call = 0;
    fake.respond((request) => {
      call += 1;
      if (call === 1) return { fixture: 'unauthorized.json' };
      const messages = request.body['messages'] as { role: string; content: unknown }[];
      if (messages.at(-1)!.role === 'tool') return { fixture: 'final_answer.sse' };
      const firstUser = JSON.stringify(messages.find((m) => m.role === 'user')?.content);
      if (firstUser.includes('Summarize the notes')) return { fixture: 'subtask_answer.sse' };
      return { fixture: 'parallel_tool_calls.sse' };
    });

    const dataDir = mkdtempSync(join(tmpdir(), 'arbor-canary-'));
    const workspace = mkdtempSync(join(tmpdir(), 'arbor-canary-ws-'));
    const child = spawn(
      process.execPath,
      [
        ARBOR_BIN,
        'daemon',
        '--stdio',
        '--data-dir',
        dataDir,
        '--model',
        'openai:gpt-4.1',
        '--log-level',
        'debug',
      ],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, OPENAI_API_KEY: CANARY, OPENAI_BASE_URL: fake.baseURL },
      },
    );
    let stderr = '';
    const stdout: Buffer[] = [];
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const client = new WireClient(child.stdin, child.stdout);
    try {
      await client.result(Methods.Initialize.method, { clientInfo: { name: 'canary-test' } });
      client.notify(Methods.Initialized.method, {});
      const { sessionId } = (await client.result(Methods.SessionNew.method, {
        workspaceRoot: workspace,
        permissionMode: 'auto',
      })) as { sessionId: string };

      const idle = (turnId: string): Promise<Json> => client.turnEnd(turnId);

      // Turn 1: the fake rejects the key -> a clear error, without the key.
      const first = (await client.result(Methods.ChatSend.method, {
        sessionId,
        text: 'hello',
      })) as {
        turnId: string;
      };
      const failed = await idle(first.turnId);
      assert.equal(failed['stopReason'], 'error');
      assert.match(JSON.stringify(failed), /API key was rejected \(401/);

      // Turn 2: parallel tool calls and a subtask.
      const second = (await client.result(Methods.ChatSend.method, {
        sessionId,
        text: 'Read the notes, list the workspace and summarize the notes.',
      })) as { turnId: string };
      const done = await idle(second.turnId);
      assert.equal(done['stopReason'], 'end_turn', JSON.stringify(done));
      const summary = client
        .notifications(Methods.CostSummary.method)
        .map((m) => m['params'] as Json)
        .find((p) => p['turnId'] === second.turnId)!;
      assert.deepEqual(
        (summary['byModel'] as Json[]).map((m) => [m['provider'], m['model'], m['calls']]),
        [['openai', 'gpt-4.1', 3]],
      );
      assert.equal(typeof summary['cost'], 'number');
      const subtasks = client
        .notifications(Methods.TreeUpdate.method)
        .flatMap((m) => ((m['params'] as Json)['nodes'] as Json[]) ?? [])
        .filter((n) => n['kind'] === 'subtask');
      assert.ok(subtasks.length > 0, 'the subtask appears in the tree');

      await client.result(Methods.Shutdown.method);
      client.notify(Methods.Exit.method);
      assert.equal(await exited, 0);
    } finally {
      child.kill('SIGKILL');
    }

    // The key was used...
    assert.ok(fake.requests.every((r) => r.headers.authorization === `Bearer ${CANARY}`));
    assert.ok(fake.requests.length >= 4);
    // ...and appears nowhere else.
    assert.ok(!Buffer.concat(stdout).includes(CANARY), 'wire');
    assert.ok(!stderr.includes(CANARY), 'stderr');
    const files = filesUnder(dataDir);
    assert.ok(
      files.some((f) => f.endsWith('daemon.log')),
      `log file among ${files.join(', ')}`,
    );
    assert.ok(
      files.some((f) => f.includes('arbor.db')),
      'database file',
    );
    for (const file of files) assert.ok(!readFileSync(file).includes(CANARY), file);
    // Not even the masked form the fake echoes back.
    assert.ok(!stderr.includes('sk-canar'));
  });
});
