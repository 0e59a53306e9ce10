/** The secrets a daemon knows when it starts, gathered for the redactor. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DaemonConfig } from '../config/daemonConfig.js';
import { TOKEN_FILE_NAME } from '../server/socketToken.js';
import { secretEnvValues } from './secretEnv.js';
import { urlCredentialSecrets } from './urlCredentials.js';

/** The provider keys providerSettings.ts reads from the environment. */
const PROVIDER_KEY_VARIABLES = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'ARBOR_LOCAL_API_KEY'];

/**
 * Provider keys (config file and environment), credentials in configured
 * URLs and model strings, secret-looking environment values, and the socket
 * token when the data dir already has one (a socket daemon adds a new one
 * when it creates it).
 */
export function startupSecrets(
  config: Pick<DaemonConfig, 'providers' | 'model' | 'subtaskModel' | 'dataDir'>,
  env: NodeJS.ProcessEnv,
): string[] {
  const providers = Object.values(config.providers ?? {});
  return [
    ...providers.map((provider) => provider?.apiKey),
    ...PROVIDER_KEY_VARIABLES.map((name) => env[name]),
    ...[config.model, config.subtaskModel, ...providers.map((provider) => provider?.baseUrl)]
      .filter((text) => text !== undefined)
      .flatMap(urlCredentialSecrets),
    ...secretEnvValues(env),
    readToken(config.dataDir),
  ].filter((secret): secret is string => secret !== undefined);
}

function readToken(dataDir: string): string | undefined {
  try {
    return readFileSync(join(dataDir, TOKEN_FILE_NAME), 'utf8').trim();
  } catch {
    return undefined; // none yet (stdio daemon) or unreadable: nothing to redact
  }
}
