/**
 * DaemonSupervisor: one live connection to an Arbor daemon at a time.
 *
 * Spawns the bundled daemon (`node arbor.js daemon --stdio`) or attaches to a
 * running one over `arbor.daemon.socket` with the token from its data dir;
 * restarts a crashed daemon with exponential backoff; traces the wire into the
 * "Arbor" output channel as `arbor.trace.server` says, like LSP clients do.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Trace, type MessageConnection } from 'vscode-jsonrpc';
import { ArborClient, type ArborClientOptions } from '@arbor/protocol/client';
import { connectSocket, spawnDaemon, type DaemonProcess } from '@arbor/protocol/client/node';
import type { InitializeResult } from '@arbor/protocol';
import { effectiveDataDir, readSettings, type ArborSettings } from '../config.js';
import type { ConnectionStatus } from '../shared/messages.js';
import { Disposable } from '../util/disposable.js';
import { RestartBackoff } from './backoff.js';
import { checkNode } from './nodeRuntime.js';

export interface ConnectionState {
  status: ConnectionStatus;
  message?: string;
}

export interface Connected {
  client: ArborClient;
  init: InitializeResult;
}

/** Called with a fresh client before `initialize`, so handlers and capabilities are in place. */
export type ClientSetup = (client: ArborClient) => void;

export class DaemonSupervisor extends Disposable {
  readonly #onDidChangeState = this._register(new vscode.EventEmitter<ConnectionState>());
  readonly onDidChangeState = this.#onDidChangeState.event;
  readonly #onDidConnect = this._register(new vscode.EventEmitter<Connected>());
  readonly onDidConnect = this.#onDidConnect.event;

  #state: ConnectionState = { status: 'stopped' };
  #client: ArborClient | undefined;
  #process: DaemonProcess | undefined;
  #socketEnd: (() => void) | undefined;
  #connectedAt = 0;
  #stopping = false;
  #restartTimer: NodeJS.Timeout | undefined;
  #generation = 0;
  readonly #backoff = new RestartBackoff();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly output: vscode.OutputChannel,
    private readonly clientOptions: () => Promise<{
      options: ArborClientOptions;
      env: Record<string, string>;
    }>,
    private readonly setup: ClientSetup,
  ) {
    super();
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get client(): ArborClient | undefined {
    return this.#client?.phase === 'ready' ? this.#client : undefined;
  }

  async start(): Promise<void> {
    this.#stopping = false;
    clearTimeout(this.#restartTimer);
    const generation = ++this.#generation;
    const settings = readSettings();
    this.#setState({ status: this.#state.status === 'restarting' ? 'restarting' : 'starting' });
    try {
      const { connection, describe } = settings.socket
        ? await this.#attach(settings)
        : await this.#spawn(settings);
      if (generation !== this.#generation) return;
      this.#traceInto(connection, settings);
      const { options } = await this.clientOptions();
      const token = settings.socket ? readToken(settings) : undefined;
      const client = new ArborClient(connection, {
        clientInfo: { name: 'arbor-vscode', version: extensionVersion(this.extensionUri) },
        ...options,
        ...(token !== undefined && { token }),
      });
      this.#client = client;
      client.on('error', (error) => this.output.appendLine(`[client] ${error.message}`));
      client.on('close', () => this.#onClosed(generation));
      this.setup(client);
      const init = await client.initialize();
      this.#connectedAt = Date.now();
      this.output.appendLine(
        `Connected to ${init.serverInfo.name} ${init.serverInfo.version ?? ''} (protocol ${init.protocolVersion}) ${describe}`,
      );
      this.#setState({ status: 'ready' });
      this.#onDidConnect.fire({ client, init });
    } catch (error) {
      if (generation !== this.#generation) return;
      const message = error instanceof Error ? error.message : String(error);
      this.output.appendLine(`Could not start the Arbor daemon: ${message}`);
      this.#teardown();
      if (error instanceof NodeMissingError) {
        this.#setState({ status: 'failed', message });
        void vscode.window.showErrorMessage(message, 'Open Settings').then((choice) => {
          if (choice)
            void vscode.commands.executeCommand('workbench.action.openSettings', 'arbor.nodePath');
        });
        return;
      }
      this.#scheduleRestart(0, message);
    }
  }

  /** Restart Daemon: stop the current one (if any) and start afresh. */
  async restart(): Promise<void> {
    this.#backoff.reset();
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#generation++;
    clearTimeout(this.#restartTimer);
    const client = this.#client;
    const child = this.#process?.child;
    this.#client = undefined;
    if (client) {
      await Promise.race([client.shutdown().catch(() => undefined), delay(3000)]);
    }
    if (child && child.exitCode === null && child.signalCode === null) child.kill();
    this.#socketEnd?.();
    this.#teardown();
    this.#setState({ status: 'stopped' });
  }

  override dispose(): void {
    void this.stop();
    super.dispose();
  }

  async #spawn(
    settings: ArborSettings,
  ): Promise<{ connection: MessageConnection; describe: string }> {
    const check = await checkNode(settings.nodePath);
    if (!check.ok) throw new NodeMissingError(check.message);
    const entry = this.#daemonEntry(settings);
    const args = [entry, 'daemon', '--stdio', ...settings.daemonArgs];
    if (settings.dataDir) args.push('--data-dir', settings.dataDir);
    const { env } = await this.clientOptions();
    this.output.appendLine(
      `Starting: ${settings.nodePath} ${args.join(' ')} (Node ${check.version})`,
    );
    const daemon = await spawnDaemon({
      command: settings.nodePath,
      args,
      cwd: path.dirname(entry),
      env: { ...process.env, ...env },
      onStderr: (text) => this.output.append(text),
    });
    this.#process = daemon;
    void daemon.exited.then(({ code, signal }) => {
      this.output.appendLine(`Daemon exited (code ${code}${signal ? `, signal ${signal}` : ''})`);
    });
    return { connection: daemon.connection, describe: `over stdio (pid ${daemon.child.pid})` };
  }

  async #attach(
    settings: ArborSettings,
  ): Promise<{ connection: MessageConnection; describe: string }> {
    this.output.appendLine(`Attaching to the daemon at ${settings.socket}`);
    const { socket, connection } = await connectSocket(settings.socket);
    this.#socketEnd = () => socket.end();
    return { connection, describe: `on ${settings.socket}` };
  }

  /** The bundled daemon in a packaged extension; the repository's launcher when run from source. */
  #daemonEntry(settings: ArborSettings): string {
    if (settings.daemonPath) return settings.daemonPath;
    const bundled = vscode.Uri.joinPath(this.extensionUri, 'dist', 'daemon', 'arbor.js').fsPath;
    if (fs.existsSync(bundled)) return bundled;
    return vscode.Uri.joinPath(this.extensionUri, '..', 'daemon', 'bin', 'arbor.js').fsPath;
  }

  #traceInto(connection: MessageConnection, settings: ArborSettings): void {
    if (settings.trace === 'off') return;
    const level = settings.trace === 'verbose' ? Trace.Verbose : Trace.Messages;
    void connection.trace(level, {
      log: (message: string, data?: string) => {
        this.output.appendLine(`[trace] ${message}`);
        if (data) this.output.appendLine(data);
      },
    });
  }

  #onClosed(generation: number): void {
    if (generation !== this.#generation || this.#stopping) return;
    const uptime = Date.now() - this.#connectedAt;
    this.#teardown();
    this.#scheduleRestart(uptime, 'The Arbor daemon stopped unexpectedly.');
  }

  #scheduleRestart(uptimeMs: number, reason: string): void {
    const wait = this.#backoff.next(uptimeMs);
    if (wait === undefined) {
      const message = `${reason} Arbor gave up restarting it; see "Arbor: Show Logs".`;
      this.#setState({ status: 'failed', message });
      void vscode.window.showErrorMessage(message, 'Restart Daemon', 'Show Logs').then((choice) => {
        if (choice === 'Restart Daemon') void vscode.commands.executeCommand('arbor.restartDaemon');
        if (choice === 'Show Logs') this.output.show(true);
      });
      return;
    }
    this.output.appendLine(`${reason} Restarting in ${Math.round(wait / 1000)} s.`);
    this.#setState({
      status: 'restarting',
      message: `${reason} Restarting in ${Math.round(wait / 1000)} s…`,
    });
    this.#restartTimer = setTimeout(() => void this.start(), wait);
  }

  #teardown(): void {
    this.#client?.dispose();
    this.#client = undefined;
    this.#process = undefined;
    this.#socketEnd = undefined;
  }

  #setState(state: ConnectionState): void {
    this.#state = state;
    this.#onDidChangeState.fire(state);
  }
}

class NodeMissingError extends Error {}

function readToken(settings: ArborSettings): string {
  const file = path.join(effectiveDataDir(settings), 'token');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new Error(`Cannot read the daemon token at ${file}: ${(error as Error).message}`);
  }
}

function extensionVersion(uri: vscode.Uri): string {
  try {
    const pkg = JSON.parse(
      fs.readFileSync(vscode.Uri.joinPath(uri, 'package.json').fsPath, 'utf8'),
    ) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
