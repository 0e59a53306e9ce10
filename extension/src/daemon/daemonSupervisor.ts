/**
 * DaemonSupervisor: one live connection to an Arbor daemon at a time.
 *
 * Spawns the bundled daemon (`node arbor.js daemon --stdio`, on the Node
 * nodeRuntime.ts chooses) or attaches to a running one over
 * `arbor.daemon.socket` with the token from its data dir; restarts a crashed
 * daemon as restartLoop.ts decides (capped backoff, then one notification;
 * configuration problems at once, never retried); says when a live
 * connection is lost, so a running turn can end in the view; traces the wire
 * into the "Arbor" output channel as `arbor.trace.server` says, like LSP
 * clients do.
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
import { chooseDaemonRuntime } from './nodeRuntime.js';
import type { BackoffOptions } from './backoff.js';
import { RestartLoop, type Clock, type DaemonFailure } from './restartLoop.js';

export interface ConnectionState {
  status: ConnectionStatus;
  message?: string;
}

export interface Connected {
  client: ArborClient;
  init: InitializeResult;
}

/** A live connection ended without being asked to: why, in words for the user. */
export interface Disconnected {
  reason: string;
}

/** Called with a fresh client before `initialize`, so handlers and capabilities are in place. */
export type ClientSetup = (client: ArborClient) => void;

export class DaemonSupervisor extends Disposable {
  readonly #onDidChangeState = this._register(new vscode.EventEmitter<ConnectionState>());
  readonly onDidChangeState = this.#onDidChangeState.event;
  readonly #onDidConnect = this._register(new vscode.EventEmitter<Connected>());
  readonly onDidConnect = this.#onDidConnect.event;
  /** Fires before the state leaves `ready`, so a running turn can still be named. */
  readonly #onDidDisconnect = this._register(new vscode.EventEmitter<Disconnected>());
  readonly onDidDisconnect = this.#onDidDisconnect.event;

  #state: ConnectionState = { status: 'stopped' };
  #client: ArborClient | undefined;
  #process: DaemonProcess | undefined;
  #socketEnd: (() => void) | undefined;
  /** The end of the spawned daemon's stderr: its last line says why a start failed. */
  #stderrTail = '';
  #stopping = false;
  /** Bumped by every start, stop and failure: callbacks of an older attempt do nothing. */
  #generation = 0;
  readonly #restarts: RestartLoop;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly output: vscode.OutputChannel,
    private readonly clientOptions: () => Promise<{
      options: ArborClientOptions;
      env: Record<string, string>;
    }>,
    private readonly setup: ClientSetup,
    /** Tests shorten the waits; the defaults are backoff.ts's. */
    restartPolicy: { clock?: Clock; backoff?: BackoffOptions } = {},
  ) {
    super();
    this.#restarts = new RestartLoop(
      {
        restart: () => void this.start(),
        retrying: (reason, waitMs) => {
          const seconds = Math.max(1, Math.round(waitMs / 1000));
          this.output.appendLine(`${reason} Restarting in ${seconds} s.`);
          this.#setState({
            status: 'restarting',
            message: `${reason} Restarting in ${seconds} s…`,
          });
        },
        gaveUp: (reason) =>
          this.#reportFailure(
            `${reason} Arbor stopped restarting the daemon after several attempts.`,
            'arbor',
          ),
        configurationError: (reason) => this.#reportFailure(reason, settingOf(reason)),
      },
      restartPolicy.clock,
      restartPolicy.backoff,
    );
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get client(): ArborClient | undefined {
    return this.#client?.phase === 'ready' ? this.#client : undefined;
  }

  /** The spawned daemon's process id (none when attached to a socket). */
  get pid(): number | undefined {
    return this.#process?.child.pid;
  }

  async start(): Promise<void> {
    this.#stopping = false;
    const generation = ++this.#generation;
    const settings = readSettings();
    this.#setState(
      this.#state.status === 'restarting'
        ? { status: 'restarting', message: 'Starting the Arbor daemon again…' }
        : { status: 'starting' },
    );
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
      client.on('close', () => void this.#onClosed(generation));
      this.setup(client);
      const init = await this.#initialize(client);
      if (generation !== this.#generation) return;
      this.#restarts.ready();
      this.output.appendLine(
        `Connected to ${init.serverInfo.name} ${init.serverInfo.version ?? ''} (protocol ${init.protocolVersion}) ${describe}`,
      );
      this.#setState({ status: 'ready' });
      this.#onDidConnect.fire({ client, init });
    } catch (error) {
      if (generation !== this.#generation) return;
      const failure = await this.#startFailure(error);
      this.output.appendLine(`Could not start the Arbor daemon: ${failure.reason}`);
      this.#fail(generation, failure);
    }
  }

  /**
   * `initialize`, or why it will never be answered: a daemon that dies early
   * can close its pipes before the client listens (no `close` then), and a
   * daemon may hang. Either way start() must end, or nothing restarts it.
   */
  async #initialize(client: ArborClient): Promise<InitializeResult> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer to initialize within ${INITIALIZE_TIMEOUT_MS / 1000} s`)),
        INITIALIZE_TIMEOUT_MS,
      );
    });
    const exited = this.#process?.exited.then(({ code, signal }) => {
      throw new Error(`the daemon exited (${signal ? `signal ${signal}` : `code ${code}`})`);
    });
    exited?.catch(() => undefined);
    try {
      return await Promise.race([client.initialize(), timedOut, ...(exited ? [exited] : [])]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Restart Daemon (or Retry): stop the current one (if any) and start afresh, with a fresh count. */
  async restart(): Promise<void> {
    this.#restarts.reset();
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#generation++;
    this.#restarts.cancel();
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
    const entry = this.#daemonEntry(settings);
    const choice = await chooseDaemonRuntime(settings.nodePath);
    if (!choice.ok) throw new ConfigurationError(choice.message);
    const { runtime } = choice;
    const args = [entry, 'daemon', '--stdio', ...settings.daemonArgs];
    if (settings.dataDir) args.push('--data-dir', settings.dataDir);
    const { env } = await this.clientOptions();
    this.output.appendLine(`Starting: ${runtime.command} ${args.join(' ')} (${runtime.describe})`);
    this.#stderrTail = '';
    const daemon = await spawnDaemon({
      command: runtime.command,
      args,
      cwd: path.dirname(entry),
      env: { ...process.env, ...env, ...runtime.env },
      onStderr: (text) => {
        this.output.append(text);
        this.#stderrTail = (this.#stderrTail + text).slice(-4000);
      },
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
    if (settings.daemonPath) {
      if (!fs.existsSync(settings.daemonPath))
        throw new ConfigurationError(
          `"arbor.daemon.path" is ${settings.daemonPath}, which does not exist. Correct it or clear it to use the bundled daemon.`,
        );
      return settings.daemonPath;
    }
    const bundled = vscode.Uri.joinPath(this.extensionUri, 'dist', 'daemon', 'arbor.js').fsPath;
    if (fs.existsSync(bundled)) return bundled;
    return vscode.Uri.joinPath(this.extensionUri, '..', 'daemon', 'bin', 'arbor.js').fsPath;
  }

  /**
   * Why a start failed, and whether retrying can help: a spawned daemon that
   * exits with code 2 before `initialize` rejected its configuration (config
   * file, flags from arbor.daemon.args, data dir, a Node without SQLite) and
   * said why on its last stderr line.
   */
  async #startFailure(error: unknown): Promise<DaemonFailure> {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof ConfigurationError) return { kind: 'configuration', reason: message };
    // Generous: on a loaded machine the exit can trail the closed pipes by seconds,
    // and a configuration error must not be taken for a crash and retried.
    const exited = this.#process && (await Promise.race([this.#process.exited, delay(5000)]));
    // `exit` can come before the last of stderr, whose last line is the reason.
    const stderr = this.#process?.child.stderr;
    if (exited && stderr && !stderr.readableEnded)
      await Promise.race([new Promise((resolve) => stderr.once('end', resolve)), delay(500)]);
    if (exited && exited.code === 2) {
      const said = lastLine(this.#stderrTail).replace(/^arbor:\s*/, '');
      return {
        kind: 'configuration',
        reason: `The Arbor daemon refused to start: ${said || `exit code 2 (${message})`}`,
      };
    }
    if (exited) {
      const how = exited.signal ? `signal ${exited.signal}` : `exit code ${exited.code}`;
      const said = lastLine(this.#stderrTail);
      return {
        kind: 'crash',
        reason: `The Arbor daemon exited during startup (${how})${said ? `: ${said}` : ''}.`,
      };
    }
    return { kind: 'crash', reason: `The Arbor daemon could not be started: ${message}.` };
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

  /** The connection of attempt `generation` ended: a lost daemon, or a start that failed (start() reports that). */
  async #onClosed(generation: number): Promise<void> {
    if (generation !== this.#generation || this.#stopping) return;
    // Before `initialize` was answered: disposing rejects it, and start() reports the failure.
    if (this.#state.status !== 'ready') {
      this.#client?.dispose();
      return;
    }
    const reason = await this.#lossReason();
    if (generation !== this.#generation || this.#stopping) return;
    this.output.appendLine(reason);
    this.#onDidDisconnect.fire({ reason });
    this.#fail(generation, { kind: 'crash', reason });
  }

  /** What the user is told when a ready connection ends: the exit status of a spawned daemon, if it comes soon. */
  async #lossReason(): Promise<string> {
    const socket = readSettings().socket;
    if (!this.#process) return `The connection to the Arbor daemon at ${socket} was lost.`;
    const exited = await Promise.race([this.#process.exited, delay(1000)]);
    if (!exited) return 'The Arbor daemon stopped answering.';
    const how = exited.signal ? `killed by ${exited.signal}` : `exit code ${exited.code}`;
    return `The Arbor daemon stopped unexpectedly (${how}).`;
  }

  /** The one path every failure of attempt `generation` takes, however many ways it surfaced. */
  #fail(generation: number, failure: DaemonFailure): void {
    if (generation !== this.#generation) return;
    this.#generation++;
    const child = this.#process?.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill();
    this.#socketEnd?.();
    this.#teardown();
    this.#restarts.failed(failure);
  }

  /** The daemon will not come back by itself: say why once, and offer what helps. */
  #reportFailure(message: string, setting: string): void {
    this.#setState({ status: 'failed', message });
    void vscode.window
      .showErrorMessage(`Arbor: ${message}`, 'Show Log', 'Retry', 'Open Settings')
      .then((choice) => {
        if (choice === 'Show Log') this.output.show(true);
        if (choice === 'Retry') void this.restart();
        if (choice === 'Open Settings')
          void vscode.commands.executeCommand('workbench.action.openSettings', setting);
      });
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

/** A daemon that has not answered `initialize` by then counts as failed to start. */
const INITIALIZE_TIMEOUT_MS = 30_000;

/** A problem the user must fix in settings or on the machine: not retried. */
class ConfigurationError extends Error {}

/** The setting to open for a configuration problem (the Node one when it is about Node). */
function settingOf(reason: string): string {
  return /node/i.test(reason) && !/arbor\.daemon/.test(reason) ? 'arbor.nodePath' : 'arbor';
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.trim() ?? '';
}

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
