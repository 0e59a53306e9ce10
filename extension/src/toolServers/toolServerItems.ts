/**
 * The session's tool servers (MCP servers, from tools/list) as quick-pick
 * items: every server with its status and tool count, a failing one with the
 * reason. No `vscode` import, so it is tested in Node.
 */
import type { ToolServer, ToolServerStatus } from '@arbor/protocol';

export interface ToolServerItem {
  label: string;
  description: string;
  detail?: string;
  server: ToolServer;
}

const STATUS: Record<ToolServerStatus, { icon: string; text: string }> = {
  ready: { icon: '$(pass)', text: 'ready' },
  starting: { icon: '$(loading~spin)', text: 'starting…' },
  error: { icon: '$(error)', text: 'failed' },
  disabled: { icon: '$(circle-slash)', text: 'not started' },
};

/** Failing servers first (they are why a tool is missing), then by name. */
export function toolServerItems(servers: readonly ToolServer[]): ToolServerItem[] {
  const rank = (server: ToolServer): number => (server.status === 'ready' ? 1 : 0);
  return [...servers]
    .sort((a, b) => rank(a) - rank(b) || a.origin.localeCompare(b.origin))
    .map((server) => {
      // The catalogue reads the status open: an unknown one arrives as `error`.
      const status = STATUS[server.status];
      const tools =
        server.toolCount === undefined
          ? ''
          : ` · ${server.toolCount} tool${server.toolCount === 1 ? '' : 's'}`;
      return {
        label: `${status.icon} ${server.origin.replace(/^mcp:/, '')}`,
        description: `${status.text}${tools}`,
        ...(server.message ? { detail: server.message } : {}),
        server,
      };
    });
}
