/**
 * Where `arbor chat` finds its daemon: it spawns this very package's
 * `bin/arbor.js daemon --stdio` with the same Node, or attaches to a socket
 * with the token from the data dir. The client core does the rest.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectArbor, type ArborConnection } from '@arbor/protocol/client/node';
import { ConfigError } from '../../config/daemonConfig.js';
import { daemonVersion } from '../version.js';
import type { ChatOptions } from './chatArgs.js';

/** The `arbor` launcher of this package, found from this module whether it runs bundled, compiled or from source. */
export function arborBinPath(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const candidate = join(dir, 'bin', 'arbor.js');
    if (existsSync(candidate) && existsSync(join(dir, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find bin/arbor.js above ${from}`);
    dir = parent;
  }
}

/** Arguments of the spawned `arbor daemon --stdio`: the chat flags that configure a daemon pass through. */
export function daemonArgs(options: ChatOptions): string[] {
  const args = [arborBinPath(), 'daemon', '--stdio'];
  if (options.dataDir !== undefined) args.push('--data-dir', options.dataDir);
  if (options.config !== undefined) args.push('--config', options.config);
  if (options.provider !== undefined) args.push('--provider', options.provider);
  if (options.script !== undefined) args.push('--script', options.script);
  if (options.model !== undefined) args.push('--model', options.model);
  return args;
}

/** The socket daemon's token: `<data-dir>/token`, data dir as the daemon resolves it. */
export function readSocketToken(options: ChatOptions, env = process.env): string {
  const dataDir = resolve(options.dataDir ?? env['ARBOR_DATA_DIR'] ?? join(homedir(), '.arbor'));
  const file = join(dataDir, 'token');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(
      `cannot read the daemon token ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}); ` +
        "pass the daemon's --data-dir",
    );
  }
}

/**
 * Opens the connection, not yet initialized (the caller wires its session
 * tracker first). Daemon logs are kept and shown only if it fails to start.
 */
export async function openDaemonConnection(
  options: ChatOptions,
  onDaemonLog: (text: string) => void,
): Promise<ArborConnection> {
  const clientInfo = { name: 'arbor chat', version: daemonVersion() };
  if (options.connect !== undefined) {
    return connectArbor(
      { socket: options.connect },
      { clientInfo, token: readSocketToken(options) },
    );
  }
  return connectArbor(
    { spawn: { command: process.execPath, args: daemonArgs(options), onStderr: onDaemonLog } },
    { clientInfo },
  );
}
