/**
 * One client on one stream pair (stdio, or one socket connection): the
 * hardened reader, the vscode-jsonrpc connection, the lifecycle, and the
 * bridge between the client and the sessions it is attached to.
 */
import type { Readable, Writable } from 'node:stream';
import {
  Methods,
  type ApprovalRequestParams,
  type QuestionRequestParams,
  type ClientCapabilities,
  type ClientToolDeclaration,
  type InitializeResult,
  type LogTraceParams,
  type RequestDescriptor,
  type ToolExecuteParams,
  type TraceValue,
  ArborErrorCodes,
  JsonRpcErrorCodes,
} from '@arbor/protocol';
import {
  CancellationTokenSource,
  ResponseError,
  Trace,
  createMessageConnection,
  type CancellationToken,
  type Message,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import { RpcError, rpcErrors } from '../rpcError.js';
import { daemonSecrets } from '../security/secretRedactor.js';
import type { ClientPeer } from '../session/clientPeer.js';
import { eventForClient } from './v1Events.js';
import type { EventSubscriber, SessionEvent } from '../session/eventBus.js';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './connectionLimits.js';
import { daemonCapabilities, type DaemonContext } from './daemonContext.js';
import { FrameWriter } from './frameWriter.js';
import { HardenedMessageReader } from './hardenedMessageReader.js';
import { ConnectionLifecycle } from './connectionLifecycle.js';
import { MethodRouter, parseParams } from './methodRouter.js';
import {
  checkToken,
  declaredCapabilities,
  declaredToolManifest,
  initialTrace,
  negotiateVersion,
} from './negotiation.js';
import { ObservedWriter } from './observedWriter.js';
import type { ProtocolFault } from './protocolFault.js';

/** Longest wait for pending answers when the input ends or exit arrives. */
const DRAIN_TIMEOUT_MS = 2000;

/** What a method handler knows about the client that sent the request. */
export interface ClientContext {
  readonly clientId: string;
  /** This client as an event subscriber, for session/new and session/attach. */
  readonly subscriber: EventSubscriber;
  /** What the client advertised in `initialize` (e.g. openEnums: the values it may be sent). */
  readonly capabilities: ClientCapabilities;
  /** Runs `fn` once the response to the current request has been queued for writing. */
  afterReply(fn: () => void): void;
}

export interface ClosedInfo {
  /** The client sent `exit` (rather than just dropping the stream). */
  exitRequested: boolean;
  /** `shutdown` came before the end: LSP's exit code 0. */
  shutdownRequested: boolean;
}

export interface ClientConnectionOptions {
  input: Readable;
  output: Writable;
  context: DaemonContext;
  router: MethodRouter<ClientContext>;
  /** Socket mode: the token `initialize` must present. Undefined on stdio. */
  requiredToken?: string;
  /** Runs on `shutdown` before it is answered (stdio: stop the running turns). */
  onShutdown?: () => Promise<void>;
  /** Socket mode: called once, when `initialize` presented the right token. */
  onAuthenticated?: () => void;
  onClosed(info: ClosedInfo): void;
}

export class ClientConnection implements EventSubscriber, ClientPeer {
  readonly clientId: string;
  private readonly lifecycle = new ConnectionLifecycle();
  private readonly writer: ObservedWriter;
  private readonly frames: FrameWriter;
  private readonly limits: ConnectionLimits;
  /** stdio needs no token; a socket connection is authenticated by a successful initialize. */
  private authenticated: boolean;
  private authTimer: NodeJS.Timeout | undefined;

  private readonly connection: MessageConnection;
  private clientCapabilities: ClientCapabilities = {};
  private declared: readonly ClientToolDeclaration[] = [];
  private exitRequested = false;
  private readonly reader: HardenedMessageReader;
  private responsesWritten = 0;
  private notificationsHandled = 0;
  private readonly faultResponses = new WeakSet<object>();
  /** The client's `initialized` arrived: only now may we send it requests. */
  private isReady = false;
  private readonly readyWaiters = new Set<(ready: boolean) => void>();

  constructor(private readonly options: ClientConnectionOptions) {
    const { context } = options;
    this.clientId = context.nextClientId();
    this.limits = { ...DEFAULT_CONNECTION_LIMITS, ...context.connectionLimits };
    this.authenticated = options.requiredToken === undefined;
    this.frames = new FrameWriter(options.output, context.sessions.storeCommits);
    this.writer = new ObservedWriter(this.frames, (m) => this.afterWrite(m));
    const reader = (this.reader = new HardenedMessageReader(options.input, {
      maxMessageBytes: () =>
        this.authenticated
          ? context.maxMessageBytes
          : Math.min(context.maxMessageBytes, this.limits.preAuthMaxMessageBytes),
      onFault: (fault) => this.answerFault(fault),
    }));
    this.connection = createMessageConnection(reader, this.writer, {
      error: (m) => context.log.debug(`${this.clientId}: jsonrpc: ${m}`),
      warn: (m) => context.log.debug(`${this.clientId}: jsonrpc: ${m}`),
      info: () => undefined,
      log: () => undefined,
    });
    this.connection.onRequest((method, params, token) => this.onRequest(method, params, token));
    this.connection.onNotification((method, params) => this.onNotification(method, params));
    // End of input: answer what was already received, then close.
    this.connection.onClose(() => this.closeWhenDrained());
    this.connection.onError(([error]) =>
      context.log.debug(`${this.clientId}: transport error: ${error.message}`),
    );
    options.output.on('error', () => this.close());
  }

  get capabilities(): ClientCapabilities {
    return this.clientCapabilities;
  }

  /** The client tools manifest of `initialize` (kept only when both sides advertise clientTools). */
  get declaredTools(): readonly ClientToolDeclaration[] {
    return this.declared;
  }

  get isClosed(): boolean {
    return this.lifecycle.state === 'closed';
  }

  requestApproval(params: ApprovalRequestParams, cancel: AbortSignal): Promise<unknown> {
    return this.sendRequest(Methods.ApprovalRequest, params, cancel);
  }

  askQuestion(params: QuestionRequestParams, cancel: AbortSignal): Promise<unknown> {
    return this.sendRequest(Methods.QuestionRequest, params, cancel);
  }

  executeTool(params: ToolExecuteParams, cancel: AbortSignal): Promise<unknown> {
    return this.sendRequest(Methods.ToolExecute, params, cancel);
  }

  /**
   * A daemon-to-client request. It waits for the client's `initialized`
   * (lifecycle.md#lifecycle-daemon-quiet-before-initialized). Rejects on an
   * error response and when the connection closes; aborting `cancel` sends
   * `$/cancelRequest` (or, before it was sent, just drops it).
   */
  private async sendRequest(
    descriptor: RequestDescriptor,
    params: unknown,
    cancel: AbortSignal,
  ): Promise<unknown> {
    if (!this.isReady) await this.whenReady(cancel);
    if (this.lifecycle.state !== 'initialized') {
      throw new Error(`${this.clientId} is not connected`);
    }
    const source = new CancellationTokenSource();
    const onAbort = (): void => source.cancel();
    if (cancel.aborted) onAbort();
    else cancel.addEventListener('abort', onAbort, { once: true });
    // Like every event (eventBus), a request carries no secret the daemon knows of (security.md#secrets):
    // a tool call's arguments may hold one, e.g. credentials in a web_fetch URL.
    const redacted = daemonSecrets.redactDeep(params);
    return this.connection.sendRequest(descriptor.method, redacted, source.token).finally(() => {
      cancel.removeEventListener('abort', onAbort);
      source.dispose();
    });
  }

  /** Resolves on `initialized`; rejects when `cancel` aborts or the connection closes first. */
  private whenReady(cancel: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const settle = (ready: boolean): void => {
        this.readyWaiters.delete(settle);
        cancel.removeEventListener('abort', onAbort);
        if (ready) resolve();
        else reject(new Error(`${this.clientId} closed or cancelled before it was ready`));
      };
      const onAbort = (): void => settle(false);
      if (cancel.aborted) return onAbort();
      cancel.addEventListener('abort', onAbort, { once: true });
      this.readyWaiters.add(settle);
    });
  }

  start(): void {
    this.options.context.log.info(`${this.clientId}: connected`);
    if (!this.authenticated) {
      this.authTimer = setTimeout(() => {
        this.options.context.log.warn(
          `${this.clientId}: no valid initialize within ${this.limits.authTimeoutMs} ms; closing`,
        );
        this.close();
      }, this.limits.authTimeoutMs);
      this.authTimer.unref();
    }
    this.connection.listen();
  }

  /** Session events reach the client as notifications named by their method. */
  deliver(event: SessionEvent, replayed = false): void {
    // Also while `shutdown` stops the turns: their last events are the client's.
    if (this.lifecycle.state !== 'initialized' && this.lifecycle.state !== 'shutdown') return;
    const sessionId = (event.params as { sessionId?: unknown }).sessionId;
    // A replay is what the client asked for by attaching, bounded by the store's retention;
    // only live events wait on a client that does not read.
    const backlogged = this.frames.queuedBytes > this.limits.maxQueuedBytes;
    if (!replayed && backlogged && typeof sessionId === 'string') {
      this.detachSlowConsumer(sessionId);
      return;
    }
    const sent = eventForClient(event, this.clientCapabilities);
    this.connection.sendNotification(sent.method, sent.params).catch(() => {
      // A dead stream is noticed by onClose; the event stays in the replay log.
    });
  }

  /**
   * The client's unread backlog passed the limit: it gets no more live events
   * of the session, only a `session/detached` behind what it has not read
   * yet. Its events stay stored; it re-attaches with the last seq it saw
   * (sessions.md#sessions-detached-slow-consumer).
   */
  private detachSlowConsumer(sessionId: string): void {
    const { context } = this.options;
    context.log.warn(
      `${this.clientId}: ${this.frames.queuedBytes} bytes unread; detached from ${sessionId} (slow consumer)`,
    );
    try {
      context.sessions.get(sessionId).detach(this.clientId);
    } catch {
      // Deleted meanwhile: nothing to detach from.
    }
    void this.connection
      .sendNotification(Methods.SessionDetached.method, { sessionId, reason: 'slow_consumer' })
      .catch(() => undefined);
  }

  /** Ends the connection from the daemon's side. */
  close(): void {
    if (this.lifecycle.state === 'closed') return;
    this.closed();
    this.options.output.end();
    // A socket is both streams: end() lets queued bytes drain; stdin just stops.
    if ((this.options.input as unknown) !== this.options.output) this.options.input.destroy();
  }

  private async onRequest(
    method: string,
    rawParams: unknown,
    token: CancellationToken,
  ): Promise<unknown> {
    try {
      this.lifecycle.admitRequest(method === Methods.Initialize.method);
      if (method === Methods.Initialize.method) return this.initialize(rawParams);
      if (method === Methods.Shutdown.method) return await this.shutdown(rawParams);
      let deferred: (() => void)[] = [];
      const context: ClientContext = {
        clientId: this.clientId,
        subscriber: this,
        capabilities: this.clientCapabilities,
        afterReply: (fn) => deferred.push(fn),
      };
      try {
        return await this.options.router.handleRequest(method, rawParams, context, token);
      } finally {
        // The reply is written in the microtasks after this handler settles;
        // setImmediate runs after them, so deferred work follows the reply.
        const run = deferred;
        deferred = [];
        if (run.length > 0) setImmediate(() => run.forEach((fn) => fn()));
      }
    } catch (error) {
      throw toResponseError(error, method, (m) => this.options.context.log.error(m));
    }
  }

  private initialize(rawParams: unknown): InitializeResult {
    checkToken(this.options.requiredToken, rawParams);
    if (!this.authenticated) {
      this.authenticated = true;
      clearTimeout(this.authTimer);
      this.options.onAuthenticated?.();
    }
    const params = parseParams(Methods.Initialize, rawParams);
    const protocolVersion = negotiateVersion(params);
    this.clientCapabilities = declaredCapabilities(params);
    this.declared = acceptedTools(
      declaredToolManifest(params),
      this.clientCapabilities,
      this.options.context,
    );
    this.lifecycle.initialized();
    this.setTrace(initialTrace(params));
    const { context } = this.options;
    const client = params.clientInfo
      ? ` (${params.clientInfo.name}${params.clientInfo.version ? ' ' + params.clientInfo.version : ''})`
      : '';
    context.log.info(`${this.clientId}: initialized${client}, protocol ${protocolVersion}`);
    return {
      protocolVersion,
      serverInfo: { name: 'arbor', version: context.daemonVersion },
      capabilities: daemonCapabilities(context),
      clientId: this.clientId,
    };
  }

  /** Params: absent, null or an empty object (lifecycle.md#shutdown). */
  private async shutdown(rawParams: unknown): Promise<null> {
    parseParams(Methods.Shutdown, rawParams);
    this.lifecycle.shutDown();
    await this.options.onShutdown?.();
    // After shutdown the client gets no more events.
    this.options.context.sessions.detachClient(this.clientId);
    return null;
  }

  private onNotification(method: string, rawParams: unknown): void {
    this.notificationsHandled += 1;
    const isExit = method === Methods.Exit.method;
    if (!this.lifecycle.admitNotification(isExit)) return;
    // exit is honoured whatever its params (lifecycle.md#lifecycle-exit-any-state).
    if (isExit) {
      this.exitRequested = true;
      this.closeWhenDrained();
      return;
    }
    if (method === Methods.Initialized.method) {
      // Only the first counts (lifecycle.md#lifecycle-initialized-once).
      if (!this.isReady) {
        this.isReady = true;
        for (const settle of [...this.readyWaiters]) settle(true);
      }
      return;
    }
    if (method === Methods.SetTrace.method) {
      // A malformed $/setTrace is a notification: dropped, the trace value kept.
      const parsed = Methods.SetTrace.params.safeParse(rawParams);
      if (parsed.success) this.setTrace(parsed.data.value);
      return;
    }
    try {
      const handled = this.options.router.handleNotification(method, rawParams, this.context());
      if (!handled)
        this.options.context.log.debug(`${this.clientId}: ignored notification ${method}`);
    } catch (error) {
      // Notifications have no response; an invalid one is logged and dropped.
      const reason = error instanceof Error ? error.message : String(error);
      this.options.context.log.warn(`${this.clientId}: dropped notification ${method}: ${reason}`);
    }
  }

  private context(): ClientContext {
    return {
      clientId: this.clientId,
      subscriber: this,
      capabilities: this.clientCapabilities,
      afterReply: (fn) => setImmediate(fn),
    };
  }

  /**
   * `$/setTrace` and `initialize.trace`: vscode-jsonrpc traces each message;
   * we forward them as `$/logTrace`.
   */
  private setTrace(value: TraceValue): void {
    const trace = Trace.fromString(value);
    // vscode-jsonrpc traces the $/logTrace it sends too; the guard stops that loop.
    let sendingTrace = false;
    void this.connection.trace(trace, {
      log: (message: string, data?: string) => {
        if (sendingTrace) return;
        sendingTrace = true;
        try {
          // A traced message may carry a secret we know, the token of an initialize among
          // them (lifecycle.md#lifecycle-logtrace-no-secrets).
          const verbose = data && daemonSecrets.redact(data);
          void this.connection
            .sendNotification(Methods.LogTrace.method, {
              message: daemonSecrets.redact(message),
              ...(verbose && { verbose }),
            } satisfies LogTraceParams)
            .catch(() => undefined);
        } finally {
          sendingTrace = false;
        }
      },
    });
  }

  private answerFault(fault: ProtocolFault): void {
    const response = {
      jsonrpc: '2.0',
      id: fault.id,
      error: {
        code: fault.code,
        message: fault.message,
        ...(fault.data === undefined ? {} : { data: fault.data }),
      },
    } as Message;
    this.faultResponses.add(response);
    const written = this.writer.write(response).catch(() => undefined);
    // Before the token, an oversize frame is no honest client's: answer, then close.
    const preAuthOversize = !this.authenticated && fault.code === ArborErrorCodes.MessageTooLarge;
    if (fault.fatal || preAuthOversize) void written.then(() => this.close());
  }

  /** Logs every error we answer, once, without bodies; closes after Unauthorized. */
  private afterWrite(message: Message): void {
    if ('id' in message && !('method' in message) && !this.faultResponses.has(message)) {
      this.responsesWritten += 1;
      const id = (message as { id: string | number | null }).id;
      if (id !== null) this.reader.answered(id);
    }
    const error = (message as { error?: { code: number; message: string } }).error;
    if (!error) return;
    this.options.context.log.warn(
      `${this.clientId}: answered error ${error.code}: ${error.message}`,
    );
    if (error.code === ArborErrorCodes.Unauthorized) this.close();
  }

  /**
   * Waits until every request received so far is answered and every
   * notification handled (bounded, so a hung handler cannot keep us alive).
   */
  private closeWhenDrained(deadline = Date.now() + DRAIN_TIMEOUT_MS): void {
    const drained =
      this.responsesWritten >= this.reader.requestsPassed &&
      this.notificationsHandled >= this.reader.notificationsPassed;
    if (drained || Date.now() > deadline) this.close();
    else setTimeout(() => this.closeWhenDrained(deadline), 2);
  }

  private closed(): void {
    if (this.lifecycle.state === 'closed') return;
    const info: ClosedInfo = {
      exitRequested: this.exitRequested,
      shutdownRequested: this.lifecycle.shutdownRequested,
    };
    this.lifecycle.close();
    // What was written leaves now: onClosed may end the process (stdio).
    this.frames.flush();
    clearTimeout(this.authTimer);
    for (const settle of [...this.readyWaiters]) settle(false);
    this.writer.close();
    this.options.context.sessions.detachClient(this.clientId);
    this.options.context.log.info(`${this.clientId}: disconnected`);
    this.connection.dispose();
    this.options.onClosed(info);
  }
}

function toResponseError(
  error: unknown,
  method: string,
  logInternal: (m: string) => void,
): ResponseError<unknown> {
  if (error instanceof RpcError) return new ResponseError(error.code, error.message, error.data);
  if (error instanceof ResponseError) return error;
  // A bug of ours: the client learns that it failed, the log learns why.
  const reason = error instanceof Error ? (error.stack ?? error.message) : String(error);
  logInternal(`internal error in ${method}: ${reason}`);
  return new ResponseError(
    JsonRpcErrorCodes.InternalError,
    `internal error while handling ${method}`,
  );
}

/**
 * client-tools.md#declaration: names must be unique (else -32602); tools are
 * kept only when the client advertised clientTools and the daemon does too.
 */
function acceptedTools(
  tools: ClientToolDeclaration[],
  capabilities: ClientCapabilities,
  context: DaemonContext,
): ClientToolDeclaration[] {
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name))
      throw rpcErrors.invalidParams(
        `client tool names must be unique: "${tool.name}" is declared twice`,
      );
    names.add(tool.name);
  }
  if (capabilities.clientTools === undefined) return [];
  if (daemonCapabilities(context).clientTools === undefined) return [];
  return tools;
}
