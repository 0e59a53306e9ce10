/**
 * The Arbor daemon `arbor acp` runs inside its own process: the same daemon
 * context `arbor daemon` builds (store in the data dir, sessions, the lazily
 * loaded agent), with one client connection over an in-memory stream pair.
 * The bridge speaks the Arbor protocol to it exactly as to a socket daemon.
 */
import { PassThrough } from 'node:stream';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type { DaemonConfig } from '../config/daemonConfig.js';
import { prepareDataDir } from '../config/dataDir.js';
import type { Logger } from '../logging/logger.js';
import { ClientConnection } from '../server/clientConnection.js';
import { buildRouter } from '../server/handlers/index.js';
import {
  createDaemonContext,
  type SessionMcpServers,
  type SessionWorkspaceIo,
} from '../server/startDaemon.js';
import { daemonVersion } from '../cli/version.js';

export interface InProcessDaemon {
  /** The client end, not listening yet (ArborClient listens once its handlers are set). */
  connection: MessageConnection;
  /** Settles once the client connection ended (after `exit`), the MCP servers stopped and the store is closed. */
  stopped: Promise<void>;
  /** Runs the MCP servers the editor passes for a session. */
  sessionMcpServers: SessionMcpServers;
  /** Lets the editor's files and terminals serve a session's workspace tools. */
  sessionWorkspaceIo: SessionWorkspaceIo;
}

export async function startInProcessDaemon(
  config: DaemonConfig,
  log: Logger,
): Promise<InProcessDaemon> {
  prepareDataDir(config.dataDir);
  const { context, store, sessionMcpServers, sessionWorkspaceIo } = await createDaemonContext({
    config,
    log,
    daemonVersion: daemonVersion(),
    testing: false,
  });
  log.info(`acp: sessions stored in ${store.path}`);
  const toDaemon = new PassThrough();
  const fromDaemon = new PassThrough();
  const stopped = new Promise<void>((resolve) => {
    const server = new ClientConnection({
      input: toDaemon,
      output: fromDaemon,
      context,
      router: buildRouter(context),
      // The bridge's process ends with its client: running turns end cancelled, not interrupted.
      onShutdown: () => context.sessions.stopRunningTurns(),
      // Server processes would keep the bridge's process alive after the editor left.
      onClosed: () =>
        void sessionMcpServers
          .stopAll()
          .catch((error: unknown) => log.warn(`acp: stopping MCP servers: ${String(error)}`))
          .finally(() => {
            store.close();
            resolve();
          }),
    });
    server.start();
  });
  const connection = createMessageConnection(
    new StreamMessageReader(fromDaemon),
    new StreamMessageWriter(toDaemon),
  );
  return { connection, stopped, sessionMcpServers, sessionWorkspaceIo };
}
