/**
 * MCP servers as users already write them for other agents
 * (`{"mcpServers": {name: {command, args, env, cwd} | {url, headers}}}`), in
 * the daemon's config file and in a workspace's `.arbor/mcp.json`, plus the
 * daemon-wide MCP settings (timeouts, whether the workspace file is read).
 *
 * One flat object per server rather than a union of two: a mistake then gets
 * an error naming the key ("args: only for a stdio server"), not zod's
 * "Invalid input" for a union. `${VAR}` in a definition is expanded when the
 * server is resolved (mcpEnvExpansion.ts), not here.
 */
import { ToolCategory } from '@arbor/protocol';
import { z } from 'zod';

/** Short enough that `mcp__<server>__<tool>` leaves room for the tool's name in 64 characters. */
export const McpServerName = z
  .string()
  .regex(
    /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,31}$/,
    'server names are 1-32 characters: letters, digits, _ and -, starting with a letter or digit',
  );

export const HttpUrl = z.url({ protocol: /^https?$/ });

/** What the definition says of `${VAR}` (expanded by mcpEnvExpansion.ts), and each field that expands it. */
const EXPANDS = "${VAR} and ${VAR:-default} expand from the daemon's environment";
const EXPANSION = `${EXPANDS} in command, args, env and headers values and url (Claude Code's .mcp.json syntax; $VAR and $$ stay as written); a variable unset and without a default puts the server in error, naming it`;

const STDIO_KEYS = ['command', 'args', 'env', 'cwd'] as const;
const HTTP_KEYS = ['url', 'headers'] as const;

export const McpServerConfig = z
  .object({
    type: z
      .enum(['stdio', 'http', 'streamable-http'])
      .optional()
      .describe('Optional, as other agents write it: implied by command (stdio) or url (http)'),
    command: z
      .string()
      .min(1)
      .optional()
      .describe(`stdio: the executable that runs the server (${EXPANDS})`),
    args: z.array(z.string()).optional().describe(`stdio: its arguments (${EXPANDS})`),
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe(
        `stdio: variables added to the server's environment; the daemon's own secrets are never passed on, unless a value names one (values: ${EXPANDS})`,
      ),
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe('stdio: working directory (default: the workspace root)'),
    url: z
      .string()
      .superRefine((url, ctx) => {
        // With a variable in it, it is checked once expanded.
        if (url.includes('${')) return;
        const checked = HttpUrl.safeParse(url);
        if (!checked.success)
          ctx.addIssue({ code: 'custom', message: checked.error.issues[0]!.message });
      })
      .optional()
      .describe(`Streamable HTTP: the endpoint, http or https (${EXPANDS})`),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe(
        `Streamable HTTP: headers sent with every request, e.g. "Authorization": "Bearer \${TOKEN}" (values: ${EXPANDS})`,
      ),
    disabled: z.boolean().optional().describe('Configured but not started'),
    category: ToolCategory.optional().describe(
      "Permission category of all the server's tools, instead of the one its annotations imply",
    ),
    toolCategories: z
      .record(z.string(), ToolCategory)
      .optional()
      .describe("Permission category per tool, by the server's own tool name"),
  })
  .strict()
  .superRefine((server, ctx) => {
    const stdio = server.command !== undefined;
    const http = server.url !== undefined;
    if (stdio === http) {
      ctx.addIssue({
        code: 'custom',
        message: stdio
          ? 'give either command (a stdio server) or url (a Streamable HTTP server), not both'
          : 'needs command (a stdio server) or url (a Streamable HTTP server)',
      });
      return;
    }
    const kind = stdio ? 'stdio' : 'http';
    if (server.type !== undefined && (server.type === 'stdio') !== stdio) {
      ctx.addIssue({
        code: 'custom',
        path: ['type'],
        message: `"${server.type}" does not match a server with ${stdio ? 'command' : 'url'}`,
      });
    }
    for (const key of stdio ? HTTP_KEYS : STDIO_KEYS) {
      if (server[key] !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `only for a ${kind === 'stdio' ? 'Streamable HTTP' : 'stdio'} server`,
        });
      }
    }
  })
  .describe(`An MCP server: {command, args, env, cwd} (stdio) or {url, headers}. ${EXPANSION}`);
export type McpServerConfig = z.infer<typeof McpServerConfig>;

// Names checked one by one: a record's own key check only says "Invalid key in record".
export const McpServers = z.record(z.string(), McpServerConfig).superRefine((servers, ctx) => {
  for (const name of Object.keys(servers)) {
    const checked = McpServerName.safeParse(name);
    if (!checked.success)
      ctx.addIssue({ code: 'custom', path: [name], message: checked.error.issues[0]!.message });
  }
});
export type McpServers = z.infer<typeof McpServers>;

/** `.arbor/mcp.json`: the same shape other agents read from their own files. */
export const WorkspaceMcpFile = z
  .object({
    $schema: z.string().optional(),
    mcpServers: McpServers,
  })
  .strict();
export type WorkspaceMcpFile = z.infer<typeof WorkspaceMcpFile>;

export const DEFAULT_MCP_INITIALIZE_TIMEOUT_MS = 30_000;
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 120_000;

export const McpSettings = z
  .object({
    initializeTimeoutMs: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('How long a server may take to start and list its tools (default 30000)'),
    callTimeoutMs: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('How long one tool call may go without an answer or progress (default 120000)'),
    workspaceFile: z
      .boolean()
      .optional()
      .describe(
        "Start the servers of a workspace's .arbor/mcp.json (default false: a file that came with a cloned repository could run any command as you). Its ${VAR} are expanded too, from the daemon's environment: a trusted file can pass any of the daemon's variables, secrets included, to its servers",
      ),
    emitProgress: z
      .boolean()
      .optional()
      .describe("Show MCP progress notifications in the call's tree node (default true)"),
  })
  .strict();
export type McpSettings = z.infer<typeof McpSettings>;

/** The settings with defaults filled in, and the daemon config's own servers. */
export interface McpConfig {
  servers: McpServers;
  initializeTimeoutMs: number;
  callTimeoutMs: number;
  workspaceFile: boolean;
  emitProgress: boolean;
}

export function resolveMcpConfig(
  servers: McpServers | undefined,
  settings: McpSettings | undefined,
): McpConfig {
  return {
    servers: servers ?? {},
    initializeTimeoutMs: settings?.initializeTimeoutMs ?? DEFAULT_MCP_INITIALIZE_TIMEOUT_MS,
    callTimeoutMs: settings?.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
    workspaceFile: settings?.workspaceFile ?? false,
    emitProgress: settings?.emitProgress ?? true,
  };
}
