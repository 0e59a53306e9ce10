/**
 * The MCP servers of one workspace: the daemon config's, then those of the
 * workspace's `.arbor/mcp.json` when the config trusts workspace files (off by
 * default: the file comes with whatever repository was cloned). A broken or
 * untrusted file is a problem to report, never a reason to lose the config's
 * servers.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { WorkspaceMcpFile, type McpConfig, type McpServerConfig } from '../../config/mcpConfig.js';
import { formatIssues } from '../../config/daemonConfig.js';
import { expandMcpServer } from '../../config/mcpEnvExpansion.js';
import { daemonSecrets } from '../../security/secretRedactor.js';

export const WORKSPACE_MCP_FILE = join('.arbor', 'mcp.json');

export interface NamedMcpServer {
  name: string;
  config: McpServerConfig;
  /** Where it is configured: `config` (the daemon's) or the workspace file's path. */
  source: string;
  /** Why it is not started although configured (an untrusted workspace file). */
  disabledBecause?: string;
  /** Why it cannot start as configured (a `${VAR}` not set): it is in error. */
  failedBecause?: string;
}

export interface WorkspaceMcpServers {
  servers: NamedMcpServer[];
  /** What was wrong with the workspace file, one message each. */
  problems: string[];
  /** The workspace file as read (see workspaceFileState), to notice when it changes. */
  fileState: string;
}

export function workspaceMcpServers(config: McpConfig, workspaceRoot: string): WorkspaceMcpServers {
  const servers: NamedMcpServer[] = Object.entries(config.servers).map(([name, server]) =>
    expandedServer(name, server, 'config'),
  );
  const path = join(workspaceRoot, WORKSPACE_MCP_FILE);
  const fileState = readFileState(path);
  const file = parseWorkspaceFile(path, fileState);
  if (typeof file === 'string') return { servers, problems: file === '' ? [] : [file], fileState };
  if (!config.workspaceFile) {
    // Listed as disabled, with why, not silently dropped: the user sees what the repository asked for.
    const names = Object.keys(file.mcpServers).filter((name) => config.servers[name] === undefined);
    if (names.length === 0) return { servers, problems: [], fileState };
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
      fileState,
    };
  }
  const problems: string[] = [];
  for (const [name, server] of Object.entries(file.mcpServers)) {
    // The user's own config wins over a file that came with the workspace.
    if (config.servers[name] !== undefined) {
      problems.push(`${path}: server ${name} ignored: the daemon config defines one of that name`);
      continue;
    }
    servers.push(expandedServer(name, server, path));
  }
  return { servers, problems, fileState };
}

/**
 * What the workspace's file holds now: its text, or a marker for its
 * absence or why it cannot be read. Read whole rather than stat'ed: the file
 * is small, and an edit within the mtime's granularity is still seen.
 */
export function workspaceFileState(workspaceRoot: string): string {
  return readFileState(join(workspaceRoot, WORKSPACE_MCP_FILE));
}

// Neither marker can be the text of a valid file (it would not parse as JSON).
const MISSING = '\0missing';
const UNREADABLE = '\0unreadable: ';

function readFileState(path: string): string {
  try {
    // Asked on every turn, and most workspaces have no such file: a failed read's
    // exception costs more than the whole check.
    if (statSync(path, { throwIfNoEntry: false }) === undefined) return MISSING;
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return MISSING;
    return UNREADABLE + (error as Error).message;
  }
}

/** The parsed file, '' when there is none, or the problem with it. */
function parseWorkspaceFile(path: string, state: string): WorkspaceMcpFile | string {
  if (state === MISSING) return '';
  if (state.startsWith(UNREADABLE)) return `cannot read ${path}: ${state.slice(UNREADABLE.length)}`;
  const text = state;
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

/** The server with its `${VAR}` expanded from the daemon's environment as it is now. */
function expandedServer(name: string, server: McpServerConfig, source: string): NamedMcpServer {
  if (server.disabled === true) return { name, config: server, source };
  const expanded = expandMcpServer(server, process.env);
  if (expanded.ok) {
    // A token passed in args or a URL is redacted like one in env or headers.
    daemonSecrets.add(...expanded.secrets);
    return { name, config: expanded.config, source };
  }
  // Never started, so nothing of it to redact; and "${TOKEN}" itself must not become a secret.
  const { env: _env, headers: _headers, ...rest } = server;
  return { name, config: rest, source, failedBecause: expanded.message };
}
