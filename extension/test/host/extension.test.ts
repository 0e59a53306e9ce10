/**
 * Runs inside a real VS Code extension host (code-server or Electron) with the
 * packaged extension installed and its daemon on the scripted provider.
 */
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ArborApi } from '../../src/extension.js';

const ID = 'arbor.arbor-vscode';

interface Manifest {
  contributes: {
    commands: { command: string }[];
    configuration: { properties: Record<string, { default?: unknown }> };
  };
}

function extension(): vscode.Extension<ArborApi> {
  const ext = vscode.extensions.getExtension<ArborApi>(ID);
  assert.ok(ext, `${ID} is not installed`);
  return ext;
}

async function until<T>(
  what: string,
  probe: () => T | undefined | PromiseLike<T | undefined>,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('Arbor in the extension host', () => {
  it('is installed and activates on startup', async () => {
    const ext = extension();
    await ext.activate();
    assert.equal(ext.isActive, true);
    assert.equal(typeof ext.exports.currentSessionId, 'function');
    console.log(
      `    VS Code ${vscode.version}, app host ${vscode.env.appHost}, Node ${process.version}`,
    );
  });

  it('registers every contributed command', async () => {
    const manifest = extension().packageJSON as Manifest;
    const registered = new Set(await vscode.commands.getCommands(true));
    const contributed = manifest.contributes.commands.map((c) => c.command);
    assert.deepEqual(
      contributed.filter((c) => !registered.has(c)),
      [],
    );
    for (const id of [
      'arbor.newChat',
      'arbor.cancel',
      'arbor.setPermissionMode',
      'arbor.setApiKey',
      'arbor.showLogs',
      'arbor.restartDaemon',
      'arbor.internal.currentSession',
      'arbor.chat.focus',
    ]) {
      assert.ok(registered.has(id), `${id} is not registered`);
    }
  });

  it('contributes its settings with their defaults', () => {
    const props = (extension().packageJSON as Manifest).contributes.configuration.properties;
    const config = vscode.workspace.getConfiguration('arbor');
    for (const key of [
      'nodePath',
      'daemon.socket',
      'daemon.dataDir',
      'daemon.args',
      'daemon.path',
      'trace.server',
      'model',
      'models',
      'permissionMode',
    ]) {
      assert.ok(props[`arbor.${key}`], `arbor.${key} is not contributed`);
      assert.deepEqual(config.inspect(key)?.defaultValue, props[`arbor.${key}`]!.default, key);
    }
    assert.equal(config.get('permissionMode'), 'default');
    // The runner points the daemon at the scripted provider through user settings.
    assert.deepEqual(config.get<string[]>('daemon.args')?.slice(0, 2), ['--provider', 'scripted']);
  });

  it('spawns the bundled daemon and opens a chat for the workspace folder', async () => {
    const session = await until('a session', () =>
      vscode.commands.executeCommand<string | undefined>('arbor.internal.currentSession'),
    );
    assert.match(session, /\S/);
    assert.equal(extension().exports.currentSessionId(), session);
  });

  it('reuses the empty chat on "New Chat"', async () => {
    const before = await vscode.commands.executeCommand<string>('arbor.internal.currentSession');
    await vscode.commands.executeCommand('arbor.newChat');
    assert.equal(await vscode.commands.executeCommand('arbor.internal.currentSession'), before);
  });

  it('restarts the daemon on "Restart Daemon" and reconnects to the same chat', async () => {
    const before = await vscode.commands.executeCommand<string>('arbor.internal.currentSession');
    await vscode.commands.executeCommand('arbor.restartDaemon');
    const after = await until('the session after a restart', () =>
      vscode.commands.executeCommand<string | undefined>('arbor.internal.currentSession'),
    );
    assert.equal(after, before);
  });

  it('shows logs in the "Arbor" output channel', async () => {
    await vscode.commands.executeCommand('arbor.showLogs');
  });
});
