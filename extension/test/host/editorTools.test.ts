/**
 * The editor tools as the daemon sees them: declared in `initialize` and
 * accepted (the daemon advertises `clientTools`). The UI test covers the
 * daemon calling them (open_file, get_selection, get_diagnostics, apply_edit).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ArborApi } from '../../src/extension.js';

async function connection(): Promise<NonNullable<ReturnType<ArborApi['connection']>>> {
  const ext = vscode.extensions.getExtension<ArborApi>('arbor.arbor-vscode');
  assert.ok(ext);
  const api = await ext.activate();
  const end = Date.now() + 30_000;
  for (;;) {
    const c = api.connection();
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
    ]);
  });
});
