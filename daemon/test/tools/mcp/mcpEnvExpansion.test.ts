/**
 * `${VAR}` and `${VAR:-default}` in MCP server definitions (Claude Code's
 * `.mcp.json` syntax): what expands where, what stays as written, and a
 * server whose variable is unset is in error naming it instead of starting
 * with an empty string.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigFile } from '../../../src/config/configSchema.js';
import { formatIssues } from '../../../src/config/daemonConfig.js';
import { resolveMcpConfig, type McpServerConfig } from '../../../src/config/mcpConfig.js';
import { expandMcpServer } from '../../../src/config/mcpEnvExpansion.js';
import { McpHub } from '../../../src/tools/mcp/mcpHub.js';
import { serverSecrets } from '../../../src/tools/mcp/mcpSecrets.js';
import { workspaceMcpServers } from '../../../src/tools/mcp/mcpServerSources.js';
import { tempDir } from './mcpHarness.js';

function expanded(server: McpServerConfig, env: NodeJS.ProcessEnv): McpServerConfig {
  const result = expandMcpServer(server, env);
  assert.ok(result.ok, result.ok ? '' : result.message);
  return result.config;
}

function failure(server: McpServerConfig, env: NodeJS.ProcessEnv): string {
  const result = expandMcpServer(server, env);
  assert.equal(result.ok, false, 'the server cannot be expanded');
  return (result as { message: string }).message;
}

describe('MCP: ${VAR} in server definitions', () => {
  it('expands in command, args and env values of a stdio server; not in names or cwd', () => {
    const config = expanded(
      {
        command: '${BIN_DIR}/server',
        args: ['--root', '${ROOT:-/srv}', '--mode=${MODE}', 'plain'],
        env: { API_BASE: 'https://${HOST}/v1', ['${KEEP}']: 'x' },
        cwd: '${ROOT}',
      },
      { BIN_DIR: '/opt/mcp', MODE: 'fast', HOST: 'api.example.com', KEEP: 'no' },
    );
    assert.deepEqual(config, {
      command: '/opt/mcp/server',
      args: ['--root', '/srv', '--mode=fast', 'plain'],
      env: { API_BASE: 'https://api.example.com/v1', ['${KEEP}']: 'x' },
      cwd: '${ROOT}',
    });
  });

  it('expands in url and header values of a Streamable HTTP server; not in header names', () => {
    const config = expanded(
      {
        url: '${SCHEME:-https}://${HOST}:${PORT:-443}/mcp',
        headers: { Authorization: 'Bearer ${TOKEN}', ['X-${HOST}']: '1' },
      },
      { HOST: 'mcp.example.com', TOKEN: 'tok-123456789' },
    );
    assert.equal(config.url, 'https://mcp.example.com:443/mcp');
    assert.deepEqual(config.headers, { Authorization: 'Bearer tok-123456789', ['X-${HOST}']: '1' });
  });

  it('a variable set, even to the empty string, wins over its default', () => {
    const config = expanded({ command: 'x', args: ['${A:-a}', '${B:-b}', '${C:-}'] }, { A: '' });
    assert.deepEqual(config.args, ['', 'b', '']);
  });

  it('only the braced form expands: $VAR, $$, ${} and invalid names stay as written', () => {
    const args = ['$HOME', '$$', 'cost: $5', '${}', '${1}', '${not a name}', '$${HOME}'];
    const config = expanded({ command: 'x', args }, { HOME: '/home/u' });
    assert.deepEqual(config.args, [
      '$HOME',
      '$$',
      'cost: $5',
      '${}',
      '${1}',
      '${not a name}',
      '$/home/u',
    ]);
  });

  it('an unset variable without a default is an error naming it, not an empty string', () => {
    const message = failure(
      { command: 'x', args: ['${MISSING_ONE}'], env: { T: '${MISSING_TWO}', U: '${SET}' } },
      { SET: 'y' },
    );
    assert.match(message, /^environment variables MISSING_ONE, MISSING_TWO are not set/);
    assert.match(message, /\$\{MISSING_ONE:-default\}/, 'says how to give a default');
    assert.match(failure({ url: 'https://${NOPE}/mcp' }, {}), /variable NOPE is not set/);
  });

  it('a URL that is not http(s) once expanded is an error that does not quote it', () => {
    const message = failure({ url: '${TRACKER_URL}' }, { TRACKER_URL: 'ftp://u:pw-123456@h' });
    assert.equal(message, 'url is not an http(s) URL once expanded');
    assert.ok(!message.includes('pw-123456'));
    assert.match(failure({ command: '${EMPTY}' }, { EMPTY: '' }), /command is empty/);
  });

  it('values of credential-named variables are secrets wherever they are substituted', () => {
    const result = expandMcpServer(
      { command: 'x', args: ['--token', '${GH_TOKEN}', '--org', '${GH_ORG}'] },
      { GH_TOKEN: 'ghp_abcdefghijklmnop', GH_ORG: 'some-organisation' },
    );
    assert.ok(result.ok);
    assert.deepEqual(result.secrets, ['ghp_abcdefghijklmnop']);
  });

  it('a token from a variable in a credential header is redacted (mcpSecrets sees the expanded config)', () => {
    // A name without "TOKEN" in it: only the header itself says it is a credential.
    const config = expanded(
      { url: 'https://h/mcp', headers: { Authorization: 'Bearer ${TRACKER_BEARER}' } },
      { TRACKER_BEARER: 'tracker-5e2a9c7f1b' },
    );
    assert.deepEqual(serverSecrets(config), ['Bearer tracker-5e2a9c7f1b', 'tracker-5e2a9c7f1b']);
  });

  it('the config accepts a url with a variable, and still refuses one that is not http(s)', () => {
    assert.ok(ConfigFile.safeParse({ mcpServers: { a: { url: '${URL}' } } }).success);
    assert.ok(ConfigFile.safeParse({ mcpServers: { a: { url: 'http://h:${PORT}/mcp' } } }).success);
    const refused = ConfigFile.safeParse({ mcpServers: { a: { url: 'ftp://h' } } });
    assert.equal(refused.success, false);
    assert.match(formatIssues(refused.error!), /mcpServers\.a\.url: /);
  });
});

describe('MCP: ${VAR} when a workspace\u2019s servers are resolved', () => {
  const VARS = ['ARBOR_TEST_EXP_BIN', 'ARBOR_TEST_EXP_UNSET', 'ARBOR_TEST_EXP_WS'];
  afterEach(() => {
    for (const name of VARS) delete process.env[name];
  });

  it("reads the daemon's environment as it is then; an unset variable puts only that server in error", () => {
    process.env['ARBOR_TEST_EXP_BIN'] = '/first/bin';
    const config = resolveMcpConfig(
      {
        good: { command: '${ARBOR_TEST_EXP_BIN}/server' },
        broken: { command: 'x', env: { API_TOKEN: '${ARBOR_TEST_EXP_UNSET}' } },
        off: { command: '${ARBOR_TEST_EXP_UNSET}', disabled: true },
      },
      undefined,
    );
    const root = tempDir();
    const [good, broken, off] = workspaceMcpServers(config, root).servers;
    assert.equal(good!.config.command, '/first/bin/server');
    assert.equal(good!.failedBecause, undefined);
    assert.match(broken!.failedBecause!, /ARBOR_TEST_EXP_UNSET is not set/);
    // Its unexpanded "${...}" values are not registered as secrets.
    assert.deepEqual(serverSecrets(broken!.config), []);
    assert.equal(off!.failedBecause, undefined, 'a disabled server is not expanded');

    process.env['ARBOR_TEST_EXP_BIN'] = '/second/bin';
    const [again] = workspaceMcpServers(config, root).servers;
    assert.equal(again!.config.command, '/second/bin/server');
  });

  it('a trusted workspace file is expanded; an untrusted one is listed as written', () => {
    process.env['ARBOR_TEST_EXP_WS'] = 'from-daemon-env';
    const root = tempDir();
    mkdirSync(join(root, '.arbor'));
    writeFileSync(
      join(root, '.arbor', 'mcp.json'),
      JSON.stringify({ mcpServers: { ws: { command: 'x', args: ['${ARBOR_TEST_EXP_WS}'] } } }),
    );
    const trusted = workspaceMcpServers(resolveMcpConfig({}, { workspaceFile: true }), root);
    assert.deepEqual(trusted.servers[0]!.config.args, ['from-daemon-env']);
    const untrusted = workspaceMcpServers(resolveMcpConfig({}, {}), root);
    assert.deepEqual(untrusted.servers[0]!.config.args, ['${ARBOR_TEST_EXP_WS}']);
    assert.ok(untrusted.servers[0]!.disabledBecause);
  });

  it('the server is in error with the message, is never started, and the others are unaffected', async () => {
    const logs: string[] = [];
    const hub = new McpHub({
      config: resolveMcpConfig(
        {
          broken: { command: '${ARBOR_TEST_EXP_UNSET}' },
          off: { command: 'x', disabled: true },
        },
        undefined,
      ),
      clientVersion: '0.0.0-test',
      log: (level, message) => logs.push(`${level}: ${message}`),
    });
    try {
      const status = await hub.statusOf(tempDir());
      assert.deepEqual(status.servers[0], {
        name: 'broken',
        source: 'config',
        state: 'error',
        message:
          "environment variable ARBOR_TEST_EXP_UNSET is not set in the daemon's environment " +
          '(write ${ARBOR_TEST_EXP_UNSET:-default} for a default)',
        tools: [],
      });
      assert.equal(status.servers[1]!.state, 'disabled');
      assert.deepEqual(status.problems, []);
      assert.ok(logs.some((line) => /^warn: broken: .*ARBOR_TEST_EXP_UNSET/.test(line)));
      // Asked again (the next turn), it is not tried: nothing could have changed.
      assert.equal((await hub.statusOf(tempDir())).servers[0]!.state, 'error');
    } finally {
      await hub.closeAll();
    }
  });
});
