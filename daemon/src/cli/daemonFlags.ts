/**
 * The flags that configure a daemon, shared by the commands that run one:
 * `arbor daemon`, and `arbor acp` with its in-process daemon.
 */
import {
  configFromEnv,
  readConfigFile,
  resolveConfig,
  type ConfigOverrides,
  type DaemonConfig,
} from '../config/daemonConfig.js';
import type { LogLevel } from '../logging/logger.js';

/** node:util parseArgs options of the daemon's configuration flags. */
export const DAEMON_CONFIG_FLAGS = {
  config: { type: 'string' },
  'data-dir': { type: 'string' },
  'log-level': { type: 'string' },
  model: { type: 'string' },
  'subtask-model': { type: 'string' },
  provider: { type: 'string' },
  script: { type: 'string' },
} as const;

export interface DaemonFlagValues {
  config?: string | undefined;
  'data-dir'?: string | undefined;
  'log-level'?: string | undefined;
  model?: string | undefined;
  'subtask-model'?: string | undefined;
  provider?: string | undefined;
  script?: string | undefined;
}

/** The config file, then the environment, then the flags (flags win); `more` adds other overrides. */
export function configFromFlags(
  values: DaemonFlagValues,
  env: NodeJS.ProcessEnv,
  more: Partial<ConfigOverrides> = {},
): DaemonConfig {
  const file = values.config ? readConfigFile(values.config) : {};
  return resolveConfig(file, configFromEnv(env), {
    dataDir: values['data-dir'],
    logLevel: values['log-level'] as LogLevel | undefined,
    model: values.model,
    subtaskModel: values['subtask-model'],
    provider: values.provider as 'scripted' | undefined,
    script: values.script,
    ...more,
  });
}
