/**
 * ArborClient: one connection to a daemon, typed by the method descriptors.
 *
 * It owns the lifecycle (initialize -> initialized -> ... -> shutdown -> exit),
 * validates everything the daemon sends against the descriptor's zod schema
 * (a bad message is reported on the `error` event and ignored, never thrown
 * into the transport), and answers the daemon's requests through pluggable
 * callbacks. It knows nothing about sessions; see SessionTracker for that.
 */
import type { z } from 'zod';
import {
  NotificationType,
  ParameterStructures,
  RequestType,
  ResponseError,
  type CancellationToken,
  type MessageConnection,
} from 'vscode-jsonrpc';
import { PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../base.js';
import { sentBy, type NotificationDescriptor, type RequestDescriptor } from '../descriptor.js';
import { JsonRpcErrorCodes, LspErrorCodes } from '../errors.js';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  type ClientCapabilities,
  type ClientToolDeclaration,
  type InitializeResult,
} from '../lifecycle.js';
import { Methods } from '../methods.js';
import type { ApprovalDecision, ApprovalRequestParams } from '../approval.js';
import type { QuestionRequestParams } from '../question.js';
import { hasCapability } from './capabilities.js';
import {
  CapabilityNotNegotiatedError,
  ClientStateError,
  MessageTooLargeError,
  UnsupportedDaemonVersionError,
} from './clientErrors.js';
import { TypedEmitter, type Disposable, type Listener } from './events.js';
import { validateMessage } from './validation.js';

/** vscode-jsonrpc numbers this client's requests; no id it uses is longer. */
const LONGEST_OWN_ID = Number.MAX_SAFE_INTEGER;
/** A daemon's request ids are at most 200 characters (Id), each at most 6 bytes once escaped. */
const LONGEST_DAEMON_ID = 'x'.repeat(1200);
const utf8 = new TextEncoder();

/** What the caller passes: zod input types, so defaulted fields may be left out. */
export type ParamsInput<D extends RequestDescriptor | NotificationDescriptor> = z.input<
  D['params']
>;
export type ParamsOutput<D extends RequestDescriptor | NotificationDescriptor> = z.output<
  D['params']
>;
export type ResultOutput<D extends RequestDescriptor> = z.output<D['result']>;
export type ResultInput<D extends RequestDescriptor> = z.input<D['result']>;

/** Params may be omitted when the schema accepts undefined (e.g. `session/list`). */
export type RequestArgs<D extends RequestDescriptor> =
  undefined extends ParamsInput<D>
    ? [params?: ParamsInput<D>, token?: CancellationToken]
    : [params: ParamsInput<D>, token?: CancellationToken];

/** Answers a daemon -> client request. Cancellation is signalled on `token`. */
export type RequestHandler<D extends RequestDescriptor> = (
  params: ParamsOutput<D>,
  token: CancellationToken,
) => ResultInput<D> | Promise<ResultInput<D>>;

export type ApprovalRequestHandler = (
  params: ApprovalRequestParams,
  token: CancellationToken,
) => ApprovalDecision | Promise<ApprovalDecision>;

/** Answers the model's question (ask_user) with the user's answer. */
export type QuestionRequestHandler = (
  params: QuestionRequestParams,
  token: CancellationToken,
) => string | Promise<string>;

export type ToolExecuteHandler = RequestHandler<typeof Methods.ToolExecute>;
export type ConformanceStateHandler = RequestHandler<typeof Methods.ConformanceState>;

export interface ArborClientOptions {
  clientInfo?: { name: string; version?: string };
  /** Sent as given; `approvals`, `questions`, `clientTools` and `conformance` are added when their handler is set. */
  capabilities?: ClientCapabilities;
  /** Client tools manifest, run through `onToolExecute`. */
  tools?: readonly ClientToolDeclaration[];
  /** Socket token (required by socket daemons). */
  token?: string;
  processId?: number | null;
  onApprovalRequest?: ApprovalRequestHandler;
  onQuestionRequest?: QuestionRequestHandler;
  onToolExecute?: ToolExecuteHandler;
  onConformanceState?: ConformanceStateHandler;
}

export type ClientPhase = 'created' | 'initializing' | 'ready' | 'shuttingDown' | 'closed';

export interface ArborClientEvents {
  /** Something the daemon sent was invalid, a handler failed, or the transport failed. Never fatal. */
  error: Error;
  /** The connection closed (daemon exited, socket dropped, or dispose()). */
  close: undefined;
  initialized: InitializeResult;
}

type ErasedHandler = (params: unknown) => void;

export class ArborClient {
  readonly #connection: MessageConnection;
  readonly #options: ArborClientOptions;
  readonly #events = new TypedEmitter<ArborClientEvents>();
  readonly #notificationHandlers = new Map<string, Set<ErasedHandler>>();
  #approvalHandler: ApprovalRequestHandler | undefined;
  #questionHandler: QuestionRequestHandler | undefined;
  #toolExecuteHandler: ToolExecuteHandler | undefined;
  #conformanceHandler: ConformanceStateHandler | undefined;
  #phase: ClientPhase = 'created';
  #initializeResult: InitializeResult | undefined;
  #clientCapabilities: ClientCapabilities = {};

  /** `connection` must not be listening yet: the client registers its handlers, then listens. */
  constructor(connection: MessageConnection, options: ArborClientOptions = {}) {
    this.#connection = connection;
    this.#options = options;
    this.#approvalHandler = options.onApprovalRequest;
    this.#questionHandler = options.onQuestionRequest;
    this.#toolExecuteHandler = options.onToolExecute;
    this.#conformanceHandler = options.onConformanceState;

    this.#serve(Methods.ApprovalRequest, () => {
      const decide = this.#approvalHandler;
      return decide && (async (params, token) => ({ decision: await decide(params, token) }));
    });
    this.#serve(Methods.QuestionRequest, () => {
      const answer = this.#questionHandler;
      return answer && (async (params, token) => ({ answer: await answer(params, token) }));
    });
    this.#serve(Methods.ToolExecute, () => this.#toolExecuteHandler);
    this.#serve(Methods.ConformanceState, () => this.#conformanceHandler);
    connection.onError(([error]) => this.#report(error));
    connection.onClose(() => {
      if (this.#phase === 'closed') return;
      this.#phase = 'closed';
      this.#report(() => this.#events.emit('close', undefined));
    });
    connection.listen();
  }

  get phase(): ClientPhase {
    return this.#phase;
  }

  /** The daemon's answer to `initialize`; undefined before it. */
  get initializeResult(): InitializeResult | undefined {
    return this.#initializeResult;
  }

  on<K extends keyof ArborClientEvents>(
    event: K,
    listener: Listener<ArborClientEvents[K]>,
  ): Disposable {
    return this.#events.on(event, listener);
  }

  /** Replaces the approval callback; capabilities were fixed at `initialize`. */
  setApprovalHandler(handler: ApprovalRequestHandler | undefined): void {
    this.#approvalHandler = handler;
  }

  /** Replaces the question callback; capabilities were fixed at `initialize`. */
  setQuestionHandler(handler: QuestionRequestHandler | undefined): void {
    this.#questionHandler = handler;
  }

  setToolExecuteHandler(handler: ToolExecuteHandler | undefined): void {
    this.#toolExecuteHandler = handler;
  }

  setConformanceStateHandler(handler: ConformanceStateHandler | undefined): void {
    this.#conformanceHandler = handler;
  }

  /**
   * Sends `initialize` (protocolVersion 1, clientInfo, capabilities, tools,
   * token), checks the daemon's version, then sends `initialized`. A daemon
   * version this client does not speak ends the connection.
   */
  async initialize(): Promise<InitializeResult> {
    if (this.#phase !== 'created') {
      throw new ClientStateError(`initialize() called while the client is ${this.#phase}`);
    }
    this.#phase = 'initializing';
    this.#clientCapabilities = this.#capabilitiesToSend();
    const params: z.input<typeof Methods.Initialize.params> = {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: this.#clientCapabilities,
    };
    if (this.#options.clientInfo) params.clientInfo = this.#options.clientInfo;
    if (this.#options.tools) params.tools = [...this.#options.tools];
    if (this.#options.token !== undefined) params.token = this.#options.token;
    if (this.#options.processId !== undefined) params.processId = this.#options.processId;

    let result: InitializeResult;
    try {
      result = await this.#send(Methods.Initialize, params);
    } catch (error) {
      if (this.#phase === 'initializing') this.#phase = 'created';
      throw error;
    }
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
      const error = new UnsupportedDaemonVersionError(
        result.protocolVersion,
        SUPPORTED_PROTOCOL_VERSIONS,
      );
      this.#report(error);
      await this.#notifyQuietly(Methods.Exit);
      this.dispose();
      throw error;
    }
    if (this.#phase !== 'initializing') {
      throw new ClientStateError(`The connection closed during initialize`);
    }
    this.#initializeResult = result;
    this.#phase = 'ready';
    await this.#sendNotification(Methods.Initialized, {});
    this.#report(() => this.#events.emit('initialized', result));
    return result;
  }

  /**
   * Sends a client -> daemon request: params are validated (and defaulted) by
   * the descriptor's schema before sending, the result after receiving.
   */
  async request<D extends RequestDescriptor>(
    descriptor: D,
    ...args: RequestArgs<D>
  ): Promise<ResultOutput<D>> {
    if (
      descriptor.method === Methods.Initialize.method ||
      descriptor.method === Methods.Shutdown.method
    ) {
      throw new ClientStateError(`Use initialize() / shutdown() for ${descriptor.method}`);
    }
    this.#assertReady(descriptor.method);
    this.#assertSendable(descriptor);
    const [params, token] = args;
    return this.#send(descriptor, params, token);
  }

  /** Sends a client -> daemon notification (validated like a request's params). */
  async notify<D extends NotificationDescriptor>(
    descriptor: D,
    params: ParamsInput<D>,
  ): Promise<void> {
    this.#assertReady(descriptor.method);
    this.#assertSendable(descriptor);
    await this.#sendNotification(descriptor, params);
  }

  /**
   * Listens to a daemon -> client notification. Params arrive validated (unknown
   * fields stripped); a notification that fails its schema never reaches
   * handlers and is reported on `error`.
   */
  onNotification<D extends NotificationDescriptor>(
    descriptor: D,
    handler: (params: ParamsOutput<D>) => void,
  ): Disposable {
    if (!sentBy(descriptor, 'daemon')) {
      throw new ClientStateError(`${descriptor.method} is not sent by the daemon`);
    }
    let handlers = this.#notificationHandlers.get(descriptor.method);
    if (!handlers) {
      handlers = new Set();
      this.#notificationHandlers.set(descriptor.method, handlers);
      const registered = handlers;
      this.#connection.onNotification(
        new NotificationType<unknown>(descriptor.method, ParameterStructures.byName),
        (raw: unknown) => this.#dispatch(descriptor, raw, registered),
      );
    }
    const erased = handler as ErasedHandler;
    handlers.add(erased);
    return { dispose: () => void handlers.delete(erased) };
  }

  /** Sends `shutdown`, then `exit`, then closes the connection. Safe to call twice. */
  async shutdown(): Promise<void> {
    if (this.#phase === 'closed' || this.#phase === 'shuttingDown') return;
    if (this.#phase !== 'ready') {
      this.dispose();
      return;
    }
    this.#phase = 'shuttingDown';
    try {
      await this.#send(Methods.Shutdown, undefined);
    } finally {
      await this.#notifyQuietly(Methods.Exit);
      this.dispose();
    }
  }

  /** Closes the connection without the shutdown handshake. */
  dispose(): void {
    if (this.#phase === 'closed') return;
    this.#phase = 'closed';
    this.#connection.dispose();
    this.#report(() => this.#events.emit('close', undefined));
  }

  /** True when the negotiated capabilities include `path` (e.g. `daemon.attach.replay`). */
  hasCapability(path: `client.${string}` | `daemon.${string}`): boolean {
    if (!this.#initializeResult) return false;
    return hasCapability(
      { client: this.#clientCapabilities, daemon: this.#initializeResult.capabilities },
      path,
    );
  }

  #capabilitiesToSend(): ClientCapabilities {
    const capabilities: ClientCapabilities = { ...this.#options.capabilities };
    if (this.#approvalHandler && !capabilities.approvals) capabilities.approvals = {};
    if (this.#questionHandler && !capabilities.questions) capabilities.questions = {};
    if (this.#toolExecuteHandler && this.#options.tools?.length && !capabilities.clientTools) {
      capabilities.clientTools = {};
    }
    if (this.#conformanceHandler && !capabilities.conformance) capabilities.conformance = {};
    // Daemon messages are read with open enums (validation.ts), so 1.1 values may come.
    if (!capabilities.openEnums) capabilities.openEnums = {};
    return capabilities;
  }

  #assertReady(method: string): void {
    if (this.#phase !== 'ready') {
      throw new ClientStateError(`Cannot send ${method}: the client is ${this.#phase}`);
    }
  }

  #assertSendable(descriptor: RequestDescriptor | NotificationDescriptor): void {
    if (!sentBy(descriptor, 'client')) {
      throw new ClientStateError(`${descriptor.method} is sent by the daemon, not the client`);
    }
    if (descriptor.capability && !this.hasCapability(descriptor.capability)) {
      throw new CapabilityNotNegotiatedError(descriptor.method, descriptor.capability);
    }
  }

  /**
   * Refuses, before anything is written, a message whose frame content would
   * be longer than the daemon's maxMessageBytes (8388608 until initialize is
   * answered). `message` is the content without `jsonrpc`, with an id at least
   * as long as the real one, so the measure never falls short.
   */
  #assertFits(what: string, message: Record<string, unknown>): void {
    const max = this.#initializeResult?.capabilities.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    const bytes = utf8.encode(JSON.stringify({ jsonrpc: '2.0', ...message })).length;
    if (bytes > max) throw new MessageTooLargeError(what, bytes, max);
  }

  async #send<D extends RequestDescriptor>(
    descriptor: D,
    params: unknown,
    token?: CancellationToken,
  ): Promise<ResultOutput<D>> {
    const method = descriptor.method;
    const checked = validateMessage(descriptor.params, params, {
      method,
      part: 'params',
      origin: 'client',
    });
    if (!checked.ok) throw checked.error;
    this.#assertFits(method, { id: LONGEST_OWN_ID, method, params: checked.value });
    const args: unknown[] = paramsArgs(checked.value);
    if (token) args.push(token);
    const raw: unknown = await this.#connection.sendRequest(method, ...args);
    const result = validateMessage(descriptor.result, raw, {
      method,
      part: 'result',
      origin: 'daemon',
    });
    if (!result.ok) {
      this.#report(result.error);
      throw result.error;
    }
    return result.value as ResultOutput<D>;
  }

  async #sendNotification(descriptor: NotificationDescriptor, params: unknown): Promise<void> {
    const method = descriptor.method;
    const checked = validateMessage(descriptor.params, params, {
      method,
      part: 'params',
      origin: 'client',
    });
    if (!checked.ok) throw checked.error;
    this.#assertFits(method, { method, params: checked.value });
    await this.#connection.sendNotification(method, ...paramsArgs(checked.value));
  }

  async #notifyQuietly(descriptor: NotificationDescriptor): Promise<void> {
    try {
      await this.#sendNotification(descriptor, undefined);
    } catch {
      // The peer may already be gone; exit is best effort.
    }
  }

  #dispatch(descriptor: NotificationDescriptor, raw: unknown, handlers: Set<ErasedHandler>): void {
    const checked = validateMessage(descriptor.params, raw, {
      method: descriptor.method,
      part: 'params',
      origin: 'daemon',
    });
    if (!checked.ok) {
      this.#report(checked.error);
      return;
    }
    for (const handler of [...handlers]) {
      this.#report(() => handler(checked.value));
    }
  }

  /**
   * Registers the handler of one daemon -> client request. Without a callback
   * the method is unknown to this client (-32601). Cancellation answers
   * -32800 at once, whatever the callback does later.
   */
  #serve<D extends RequestDescriptor>(
    descriptor: D,
    current: () => RequestHandler<D> | undefined,
  ): void {
    const method = descriptor.method;
    this.#connection.onRequest(
      new RequestType<unknown, unknown, unknown>(method, ParameterStructures.byName),
      async (raw: unknown, token: CancellationToken) => {
        const handler = current();
        if (!handler) {
          throw new ResponseError(JsonRpcErrorCodes.MethodNotFound, `Unhandled method ${method}`);
        }
        const params = validateMessage(descriptor.params, raw, {
          method,
          part: 'params',
          origin: 'daemon',
        });
        if (!params.ok) {
          this.#report(params.error);
          throw new ResponseError(JsonRpcErrorCodes.InvalidParams, params.error.message);
        }
        const answer = await raceCancellation(token, async () =>
          handler(params.value as ParamsOutput<D>, token),
        );
        const result = validateMessage(descriptor.result, answer, {
          method,
          part: 'result',
          origin: 'client',
        });
        if (!result.ok) {
          this.#report(result.error);
          throw new ResponseError(JsonRpcErrorCodes.InternalError, result.error.message);
        }
        try {
          this.#assertFits(`the answer to ${method}`, {
            id: LONGEST_DAEMON_ID,
            result: result.value,
          });
        } catch (error) {
          this.#report(error as MessageTooLargeError);
          throw new ResponseError(JsonRpcErrorCodes.InternalError, (error as Error).message);
        }
        return result.value;
      },
    );
  }

  /** Runs `fn` and sends whatever it throws to the error event; reports an Error directly. */
  #report(what: Error | (() => void)): void {
    if (what instanceof Error) {
      try {
        this.#events.emit('error', what);
      } catch {
        // An error listener that throws has nowhere left to report to.
      }
      return;
    }
    try {
      what();
    } catch (error) {
      this.#report(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/** Zero arguments for absent params, so vscode-jsonrpc omits `params` from the frame. */
function paramsArgs(value: unknown): unknown[] {
  return value === undefined || value === null ? [] : [value];
}

/** Resolves with `fn()`'s value, or rejects with RequestCancelled (-32800) as soon as `token` fires. */
function raceCancellation<T>(token: CancellationToken, fn: () => Promise<T>): Promise<T> {
  const cancelled = () => new ResponseError(LspErrorCodes.RequestCancelled, 'Request cancelled');
  if (token.isCancellationRequested) return Promise.reject(cancelled());
  return new Promise<T>((resolve, reject) => {
    const subscription = token.onCancellationRequested(() => {
      subscription.dispose();
      reject(cancelled());
    });
    fn().then(
      (value) => {
        subscription.dispose();
        if (token.isCancellationRequested) reject(cancelled());
        else resolve(value);
      },
      (error: unknown) => {
        subscription.dispose();
        reject(token.isCancellationRequested ? cancelled() : error);
      },
    );
  });
}
