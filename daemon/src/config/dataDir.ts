/** The data directory: created private (0700) and checked writable at startup. */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { ConfigError } from './daemonConfig.js';

export function prepareDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    accessSync(dataDir, constants.W_OK | constants.R_OK);
  } catch (error) {
    throw new ConfigError(
      `data directory ${dataDir} is not writable (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); ` +
        'pass --data-dir <dir> or set ARBOR_DATA_DIR',
    );
  }
}
