/**
 * Process-level: `arbor daemon --stdio` with MCP servers in its config file
 * lists their tools in tools/list (origin, permission, the config's
 * always-ask list naming an MCP tool), and its server processes end with it.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Methods, type ToolInfo } from '@arbor/protocol';
import { spawnStdioDaemon, type DaemonProcess } from '../../helpers/wire.js';
import { until } from '../../permissions/helpers.js';
import { fixtureServer, tempDir } from './mcpHarness.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('MCP in the daemon process', function () {
  this.timeout(30_000);
  let daemon: DaemonProcess | undefined;
  afterEach(() => {
    daemon?.child.kill('SIGKILL');
    daemon = undefined;
  });

  it("tools/list shows the config servers' tools; a server that ignores EOF still ends with the daemon", async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'fragile.pid');
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          fragile: {
            ...fixtureServer('fragileServer.mjs'),
            env: { PID_FILE: pidFile, LINGER: '1' },
          },
        },
        alwaysAsk: ['mcp__fragile__leak'],
      }),
    );
    daemon = spawnStdioDaemon(['--data-dir', tempDir(), '--config', config]);
    const { client } = daemon;
    await client.result(Methods.Initialize.method, {});
    client.notify(Methods.Initialized.method, {});
    const { sessionId } = (await client.result(Methods.SessionNew.method, {
      workspaceRoot: tempDir(),
      permissionMode: 'auto',
    })) as { sessionId: string };
    const { tools } = (await client.result(Methods.ToolsList.method, { sessionId })) as {
      tools: ToolInfo[];
    };
    const mcp = tools.filter((tool) => tool.origin === 'mcp:fragile');
    assert.deepEqual(
      mcp.map((tool) => [tool.name, tool.category, tool.permission]),
      [
        ['mcp__fragile__crash', 'read', 'run'],
        ['mcp__fragile__wait', 'read', 'run'],
        ['mcp__fragile__leak', 'read', 'ask'],
        ['mcp__fragile__grow', 'read', 'run'],
      ],
    );
    assert.ok(existsSync(pidFile));
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(isAlive(pid), 'the server runs while the daemon does');
    await client.result(Methods.Shutdown.method, null);
    client.notify(Methods.Exit.method, null);
    assert.equal(await daemon.exited, 0);
    await until(() => !isAlive(pid), 5000);
  });
});
