/** `arbor mcp list` as a process: each server of the workspace, its status after a start, its tools. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureServer, tempDir } from './mcpHarness.js';

const ARBOR = fileURLToPath(new URL('../../../bin/arbor.js', import.meta.url));

function arbor(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [ARBOR, ...args], { timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('arbor mcp list', function () {
  this.timeout(30_000);

  it("prints a trusted workspace's servers with status and tools; a broken one makes the exit code 1", async () => {
    const root = tempDir();
    mkdirSync(join(root, '.arbor'));
    const file = join(root, '.arbor', 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          fragile: fixtureServer('fragileServer.mjs'),
          missing: { command: 'arbor-test-no-such-mcp-server' },
          off: { command: 'whatever', disabled: true },
        },
      }),
    );
    const untrusted = await arbor(['mcp', 'list', '--workspace', root]);
    assert.match(
      untrusted.stdout,
      /declares fragile, missing, off: not started, since a workspace's file could run any command as you/,
    );
    const config = join(tempDir(), 'config.json');
    writeFileSync(config, JSON.stringify({ mcp: { workspaceFile: true } }));
    const { code, stdout } = await arbor(['mcp', 'list', '--workspace', root, '--config', config]);
    assert.equal(
      stdout.replace(/\(spawn [^)]*\)/, '(spawn …)'),
      [
        `fragile (${file}): ready, 4 tools`,
        '  mcp__fragile__crash  [read]',
        '  mcp__fragile__wait  [read]',
        '  mcp__fragile__leak  [read]',
        '  mcp__fragile__grow  [read]',
        `missing (${file}): error`,
        '  command not found (spawn …)',
        `off (${file}): disabled`,
        '',
      ].join('\n'),
    );
    assert.equal(code, 1);
  });

  it('with no servers it says so and exits 0; a bad workspace file is reported', async () => {
    const empty = await arbor(['mcp', 'list', '--workspace', tempDir()]);
    assert.equal(empty.stdout, 'No MCP servers configured.\n');
    assert.equal(empty.code, 0);
    const root = tempDir();
    mkdirSync(join(root, '.arbor'));
    writeFileSync(join(root, '.arbor', 'mcp.json'), '{"mcpServers": {"a": {"args": []}}}');
    const bad = await arbor(['mcp', 'list', '--workspace', root]);
    assert.match(
      bad.stdout,
      /problem: invalid .*mcp\.json:\n {4}mcpServers\.a: needs command \(a stdio server\) or url/,
    );
    assert.equal(bad.code, 1);
  });
});
