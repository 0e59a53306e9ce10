/**
 * `arbor daemon --stdio`: one client, the process that spawned us. stdout
 * carries frames and nothing else; the process exits on `exit` (code 0 if
 * `shutdown` came first, else 1, as in LSP) or when stdin closes.
 */
import type { DaemonContext } from './daemonContext.js';
import { ClientConnection } from './clientConnection.js';
import { buildRouter } from './handlers/index.js';

export function serveStdio(context: DaemonContext): ClientConnection {
  guardStdout();
  const connection = new ClientConnection({
    input: process.stdin,
    output: process.stdout,
    context,
    router: buildRouter(context),
    // The process exits after this client: its turns end as cancelled, not interrupted.
    onShutdown: () => context.sessions.stopRunningTurns(),
    onClosed: ({ shutdownRequested }) => {
      context.log.info(`stdio client gone; exiting with ${shutdownRequested ? 0 : 1}`);
      process.exit(shutdownRequested ? 0 : 1);
    },
  });
  connection.start();
  return connection;
}

/** Any stray console output (ours or a library's) would corrupt the frame stream. */
export function guardStdout(): void {
  const toStderr = (...args: unknown[]): void => {
    process.stderr.write(args.map(String).join(' ') + '\n');
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
