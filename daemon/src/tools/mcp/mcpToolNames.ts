/**
 * How an MCP server's tool is named for the model: `mcp__<server>__<tool>`,
 * within the protocol's tool-name rule (letters, digits, _ and -, at most 64).
 * Server names are already valid (McpServerName); a tool's own name may not
 * be, so it is cleaned, and shortened with a hash when too long or taken.
 */
import { createHash } from 'node:crypto';

export const MCP_TOOL_PREFIX = 'mcp__';

/** The origin of a server's tools in the tool catalogue (tools.md#tool-info). */
export function mcpOrigin(server: string): string {
  return `mcp:${server}`;
}
const MAX_NAME_LENGTH = 64;

/** Whether a tool name (e.g. in the config's always-ask list) names an MCP tool. */
export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX);
}

/** The model-facing name of `tool`, unique among `taken` (which it is added to). */
export function mcpToolName(server: string, tool: string, taken: Set<string>): string {
  const prefix = `${MCP_TOOL_PREFIX}${server}__`;
  const cleaned = tool.replace(/[^a-zA-Z0-9_-]/g, '_') || '_';
  let name = prefix + cleaned;
  if (name.length > MAX_NAME_LENGTH || taken.has(name)) {
    const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8);
    name = `${(prefix + cleaned).slice(0, MAX_NAME_LENGTH - hash.length - 1)}_${hash}`;
  }
  taken.add(name);
  return name;
}
