/**
 * The MCP servers an ACP editor passes with `session/new` and `session/load`,
 * as the daemon's own server configuration: stdio and Streamable HTTP servers
 * as they are. A name that is no valid server name is made one (it prefixes
 * the tools' names, `mcp__<server>__<tool>`); SSE servers, duplicate names
 * and definitions the config schema refuses are left out, each with why.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import { formatIssues } from '../config/daemonConfig.js';
import { McpServerConfig, McpServerName, type McpServers } from '../config/mcpConfig.js';

export interface EditorMcpServers {
  /** By server name: the editor's, or the one made of it (see `names`). */
  servers: McpServers;
  /** Each server's editor name and server name, in the editor's order. */
  names: { name: string; as: string }[];
  /** Editor names of servers not run, with why. */
  refused: { name: string; reason: string }[];
}

export function editorMcpServers(list: readonly McpServer[]): EditorMcpServers {
  const result: EditorMcpServers = { servers: {}, names: [], refused: [] };
  for (const server of list) {
    const refuse = (reason: string): void => {
      result.refused.push({ name: server.name, reason });
    };
    if ('type' in server && server.type === 'sse') {
      refuse('SSE servers are not supported (stdio and Streamable HTTP servers are)');
      continue;
    }
    const name = serverName(server.name);
    if (name === undefined) {
      refuse('its name has no letter or digit to name its tools by');
      continue;
    }
    if (result.servers[name] !== undefined) {
      refuse(`another server of this session is named ${name}`);
      continue;
    }
    const config = configOf(server);
    const checked = McpServerConfig.safeParse(config);
    if (!checked.success) {
      refuse(
        formatIssues(checked.error)
          .trim()
          .replace(/\s*\n\s*/g, '; '),
      );
      continue;
    }
    // The definition as the editor gave it: its values are already resolved.
    result.servers[name] = config;
    result.names.push({ name: server.name, as: name });
  }
  return result;
}

/** The name itself when valid, else its runs of other characters as `_`, cut to length. */
function serverName(name: string): string | undefined {
  if (McpServerName.safeParse(name).success) return name;
  const made = name
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/^[_-]+/, '')
    .slice(0, 32);
  return McpServerName.safeParse(made).success ? made : undefined;
}

function configOf(server: McpServer): McpServerConfig {
  if ('type' in server) {
    const headers = Object.fromEntries(server.headers.map((header) => [header.name, header.value]));
    return { url: server.url, ...(server.headers.length > 0 && { headers }) };
  }
  const env = Object.fromEntries(server.env.map((variable) => [variable.name, variable.value]));
  return {
    command: server.command,
    ...(server.args.length > 0 && { args: [...server.args] }),
    ...(server.env.length > 0 && { env }),
  };
}
