/**
 * The editor tools as the daemon sees them: declared in `initialize` and
 * accepted (the daemon advertises `clientTools`). The UI test covers the
 * daemon calling them (open_file, get_selection, get_diagnostics, apply_edit);
 * run_vscode_task runs here directly, on the tasks test/e2e/run.mjs writes to
 * the workspace's .vscode/tasks.json.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ArborApi } from '../../src/extension.js';

async function api(): Promise<ArborApi> {
  const ext = vscode.extensions.getExtension<ArborApi>('arbor.arbor-vscode');
  assert.ok(ext);
  return ext.activate();
}

async function connection(): Promise<NonNullable<ReturnType<ArborApi['connection']>>> {
  const arbor = await api();
  const end = Date.now() + 30_000;
  for (;;) {
    const c = arbor.connection();
    if (c) return c;
    if (Date.now() > end) throw new Error('the extension never connected to its daemon');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('Arbor editor tools', () => {
  it('runs with the test workspace folder open', () => {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(root, 'no workspace folder');
    assert.ok(fs.existsSync(path.join(root, 'hello.txt')), 'hello.txt is missing');
  });

  it('are declared to a daemon that accepts client tools', async () => {
    const c = await connection();
    assert.equal(c.serverName.length > 0, true);
    assert.equal(c.protocolVersion >= 1, true);
    assert.equal(c.clientTools, true, 'the daemon does not advertise clientTools');
    assert.deepEqual([...c.declaredTools].sort(), [
      'apply_edit',
      'get_diagnostics',
      'get_selection',
      'open_file',
      'run_vscode_task',
    ]);
  });
});

describe('run_vscode_task', () => {
  const root = (): string => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(folder, 'no workspace folder');
    return folder;
  };

  it('runs a tasks.json shell task and reports exit code 0', async () => {
    const marker = path.join(root(), 'task-ran.txt');
    fs.rmSync(marker, { force: true });
    const result = await (
      await api()
    ).executeEditorTool('run_vscode_task', {
      name: 'write-marker',
    });
    assert.equal(result.isError ?? false, false, result.content);
    assert.match(result.content, /^Task "write-marker" \(shell\) ended with exit code 0\./);
    assert.match(result.content, /terminal panel/);
    assert.equal(fs.readFileSync(marker, 'utf8').trim(), 'ran');
  });

  it('accepts "<source>: <name>"', async () => {
    const result = await (
      await api()
    ).executeEditorTool('run_vscode_task', {
      name: 'Workspace: write-marker',
    });
    assert.equal(result.isError ?? false, false, result.content);
    assert.match(result.content, /exit code 0/);
  });

  it('gives an error result with the exit code of a failing task', async () => {
    const result = await (
      await api()
    ).executeEditorTool('run_vscode_task', {
      name: 'fail-with-3',
    });
    assert.equal(result.isError, true, result.content);
    assert.match(result.content, /^Task "fail-with-3" \(shell\) ended with exit code 3\./);
  });

  it('lists the available tasks for an unknown name', async () => {
    const result = await (
      await api()
    ).executeEditorTool('run_vscode_task', {
      name: 'no-such-task',
    });
    assert.equal(result.isError, true);
    assert.match(result.content, /No VS Code task named "no-such-task"/);
    assert.match(result.content, /^- write-marker \(Workspace\)$/m);
    assert.match(result.content, /^- fail-with-3 \(Workspace\)$/m);
  });

  it('returns once a background task has started', async () => {
    const result = await (
      await api()
    ).executeEditorTool('run_vscode_task', {
      name: 'watch-long',
    });
    assert.equal(result.isError ?? false, false, result.content);
    assert.match(result.content, /^Task "watch-long" \(shell\) started in the background/);
    const running = vscode.tasks.taskExecutions.find((e) => e.task.name === 'watch-long');
    assert.ok(running, 'watch-long is not running');
    running.terminate();
  });

  it('terminates the task when the call is cancelled', async () => {
    const token = { isCancellationRequested: false };
    const started = Date.now();
    setTimeout(() => (token.isCancellationRequested = true), 1500);
    const result = await (
      await api()
    ).executeEditorTool('run_vscode_task', { name: 'sleep-long' }, token);
    assert.equal(result.isError, true, result.content);
    assert.match(result.content, /^Cancelled: Task "sleep-long" \(shell\) was terminated\./);
    assert.ok(Date.now() - started < 20_000, 'the cancellation took too long');
    const end = Date.now() + 10_000;
    while (vscode.tasks.taskExecutions.some((e) => e.task.name === 'sleep-long')) {
      if (Date.now() > end) throw new Error('sleep-long still runs after the cancellation');
      await new Promise((r) => setTimeout(r, 200));
    }
  });
});
