/**
 * A trusted workspace's `.arbor/mcp.json` edited between turns takes effect
 * from the next turn: new servers start, removed ones stop, changed ones
 * restart, and the unchanged ones keep running as they were.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Methods, type ToolsListResult } from '@arbor/protocol';
import { script } from '../../agent/harness.js';
import { until } from '../../permissions/helpers.js';
import {
  fixtureServer,
  isRunning,
  mcpDaemon,
  newSession,
  send,
  tempDir,
  turnEnd,
  type McpDaemon,
} from './mcpHarness.js';

describe('MCP: the workspace file changes between turns', function () {
  this.timeout(30_000);
  let daemon: McpDaemon | undefined;
  afterEach(async () => {
    await daemon?.close();
    daemon = undefined;
  });

  it('the next turn gets the servers it declares now; unchanged ones keep running', async () => {
    daemon = mcpDaemon(
      script({ one: [{ text: '1' }], two: [{ text: '2' }], three: [{ text: '3' }] }),
      {},
      { workspaceFile: true },
    );
    const pids = tempDir('arbor-mcp-pids-');
    const server = (name: string, extra: Record<string, string> = {}) => ({
      ...fixtureServer('fragileServer.mjs'),
      env: { PID_FILE: join(pids, `${name}.pid`), ...extra },
    });
    const pidOf = (name: string) => Number(readFileSync(join(pids, `${name}.pid`), 'utf8'));
    const root = tempDir();
    mkdirSync(join(root, '.arbor'));
    const declare = (mcpServers: Record<string, unknown>, indent?: number) =>
      writeFileSync(join(root, '.arbor', 'mcp.json'), JSON.stringify({ mcpServers }, null, indent));
    // The servers whose tools the model was offered in that turn.
    const offered = (turn: number) => {
      const names = daemon!.provider.requests[turn]!.tools!.map((tool) => tool.name);
      const servers = names.filter((name) => name.startsWith('mcp__')).map((n) => n.split('__')[1]);
      return [...new Set(servers)].sort();
    };

    declare({ keep: server('keep'), gone: server('gone') });
    const client = await daemon.connect();
    const sessionId = await newSession(client, root);
    await turnEnd(client, await send(client, sessionId, 'one'));
    assert.deepEqual(offered(0), ['gone', 'keep']);
    const [keep, gone] = [pidOf('keep'), pidOf('gone')];

    // Reformatted too: the same definition of keep in other text is still the same.
    declare({ keep: server('keep'), fresh: server('fresh') }, 2);
    await turnEnd(client, await send(client, sessionId, 'two'));
    assert.deepEqual(offered(1), ['fresh', 'keep']);
    assert.equal(pidOf('keep'), keep, 'keep was not restarted');
    assert.ok(isRunning(keep));
    await until(() => !isRunning(gone), 5000);
    const fresh = pidOf('fresh');
    assert.ok(isRunning(fresh));
    const listed = (await client.request(Methods.ToolsList, { sessionId })) as ToolsListResult;
    assert.deepEqual(
      listed.servers?.map((s) => [s.origin, s.status]),
      [
        ['mcp:keep', 'ready'],
        ['mcp:fresh', 'ready'],
      ],
    );

    // A changed definition is a new server: the old process stops, a new one starts.
    declare({ keep: server('keep'), fresh: server('fresh', { MODE: 'changed' }) });
    await turnEnd(client, await send(client, sessionId, 'three'));
    assert.deepEqual(offered(2), ['fresh', 'keep']);
    assert.notEqual(pidOf('fresh'), fresh);
    await until(() => !isRunning(fresh), 5000);
    assert.equal(pidOf('keep'), keep);
    assert.ok(
      daemon.logs.some((line) => line.includes('fresh: its definition changed')),
      daemon.logs.join('\n'),
    );
  });
});
