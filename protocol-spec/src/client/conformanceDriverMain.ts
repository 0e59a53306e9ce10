#!/usr/bin/env node
/**
 * The client core's conformance driver as a Node program:
 *
 *   arbor-conformance client --command "node protocol-spec/dist/client/conformanceDriverMain.js"
 *
 * Reads the driver convention from the environment (conformance.md#driver),
 * connects — ARBOR_CONFORMANCE_ENDPOINT with the token file, else spawns
 * ARBOR_DAEMON_COMMAND through the shell — and runs runConformanceDriver.
 * Exit code: 0 when the daemon closes the connection, 1 on an internal
 * failure, 2 on a usage error. Diagnostics go to stderr.
 */
import { ArborClient } from './arborClient.js';
import { UnsupportedDaemonVersionError } from './clientErrors.js';
import {
  DriverConfigError,
  readDriverConfig,
  runConformanceDriver,
  type DriverConfig,
} from './conformanceDriver.js';
import { connectSocket, readTokenFile, spawnDaemon } from './node.js';

const CLIENT_INFO = { name: 'arbor-client-core-driver', version: '0.1.0' };

const log = (line: string): void => void process.stderr.write(`conformance-driver: ${line}\n`);

async function connect(config: DriverConfig): Promise<ArborClient> {
  if (config.connection.kind === 'socket') {
    const { tokenFile } = config.connection;
    const token = tokenFile === undefined ? undefined : readTokenFile(tokenFile);
    const { connection } = await connectSocket(config.connection.endpoint);
    return new ArborClient(connection, {
      clientInfo: CLIENT_INFO,
      processId: process.pid,
      ...(token === undefined ? {} : { token }),
    });
  }
  // A command line, as the convention says: the shell splits and quotes it.
  const windows = process.platform === 'win32';
  const daemon = await spawnDaemon({
    command: windows ? (process.env['ComSpec'] ?? 'cmd.exe') : '/bin/sh',
    args: windows
      ? ['/d', '/s', '/c', config.connection.command]
      : ['-c', config.connection.command],
    stderr: 'inherit',
  });
  return new ArborClient(daemon.connection, { clientInfo: CLIENT_INFO, processId: process.pid });
}

async function main(): Promise<number> {
  let config: DriverConfig | undefined;
  try {
    config = readDriverConfig(process.env);
  } catch (error) {
    if (error instanceof DriverConfigError) {
      log(error.message);
      return 2;
    }
    throw error;
  }
  if (!config) {
    log('ARBOR_CONFORMANCE_SCENARIO is not set: this program runs only as a conformance driver');
    return 2;
  }
  const client = await connect(config);
  const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
  try {
    await runConformanceDriver(client, config, { workspaceRoot: process.cwd(), log });
  } catch (error) {
    // The daemon may close the connection at any point of a scenario: that ends the run normally.
    if (error instanceof UnsupportedDaemonVersionError || client.phase !== 'closed') {
      log(`failed: ${error instanceof Error ? error.message : String(error)}`);
      client.dispose();
      return 1;
    }
  }
  await closed;
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(
      `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    process.exit(1);
  },
);
