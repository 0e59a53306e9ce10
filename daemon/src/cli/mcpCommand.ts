/**
 * `arbor mcp list`: the MCP servers a workspace's sessions would get (the
 * config file's and the workspace's .arbor/mcp.json), each started once to
 * show its status and tools, then stopped. Exit code 1 when one is broken.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import {
  ConfigError,
  configFromEnv,
  readConfigFile,
  resolveConfig,
} from '../config/daemonConfig.js';
import type { WorkspaceMcpStatus } from '../tools/mcp/mcpHub.js';
import { daemonVersion } from './version.js';

export const MCP_HELP = `Usage: arbor mcp list [options]

Starts each MCP server configured for a workspace, prints its status
(ready / error / disabled, with the reason) and its tools as the model
sees them (mcp__<server>__<tool>, permission category), then stops them.

Options:
  --config <file>         JSON config file (its mcpServers and mcp settings).
  --workspace <dir>       Workspace whose .arbor/mcp.json is read (default: .).
  -h, --help              Show this help.
`;

export async function mcpCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      workspace: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(MCP_HELP);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== 'list') {
    throw new ConfigError(`arbor mcp: expected "list" (see arbor mcp --help)`);
  }
  const file = values.config ? readConfigFile(values.config) : {};
  const config = resolveConfig(file, configFromEnv(process.env), {});
  const workspace = resolve(values.workspace ?? '.');
  // The SDK loads only for this command.
  const { McpHub } = await import('../tools/mcp/mcpHub.js');
  const hub = new McpHub({ config: config.mcp, clientVersion: daemonVersion() });
  try {
    const status = await hub.statusOf(workspace);
    process.stdout.write(formatMcpStatus(status));
    const broken = status.problems.length > 0 || status.servers.some((s) => s.state === 'error');
    return broken ? 1 : 0;
  } finally {
    await hub.closeAll();
  }
}

export function formatMcpStatus(status: WorkspaceMcpStatus): string {
  const lines: string[] = [];
  if (status.servers.length === 0) lines.push('No MCP servers configured.');
  for (const server of status.servers) {
    const count = server.state === 'ready' ? `, ${server.tools.length} tools` : '';
    lines.push(`${server.name} (${server.source}): ${server.state}${count}`);
    if (server.message !== undefined) lines.push(`  ${server.message.replace(/\n/g, '\n  ')}`);
    for (const tool of server.tools) lines.push(`  ${tool.name}  [${tool.category}]`);
  }
  for (const problem of status.problems) lines.push(`problem: ${problem.replace(/\n/g, '\n  ')}`);
  return `${lines.join('\n')}\n`;
}
