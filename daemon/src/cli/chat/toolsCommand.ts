/**
 * `/tools` at the \`arbor chat\` prompt: the tools a turn of this session
 * offers the model (tools/list, tools.md#tools-list-session), what the
 * session's mode does with a call of each, and the tool servers (MCP) whose
 * tools are missing, with why.
 */
import { Methods, type ToolPermission, type ToolServerStatus } from '@arbor/protocol';
import {
  loadToolCatalogue,
  type ArborClient,
  type SessionView,
  type ToolCatalogue,
} from '@arbor/protocol/client';

export const TOOLS_COMMAND = '/tools';

const PERMISSION: Record<ToolPermission, string> = { run: 'runs', ask: 'asks', block: 'blocked' };
const SERVER_STATUS: Record<ToolServerStatus, string> = {
  starting: 'starting',
  ready: 'ready',
  error: 'failed',
  disabled: 'not started',
};

/** Runs `/tools`; returns the lines to show the user. */
export async function runToolsCommand(client: ArborClient, view: SessionView): Promise<string[]> {
  const capability = Methods.ToolsList.capability;
  if (capability && !client.hasCapability(capability))
    return ['this daemon cannot list its tools (no tools/list)'];
  let catalogue: ToolCatalogue;
  try {
    catalogue = await loadToolCatalogue(client, view.sessionId);
  } catch (error) {
    return [`tools not listed: ${error instanceof Error ? error.message : String(error)}`];
  }
  const tools = catalogue.list();
  const width = Math.max(0, ...tools.map((tool) => tool.name.length));
  const lines = [`tools (${view.permissionMode ?? 'default'} mode):`];
  for (const tool of tools) {
    const verdict = tool.permission === undefined ? '' : `  ${PERMISSION[tool.permission]}`;
    const origin = tool.origin === 'daemon' ? '' : `  (${tool.origin})`;
    lines.push(`  ${tool.name.padEnd(width)}  ${tool.category.padEnd(8)}${verdict}${origin}`);
  }
  for (const server of catalogue.unavailableServers()) {
    const why = server.message === undefined ? '' : `: ${server.message}`;
    lines.push(`server ${server.origin} ${SERVER_STATUS[server.status]}${why}`);
  }
  return lines;
}
