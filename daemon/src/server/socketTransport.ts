/**
 * `arbor daemon --listen <path | 127.0.0.1:port>`: many clients at once, each
 * with its own connection and lifecycle; `exit` closes only that connection.
 * Unix sockets are created with mode 0600; a stale socket file left by a dead
 * daemon is replaced, a live one is never stolen.
 */
import { existsSync, chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { DaemonContext } from './daemonContext.js';
import { ClientConnection } from './clientConnection.js';
import { DEFAULT_CONNECTION_LIMITS } from './connectionLimits.js';
import { buildRouter } from './handlers/index.js';
import { formatAddress, type ListenAddress } from './listenAddress.js';

export interface SocketServer {
  /** The bound address (the real port when 0 was asked for). */
  address: ListenAddress;
  close(): Promise<void>;
}

export async function serveSocket(
  context: DaemonContext,
  address: ListenAddress,
  token: string,
): Promise<SocketServer> {
  const router = buildRouter(context);
  const clients = new Set<ClientConnection>();
  const { maxUnauthenticated } = { ...DEFAULT_CONNECTION_LIMITS, ...context.connectionLimits };
  /** Connections that have not presented the token yet: a stranger cannot open unboundedly many. */
  const unauthenticated = new Set<ClientConnection>();
  const server = createServer((socket: Socket) => {
    socket.on('error', (error) => context.log.debug(`socket error: ${error.message}`));
    if (unauthenticated.size >= maxUnauthenticated) {
      context.log.warn(
        `refused a connection: ${unauthenticated.size} connections have not authenticated yet`,
      );
      socket.destroy();
      return;
    }
    const client = new ClientConnection({
      input: socket,
      output: socket,
      context,
      router,
      requiredToken: token,
      onAuthenticated: () => unauthenticated.delete(client),
      onClosed: () => {
        clients.delete(client);
        unauthenticated.delete(client);
        socket.destroySoon?.();
      },
    });
    unauthenticated.add(client);
    clients.add(client);
    client.start();
  });

  if (address.kind === 'unix') await removeStaleSocket(address.path);
  const bound = await listen(server, address);
  if (bound.kind === 'unix') chmodSync(bound.path, 0o600);
  context.log.info(`listening on ${formatAddress(bound)}`);

  return {
    address: bound,
    close: () =>
      new Promise<void>((resolvePromise) => {
        for (const client of clients) client.close();
        server.close(() => resolvePromise());
        if (bound.kind === 'unix') tryUnlink(bound.path);
      }),
  };
}

async function listen(server: Server, address: ListenAddress): Promise<ListenAddress> {
  // umask 0177 while binding: the socket file never exists with looser permissions.
  const previousUmask = address.kind === 'unix' ? process.umask(0o177) : undefined;
  try {
    await new Promise<void>((resolvePromise, reject) => {
      server.once('error', reject);
      if (address.kind === 'unix') server.listen(address.path, resolvePromise);
      else server.listen(address.port, address.host, resolvePromise);
    });
  } finally {
    if (previousUmask !== undefined) process.umask(previousUmask);
  }
  const actual = server.address();
  if (address.kind === 'tcp' && actual && typeof actual === 'object') {
    return { kind: 'tcp', host: address.host, port: actual.port };
  }
  return address;
}

async function removeStaleSocket(path: string): Promise<void> {
  if (!existsSync(path)) return;
  if (!lstatSync(path).isSocket()) {
    throw new Error(`--listen: ${path} exists and is not a socket; refusing to replace it`);
  }
  const alive = await new Promise<boolean>((resolvePromise) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      resolvePromise(true);
    });
    probe.once('error', () => resolvePromise(false));
  });
  if (alive) throw new Error(`--listen: another daemon is already listening on ${path}`);
  tryUnlink(path);
}

function tryUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
