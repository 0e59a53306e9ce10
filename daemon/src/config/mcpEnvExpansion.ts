/**
 * `${VAR}` and `${VAR:-default}` in an MCP server's definition, as Claude
 * Code's `.mcp.json` expands them, so definitions copied from other agents
 * work unchanged: in `command`, `args`, `env` values, `url` and `headers`
 * values, from the daemon's own environment when the server is resolved.
 *
 * Only the braced form expands; `$VAR` and `$$` stay as written. A variable
 * that is unset and has no default is an error naming it, never an empty
 * string: a server started with an empty token fails later, and obscurely.
 */
import { HttpUrl, type McpServerConfig } from './mcpConfig.js';
import { secretEnvValues } from '../security/secretEnv.js';

/** `${NAME}` or `${NAME:-default}`; the default runs to the first `}`. */
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type ExpandedMcpServer =
  | {
      ok: true;
      config: McpServerConfig;
      /** Values substituted from credential-like variables: to redact wherever they are used. */
      secrets: string[];
    }
  | { ok: false; message: string };

export function expandMcpServer(
  server: McpServerConfig,
  env: NodeJS.ProcessEnv,
): ExpandedMcpServer {
  const unset = new Set<string>();
  const used = new Map<string, string>();
  const expand = (value: string): string =>
    value.replace(VARIABLE, (whole, name: string, fallback: string | undefined) => {
      // Set, even to '', wins over the default (Claude Code's reading, not the shell's).
      const value = env[name];
      if (value !== undefined) {
        used.set(name, value);
        return value;
      }
      if (fallback !== undefined) return fallback;
      unset.add(name);
      return whole;
    });
  const expandValues = (record: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries(record).map(([key, value]) => [key, expand(value)]));

  const config: McpServerConfig = { ...server };
  if (server.command !== undefined) config.command = expand(server.command);
  if (server.args !== undefined) config.args = server.args.map(expand);
  if (server.env !== undefined) config.env = expandValues(server.env);
  if (server.url !== undefined) config.url = expand(server.url);
  if (server.headers !== undefined) config.headers = expandValues(server.headers);

  if (unset.size > 0) {
    const names = [...unset];
    return {
      ok: false,
      message:
        `environment variable${names.length > 1 ? 's' : ''} ${names.join(', ')} ` +
        `${names.length > 1 ? 'are' : 'is'} not set in the daemon's environment ` +
        `(write \${${names[0]}:-default} for a default)`,
    };
  }
  if (config.command === '') return { ok: false, message: 'command is empty once expanded' };
  if (config.url !== undefined && server.url !== config.url) {
    const checked = HttpUrl.safeParse(config.url);
    // Not quoted, written or expanded: either may hold a credential.
    if (!checked.success) return { ok: false, message: 'url is not an http(s) URL once expanded' };
  }
  return { ok: true, config, secrets: secretEnvValues(Object.fromEntries(used)) };
}
