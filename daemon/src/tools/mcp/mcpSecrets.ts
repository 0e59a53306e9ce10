/**
 * The credentials an MCP server's configuration holds: secret-looking `env`
 * values (by name, or a URL with a password) and credential headers. They
 * are added to the daemon's redactor before the server starts, so whatever
 * the server echoes (a tool result, an error, its stderr) reaches neither the
 * model, the wire, the logs nor the store with them.
 */
import type { McpServerConfig } from '../../config/mcpConfig.js';
import { isSecretEnv, isSecretEnvName } from '../../security/secretEnv.js';
import { urlCredentialSecrets } from '../../security/urlCredentials.js';

export function serverSecrets(server: McpServerConfig): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(server.env ?? {})) {
    if (isSecretEnv(name, value)) secrets.push(value, ...urlCredentialSecrets(value));
  }
  for (const [name, value] of Object.entries(server.headers ?? {})) {
    if (!isSecretEnvName(name.replace(/-/g, '_'))) continue;
    // "Bearer <token>": the token alone may show up too.
    secrets.push(value, ...value.split(/\s+/).slice(1));
  }
  if (server.url !== undefined) secrets.push(...urlCredentialSecrets(server.url));
  return secrets;
}
