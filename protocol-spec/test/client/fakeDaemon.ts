/**
 * An in-process fake daemon: a real vscode-jsonrpc connection on the other
 * end of a pair of linked streams. Tests script its answers per method and
 * read back everything the client sent.
 */
import { PassThrough } from 'node:stream';
import {
  createMessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  type CancellationToken,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import { Methods, type InitializeResult } from '../../src/index.js';

export interface Received {
  kind: 'request' | 'notification';
  method: string;
  params: unknown;
}

type Answer = (params: unknown, token: CancellationToken) => unknown;

export const DAEMON_INIT: InitializeResult = {
  protocolVersion: 1,
  serverInfo: { name: 'fake-arbor', version: '0.0.0' },
  capabilities: { attach: { replay: true, replayRetention: 1000 } },
  clientId: 'client_1',
};

export class FakeDaemon {
  readonly connection: MessageConnection;
  /** The client's end: hand it to ArborClient. */
  readonly clientConnection: MessageConnection;
  readonly received: Received[] = [];
  readonly answers = new Map<string, Answer>();
  readonly #waiters: { method: string; resolve: (r: Received) => void }[] = [];

  constructor() {
    const toDaemon = new PassThrough();
    const toClient = new PassThrough();
    this.connection = createMessageConnection(
      new StreamMessageReader(toDaemon),
      new StreamMessageWriter(toClient),
    );
    this.clientConnection = createMessageConnection(
      new StreamMessageReader(toClient),
      new StreamMessageWriter(toDaemon),
    );
    this.answers.set(Methods.Initialize.method, () => DAEMON_INIT);
    this.answers.set(Methods.Shutdown.method, () => null);
    this.connection.onRequest((method, params, token) => {
      this.#record({ kind: 'request', method, params });
      const answer = this.answers.get(method);
      if (!answer) throw new ResponseError(-32601, `Unhandled method ${method}`);
      return answer(params, token);
    });
    this.connection.onNotification((method, params) =>
      this.#record({ kind: 'notification', method, params }),
    );
    this.connection.listen();
  }

  /** Resolves with the next message of `method` (or one already received and not yet awaited). */
  next(method: string): Promise<Received> {
    const seen = this.received.find((r) => r.method === method && !this.#taken.has(r));
    if (seen) {
      this.#taken.add(seen);
      return Promise.resolve(seen);
    }
    return new Promise((resolve) => this.#waiters.push({ method, resolve }));
  }

  methods(): string[] {
    return this.received.map((r) => r.method);
  }

  notify(method: string, params: unknown): Promise<void> {
    return this.connection.sendNotification(method, params);
  }

  request(method: string, params: unknown, token?: CancellationToken): Promise<unknown> {
    return token
      ? this.connection.sendRequest(method, params, token)
      : this.connection.sendRequest(method, params);
  }

  dispose(): void {
    this.connection.dispose();
  }

  readonly #taken = new Set<Received>();

  #record(message: Received): void {
    this.received.push(message);
    const at = this.#waiters.findIndex((w) => w.method === message.method);
    if (at >= 0) {
      const [waiter] = this.#waiters.splice(at, 1);
      this.#taken.add(message);
      waiter!.resolve(message);
    }
  }
}

/** Lets queued stream data and promise callbacks run. */
export function settle(ms = 20): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
