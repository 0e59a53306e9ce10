/**
 * A session's own MCP servers (McpHub.setSessionServers, what an ACP editor
 * passes): run for that session alone, replacing a configured server of the
 * same name there only, and stopped when the session is released.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveMcpConfig } from '../../../src/config/mcpConfig.js';
import { McpHub } from '../../../src/tools/mcp/mcpHub.js';
import { until } from '../../permissions/helpers.js';
import { fixtureServer, isRunning, tempDir } from './mcpHarness.js';

describe("MCP: a session's own servers", function () {
  this.timeout(30_000);
  let hub: McpHub | undefined;
  afterEach(async () => {
    await hub?.closeAll();
    hub = undefined;
  });

  it('run for that session only, replace the configured one of their name there, and stop with it', async () => {
    const pids = tempDir('arbor-mcp-pids-');
    const server = (name: string) => ({
      ...fixtureServer('fragileServer.mjs'),
      env: { PID_FILE: join(pids, `${name}.pid`) },
    });
    const pidOf = (name: string) => Number(readFileSync(join(pids, `${name}.pid`), 'utf8'));
    const logs: string[] = [];
    hub = new McpHub({
      config: resolveMcpConfig({ tools: server('configured') }, { initializeTimeoutMs: 15_000 }),
      clientVersion: '0.0.0-test',
      log: (level, message) => logs.push(`${level}: ${message}`),
    });
    const root = tempDir();
    hub.setSessionServers('own', root, { tools: server('replacing'), extra: server('extra') });

    const ownTools = await hub.toolsFor('own', root);
    assert.ok(ownTools.some((tool) => tool.name === 'mcp__extra__leak'));
    assert.deepEqual(
      hub.serversOf('own').map((s) => [s.origin, s.status]),
      [
        ['mcp:tools', 'ready'],
        ['mcp:extra', 'ready'],
      ],
    );
    assert.equal(existsSync(join(pids, 'configured.pid')), false, 'replaced: not started for it');
    assert.ok(logs.some((line) => /tools: the session's own server replaces/.test(line)));

    const otherTools = await hub.toolsFor('other', root);
    assert.ok(!otherTools.some((tool) => tool.name.startsWith('mcp__extra__')));
    assert.deepEqual(
      hub.serversOf('other').map((s) => s.origin),
      ['mcp:tools'],
    );
    const [configured, replacing, extra] = ['configured', 'replacing', 'extra'].map(pidOf);

    hub.release('own');
    await until(() => !isRunning(replacing!) && !isRunning(extra!), 5000);
    assert.ok(isRunning(configured!), "the other session's server goes on");
    assert.deepEqual(hub.serversOf('own'), []);
  });
});
