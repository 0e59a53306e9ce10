/**
 * Startup checks of the config's agent profiles: a `hitlTools` entry naming
 * no tool would silently ask for nothing, and a `defaultAgent` naming no
 * profile would fail every session/new; both are config errors naming them.
 */
import { ConfigError, type DaemonConfig } from '../config/daemonConfig.js';
import { DAEMON_TOOL_NAMES } from '../tools/toolNames.js';
import { MCP_TOOL_PREFIX, isMcpToolName } from '../tools/mcp/mcpToolNames.js';

export function checkConfigAgents(
  config: Pick<DaemonConfig, 'agents' | 'defaultAgent' | 'mcp'>,
): void {
  const problems: string[] = [];
  for (const [name, profile] of Object.entries(config.agents)) {
    const unknown = profile.hitlTools.filter((tool) => !isKnownTool(tool, config.mcp));
    if (unknown.length > 0)
      problems.push(
        `agents.${name}.hitlTools names unknown tools: ${unknown.join(', ')} (known: ${DAEMON_TOOL_NAMES.join(', ')}, and mcp__<server>__<tool> of the servers in mcpServers)`,
      );
  }
  if (config.defaultAgent !== undefined && !Object.hasOwn(config.agents, config.defaultAgent)) {
    const known = Object.keys(config.agents);
    problems.push(
      `defaultAgent "${config.defaultAgent}" is not one of agents (${known.length > 0 ? known.join(', ') : 'none'})`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
}

/**
 * Built-in tools are known by name. MCP tools are known only once their
 * servers run, so an `mcp__<server>__` name is accepted when that server is
 * configured here; with `mcp.workspaceFile`, a workspace's `.arbor/mcp.json`
 * may add servers no startup check can see, so any MCP name is accepted.
 */
function isKnownTool(tool: string, mcp: DaemonConfig['mcp']): boolean {
  if (DAEMON_TOOL_NAMES.includes(tool)) return true;
  if (!isMcpToolName(tool)) return false;
  if (mcp.workspaceFile) return true;
  return Object.keys(mcp.servers).some((server) =>
    tool.startsWith(`${MCP_TOOL_PREFIX}${server}__`),
  );
}
