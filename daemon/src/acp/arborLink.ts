/**
 * The bridge's Arbor connection: to the daemon it runs in-process, or to a
 * running socket daemon (`--connect`, with the token of its data dir). The
 * bridge is an ordinary Arbor client either way.
 */
import { join } from 'node:path';
import { ArborClient, type ArborClientOptions } from '@arbor/protocol/client';
import { connectArbor, readTokenFile } from '@arbor/protocol/client/node';
import { ConfigError } from '../config/daemonConfig.js';
import type { Logger } from '../logging/logger.js';
import { daemonVersion } from '../cli/version.js';
import type { SessionMcpServers, SessionWorkspaceIo } from '../server/startDaemon.js';
import type { AcpOptions } from './acpArgs.js';
import { startInProcessDaemon } from './inProcessDaemon.js';

export interface ArborLink {
  /** Not initialized yet: the caller sets up its session tracker first. */
  client: ArborClient;
  /** shutdown + exit; for the in-process daemon, waits until its store is closed. */
  close(): Promise<void>;
  /** In-process only: the daemon runs the MCP servers the editor passes (the wire cannot carry them). */
  sessionMcpServers?: SessionMcpServers;
  /** In-process only: the editor's files and terminals can serve the sessions' workspace tools. */
  sessionWorkspaceIo?: SessionWorkspaceIo;
}

export async function openArborLink(options: AcpOptions, log: Logger): Promise<ArborLink> {
  const clientOptions: ArborClientOptions = {
    clientInfo: { name: 'arbor acp', version: daemonVersion() },
  };
  if (options.connect !== undefined) {
    const connection = await connectArbor(
      { socket: options.connect },
      { ...clientOptions, token: socketToken(options.config.dataDir) },
    );
    return { client: connection.client, close: () => connection.close() };
  }
  const daemon = await startInProcessDaemon(options.config, log);
  const client = new ArborClient(daemon.connection, { ...clientOptions, processId: process.pid });
  return {
    client,
    sessionMcpServers: daemon.sessionMcpServers,
    sessionWorkspaceIo: daemon.sessionWorkspaceIo,
    close: async () => {
      await client.shutdown().catch(() => client.dispose());
      await daemon.stopped;
    },
  };
}

function socketToken(dataDir: string): string {
  const file = join(dataDir, 'token');
  try {
    return readTokenFile(file);
  } catch (error) {
    throw new ConfigError(
      `cannot read the daemon token ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}); ` +
        "pass the daemon's --data-dir",
    );
  }
}
