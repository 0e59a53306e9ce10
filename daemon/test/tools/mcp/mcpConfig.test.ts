/** MCP servers in the daemon config and in a workspace's .arbor/mcp.json: validation and merging. */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigFile } from '../../../src/config/configSchema.js';
import { formatIssues, resolveConfig } from '../../../src/config/daemonConfig.js';
import { resolveMcpConfig } from '../../../src/config/mcpConfig.js';
import { workspaceMcpServers } from '../../../src/tools/mcp/mcpServerSources.js';
import { tempDir } from './mcpHarness.js';

function configErrors(mcpServers: unknown): string {
  const parsed = ConfigFile.safeParse({ mcpServers });
  assert.equal(parsed.success, false, 'the config is refused');
  return formatIssues(parsed.error!);
}

describe('MCP config', () => {
  it('accepts stdio and Streamable HTTP servers as users write them; defaults fill the settings', () => {
    const file = ConfigFile.parse({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'server'], env: { A: 'b' }, cwd: 'sub' },
        web: { type: 'http', url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'x' } },
      },
      mcp: { callTimeoutMs: 5000 },
    });
    const { mcp } = resolveConfig(file, {}, {});
    assert.deepEqual(Object.keys(mcp.servers), ['files', 'web']);
    assert.equal(mcp.callTimeoutMs, 5000);
    assert.equal(mcp.initializeTimeoutMs, 30_000);
    assert.equal(mcp.workspaceFile, false);
    assert.equal(mcp.emitProgress, true);
  });

  it('says which key is wrong, and why', () => {
    assert.equal(
      configErrors({ a: { args: ['x'] } }),
      '  mcpServers.a: needs command (a stdio server) or url (a Streamable HTTP server)',
    );
    assert.equal(
      configErrors({ a: { command: 'x', headers: {} } }),
      '  mcpServers.a.headers: only for a Streamable HTTP server',
    );
    assert.equal(
      configErrors({ a: { url: 'http://127.0.0.1/mcp', env: {} } }),
      '  mcpServers.a.env: only for a stdio server',
    );
    assert.equal(
      configErrors({ a: { command: 'x', type: 'http' } }),
      '  mcpServers.a.type: "http" does not match a server with command',
    );
    assert.equal(
      configErrors({ a: { command: 'x', comand: 'y' } }),
      '  mcpServers.a.comand: unknown key',
    );
    assert.match(configErrors({ 'a b': { command: 'x' } }), /server names are 1-32 characters/);
    assert.match(
      configErrors({ a: { command: 'x', category: 'dangerous' } }),
      /mcpServers\.a\.category/,
    );
  });

  it("reads a workspace's .arbor/mcp.json only when trusted; the daemon config wins a name clash", () => {
    const root = tempDir();
    mkdirSync(join(root, '.arbor'));
    writeFileSync(
      join(root, '.arbor', 'mcp.json'),
      JSON.stringify({ mcpServers: { mine: { command: 'a' }, shared: { command: 'b' } } }),
    );
    const config = resolveMcpConfig(
      { shared: { command: 'from-config' } },
      { workspaceFile: true },
    );
    const { servers, problems } = workspaceMcpServers(config, root);
    assert.deepEqual(
      servers.map((s) => [s.name, s.config.command, s.source]),
      [
        ['shared', 'from-config', 'config'],
        ['mine', 'a', join(root, '.arbor', 'mcp.json')],
      ],
    );
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /server shared ignored: the daemon config defines one of that name/);
    // Untrusted (the default): the file's servers are there disabled, with why, and logged.
    const untrusted = workspaceMcpServers(resolveMcpConfig({}, {}), root);
    assert.deepEqual(
      untrusted.servers.map((s) => [s.name, s.config.disabled]),
      [
        ['mine', true],
        ['shared', true],
      ],
    );
    assert.match(untrusted.servers[0]!.disabledBecause!, /mcp\.json is not trusted/);
    assert.match(untrusted.problems[0]!, /declares mine, shared: not started/);
  });

  it('a broken workspace file is a problem to report; the config servers stay', () => {
    const root = tempDir();
    mkdirSync(join(root, '.arbor'));
    const config = resolveMcpConfig({ kept: { command: 'a' } }, {});
    writeFileSync(join(root, '.arbor', 'mcp.json'), '{ "mcpServers": ');
    let result = workspaceMcpServers(config, root);
    assert.deepEqual(
      result.servers.map((s) => s.name),
      ['kept'],
    );
    assert.match(result.problems[0]!, /mcp\.json is not valid JSON/);
    writeFileSync(
      join(root, '.arbor', 'mcp.json'),
      JSON.stringify({ mcpServers: { x: { url: 'ftp://h' } } }),
    );
    result = workspaceMcpServers(config, root);
    assert.match(result.problems[0]!, /^invalid .*mcp\.json:\n {2}mcpServers\.x\.url: /);
    assert.deepEqual(workspaceMcpServers(config, tempDir()).problems, [], 'no file, no problem');
  });
});
