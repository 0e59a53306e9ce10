/**
 * The MCP servers of one workspace: the daemon config's, then those of the
 * workspace's `.arbor/mcp.json` when the config trusts workspace files (off by
 * default: the file comes with whatever repository was cloned). A broken or
 * untrusted file is a problem to report, never a reason to lose the config's
 * servers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkspaceMcpFile, type McpConfig, type McpServerConfig } from '../../config/mcpConfig.js';
import { formatIssues } from '../../config/daemonConfig.js';

export const WORKSPACE_MCP_FILE = join('.arbor', 'mcp.json');

export interface NamedMcpServer {
  name: string;
  config: McpServerConfig;
  /** Where it is configured: `config` (the daemon's) or the workspace file's path. */
  source: string;
  /** Why it is not started although configured (an untrusted workspace file). */
  disabledBecause?: string;
}

export interface WorkspaceMcpServers {
  servers: NamedMcpServer[];
  /** What was wrong with the workspace file, one message each. */
  problems: string[];
}

export function workspaceMcpServers(config: McpConfig, workspaceRoot: string): WorkspaceMcpServers {
  const servers: NamedMcpServer[] = Object.entries(config.servers).map(([name, server]) => ({
    name,
    config: server,
    source: 'config',
  }));
  const path = join(workspaceRoot, WORKSPACE_MCP_FILE);
  const file = readWorkspaceFile(path);
  if (typeof file === 'string') return { servers, problems: file === '' ? [] : [file] };
  if (!config.workspaceFile) {
    // Listed as disabled, with why, not silently dropped: the user sees what the repository asked for.
    const names = Object.keys(file.mcpServers).filter((name) => config.servers[name] === undefined);
    if (names.length === 0) return { servers, problems: [] };
    const risk =
      "a workspace's file could run any command as you; " +
      'set "mcp": {"workspaceFile": true} in the daemon config to trust workspace files';
    for (const name of names) {
      const server = file.mcpServers[name]!;
      const disabledBecause = `${path} is not trusted: ${risk}`;
      servers.push({ name, config: { ...server, disabled: true }, source: path, disabledBecause });
    }
    return {
      servers,
      problems: [`${path} declares ${names.join(', ')}: not started, since ${risk}`],
    };
  }
  const problems: string[] = [];
  for (const [name, server] of Object.entries(file.mcpServers)) {
    // The user's own config wins over a file that came with the workspace.
    if (config.servers[name] !== undefined) {
      problems.push(`${path}: server ${name} ignored: the daemon config defines one of that name`);
      continue;
    }
    servers.push({ name, config: server, source: path });
  }
  return { servers, problems };
}

/** The parsed file, '' when there is none, or the problem with it. */
function readWorkspaceFile(path: string): WorkspaceMcpFile | string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    return `cannot read ${path}: ${(error as Error).message}`;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return `${path} is not valid JSON: ${(error as Error).message}`;
  }
  const parsed = WorkspaceMcpFile.safeParse(json);
  if (!parsed.success) return `invalid ${path}:\n${formatIssues(parsed.error)}`;
  return parsed.data;
}
