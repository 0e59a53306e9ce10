/**
 * The daemon's sandbox settings, set once at startup from the config
 * (startDaemon.ts). Held here rather than passed down because the workspace
 * tools are built per session far from the config; a tool built before
 * startup, or in a test, gets the defaults: sandbox on when it works, no
 * network, the default data dir hidden.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SandboxConfig } from '../../config/configSchema.js';

export interface SandboxSettings extends Required<SandboxConfig> {
  /** The daemon's data dir (token, store, logs): never visible to a command. */
  dataDir: string;
}

let configured: SandboxSettings | undefined;

export function configureSandbox(settings: SandboxSettings): void {
  configured = { ...settings, allowEnv: [...settings.allowEnv] };
}

export function sandboxSettings(): SandboxSettings {
  return (
    configured ?? {
      mode: 'auto',
      network: false,
      allowEnv: [],
      dataDir: join(homedir(), '.arbor'),
    }
  );
}
