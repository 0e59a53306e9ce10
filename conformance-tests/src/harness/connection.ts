/**
 * One connection between the harness and the implementation under test, with
 * the always-on checks: every frame validated against the JSON Schema (and a
 * bad one attributed to whoever sent it), no method used without its
 * capability, one response per request, nothing but frames on a stdio stdout.
 */
import { Methods } from '@arbor/protocol';
import type { Readable, Writable } from 'node:stream';
import type { Recorder } from '../checks/results.js';
import type { Role } from '../checks/registry.js';
import { FrameReader, encodeFrame, type FrameContent } from './framing.js';
import { sharedValidator, type SchemaValidator } from './schema.js';
import type { Transcript } from './transcript.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: unknown };

export interface ResponseMessage {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface Incoming {
  index: number;
  /** Parsed content; undefined when the frame was not JSON. */
  message: unknown;
  kind: 'request' | 'notification' | 'response' | 'batch' | 'invalid';
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * A handler's result that is deliberately invalid (e.g. `{decision: "yes"}`):
 * sent as it is, without treating its schema failure as a harness bug.
 */
export class DeliberateResult {
  constructor(readonly result: unknown) {}
}

export type RequestHandler = (params: unknown, message: JsonObject) => unknown;

export interface ConnectionOptions {
  label: string;
  /** The role of the implementation under test on this connection. */
  implRole: Role;
  input: Readable;
  output: Writable;
  /** stdio: the implementation's stdout must carry frames only. */
  stdio: boolean;
  transcript: Transcript;
  recorder: Recorder;
  close: () => void;
}

interface Pending {
  method: string;
  resolve: (response: ResponseMessage | undefined) => void;
  timer: NodeJS.Timeout;
  /** Who is blamed when no response comes: a scenario check, or the always-on one. */
  noResponseCheck: string;
}

export interface RequestOptions {
  timeoutMs?: number;
  /** Blame this check instead of `*.wire.response-per-request` when no response comes. */
  noResponseCheck?: string;
  /** The request is deliberately wrong: do not treat its schema failure as a harness bug. */
  deliberate?: boolean;
  id?: string | number;
}

/** How long the harness waits for an answer; `--timeout` changes it for a whole run. */
export const timeouts = { requestMs: 5000 };

/** Reads `client.approvals`-style capability paths out of negotiated capabilities. */
export function hasCapability(
  negotiated: { client?: unknown; daemon?: unknown },
  path: string,
): boolean {
  const [side, ...rest] = path.split('.');
  let node: unknown = side === 'client' ? negotiated.client : negotiated.daemon;
  for (const key of rest) {
    if (typeof node !== 'object' || node === null) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return node !== undefined && node !== null && node !== false;
}

/** An object where one is expected; `[]` reads as `{}` (transport.md#transport-empty-array-object). */
function objectOf(value: unknown): JsonObject | undefined {
  if (Array.isArray(value)) return value.length === 0 ? {} : undefined;
  return typeof value === 'object' && value !== null ? (value as JsonObject) : undefined;
}

/**
 * The client capabilities an `initialize` declares, read as the daemon must
 * read them (lifecycle.md#lifecycle-initialization-options): each member from
 * the top-level `capabilities`, else from `initializationOptions.capabilities`.
 */
export function declaredClientCapabilities(params: unknown): JsonObject {
  const p = objectOf(params) ?? {};
  const declared: JsonObject = { ...objectOf(objectOf(p.initializationOptions)?.capabilities) };
  for (const [key, value] of Object.entries(objectOf(p.capabilities) ?? {}))
    if (value !== undefined) declared[key] = value;
  return declared;
}

/**
 * The tools an `initialize` declares, read as the daemon must read them: the
 * top-level `tools`, else `initializationOptions.tools`.
 */
export function declaredClientTools(params: unknown): JsonObject[] {
  const p = objectOf(params) ?? {};
  const tools = p.tools ?? objectOf(p.initializationOptions)?.tools;
  return Array.isArray(tools) ? (tools as JsonObject[]) : [];
}

export class Connection {
  readonly label: string;
  readonly implRole: Role;
  readonly harnessRole: Role;
  readonly messages: Incoming[] = [];
  /** Capabilities as negotiated by initialize, whichever side the harness plays. */
  readonly negotiated: { client?: JsonObject; daemon?: JsonObject } = {};
  closedFlag = false;
  readonly closed: Promise<void>;

  private readonly validator: SchemaValidator = sharedValidator();
  private readonly pending = new Map<string | number, Pending>();
  private readonly answered = new Set<string | number>();
  private readonly tolerated = new Set<string | number>();
  /** Requests the implementation sent us, by id: their answers are validated as that method's result. */
  private readonly incomingRequests = new Map<string | number, string>();
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly waiters = new Set<() => void>();
  private readonly violations = new Set<string>();
  private readonly exercised = new Set<string>();
  private readonly reader: FrameReader;
  /** Ids of the implementation's requests the harness has not answered yet (transport-id-unique). */
  private readonly unanswered = new Set<string | number>();
  private readonly ambiguousIds = new Set<string | number>();
  private nextId = 1;
  private junkSeen = false;
  private markClosed!: () => void;

  constructor(private readonly options: ConnectionOptions) {
    this.label = options.label;
    this.implRole = options.implRole;
    this.harnessRole = options.implRole === 'daemon' ? 'client' : 'daemon';
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
    const reader = new FrameReader({
      frame: (body, content) => this.onFrame(body, content),
      junk: (bytes, why) => this.onJunk(bytes, why),
      malformed: (why) => this.violation('frames', `sent a malformed frame: ${why}`),
    });
    this.reader = reader;
    options.input.on('data', (chunk: Buffer) => reader.push(chunk));
    options.input.on('end', () => reader.end());
    options.input.on('close', () => this.onClose());
    options.input.on('error', () => this.onClose());
    options.output.on('error', () => undefined); // a dead peer is seen on the input side
  }

  private check(name: string): string {
    return `${this.implRole}.wire.${name}`;
  }

  private violation(name: string, message: string): void {
    this.violations.add(name);
    this.options.recorder.fail(this.check(name), `${this.label}: ${message}`);
  }

  // ---- sending -------------------------------------------------------------

  /** Sends one message after validating it; a schema failure here is the harness's fault unless deliberate. */
  send(message: JsonObject, deliberate = false): void {
    const answering = 'method' in message ? undefined : (message.id as string | number);
    if (!deliberate && !(answering !== undefined && this.ambiguousIds.has(answering))) {
      const answered = answering === undefined ? undefined : this.incomingRequests.get(answering);
      const verdict = this.validator.validateMessage(message, this.harnessRole, () => answered);
      if (verdict.errors.length > 0) {
        this.options.recorder.harnessError(
          `harness sent an invalid message on ${this.label}: ${verdict.errors.join('; ')}`,
        );
      }
    }
    if (answering !== undefined) this.unanswered.delete(answering);
    this.trackOutgoingCapabilities(message);
    this.writeFrame(JSON.stringify(message));
  }

  /** Frames arbitrary content (malformed JSON, batches, …) without validating it. */
  sendRaw(content: string | Buffer): void {
    this.writeFrame(content);
  }

  /** Writes bytes as they are: no framing. */
  sendBytes(bytes: Buffer, note: string): void {
    this.options.transcript.add({
      connection: this.label,
      direction: 'harness→impl',
      kind: 'frame',
      text: note,
      bytes: bytes.length,
    });
    this.options.output.write(bytes);
  }

  private writeFrame(content: string | Buffer): void {
    const text = typeof content === 'string' ? content : content.toString('utf8');
    const bytes = typeof content === 'string' ? Buffer.byteLength(content) : content.length;
    this.options.transcript.add({
      connection: this.label,
      direction: 'harness→impl',
      kind: 'frame',
      text,
      bytes,
    });
    if (!this.closedFlag) this.options.output.write(encodeFrame(content));
  }

  request(
    method: string,
    params?: unknown,
    options: RequestOptions = {},
  ): Promise<ResponseMessage | undefined> {
    const id = options.id ?? this.nextId++;
    const message: JsonObject = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    const response = this.expectResponse(id, method, options);
    this.send(message, options.deliberate);
    return response;
  }

  /** Registers a response expectation for a request sent by other means (e.g. sendRaw). */
  expectResponse(
    id: string | number,
    method: string,
    options: RequestOptions = {},
  ): Promise<ResponseMessage | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.noResponse(id), options.timeoutMs ?? timeouts.requestMs);
      this.pending.set(id, {
        method,
        resolve,
        timer,
        noResponseCheck: options.noResponseCheck ?? this.check('response-per-request'),
      });
      this.exercised.add('response-per-request');
    });
  }

  private noResponse(id: string | number): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    const why = this.closedFlag ? 'the connection closed first' : 'timed out';
    if (pending.noResponseCheck === this.check('response-per-request')) {
      this.violation(
        'response-per-request',
        `no response to ${pending.method} (id ${JSON.stringify(id)}): ${why}`,
      );
    } else {
      this.options.recorder.fail(
        pending.noResponseCheck,
        `${this.label}: no response to ${pending.method} (id ${JSON.stringify(id)}): ${why}`,
      );
    }
    pending.resolve(undefined);
  }

  notify(method: string, params?: unknown, deliberate = false): void {
    const message: JsonObject = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    this.send(message, deliberate);
  }

  /**
   * A response with this id is not a protocol violation of its own: the
   * scenario sent the request in a form that must not be answered (an
   * oversize frame) and judges an answer itself.
   */
  tolerate(id: string | number): void {
    this.tolerated.add(id);
  }

  /** Answers requests of `method` from the implementation. */
  handle(method: string, handler: RequestHandler): void {
    this.handlers.set(method, handler);
  }

  // ---- receiving -----------------------------------------------------------

  private onJunk(bytes: Buffer, why: string): void {
    this.options.transcript.add({
      connection: this.label,
      direction: 'impl→harness',
      kind: 'junk',
      text: `${why}: ${JSON.stringify(bytes.toString('utf8').slice(0, 300))}`,
    });
    if (this.options.stdio && !this.junkSeen) {
      this.junkSeen = true;
      this.violation(
        'stdout-frames-only',
        `${why} on stdout: ${JSON.stringify(bytes.toString('utf8').slice(0, 120))}`,
      );
    } else if (!this.options.stdio) {
      this.violation(
        'schema-valid',
        `${why}: ${JSON.stringify(bytes.toString('utf8').slice(0, 120))}`,
      );
    }
  }

  private onFrame(body: Buffer, { text, json }: FrameContent): void {
    this.options.transcript.add({
      connection: this.label,
      direction: 'impl→harness',
      kind: 'frame',
      text,
      bytes: body.length,
    });
    this.exercised.add('schema-valid');
    this.exercised.add('frames');
    if (json === undefined) {
      this.violation(
        'schema-valid',
        `sent a frame that is not JSON: ${JSON.stringify(text.slice(0, 120))}`,
      );
      this.push({ index: this.messages.length, message: undefined, kind: 'invalid' });
      return;
    }
    const message = json.value;
    if (Array.isArray(message)) {
      // A batch answer is judged by the batch check; its elements still must be valid responses.
      for (const element of message) this.validateIncoming(element, true);
      this.push({ index: this.messages.length, message, kind: 'batch' });
      return;
    }
    const kind = this.validateIncoming(message, false);
    this.push({ index: this.messages.length, message, kind });
    if (kind === 'response') this.onResponse(message as ResponseMessage);
    else if (kind === 'request') this.onRequest(message as JsonObject);
  }

  private answeredMethodOf(id: unknown): string | undefined {
    return typeof id === 'string' || typeof id === 'number'
      ? this.pending.get(id)?.method
      : undefined;
  }

  private validateIncoming(message: unknown, inBatch: boolean): Incoming['kind'] {
    const verdict = this.validator.validateMessage(message, this.implRole, (id) =>
      this.answeredMethodOf(id),
    );
    if (verdict.errors.length > 0) {
      this.violation(
        'schema-valid',
        `sent an invalid message${inBatch ? ' (in a batch)' : ''}: ${verdict.errors.join('; ')}`,
      );
    }
    if (verdict.kind === 'request' || verdict.kind === 'notification') {
      this.checkCapability(message as JsonObject);
      this.trackIncomingCapabilities(message as JsonObject);
    }
    if (verdict.kind === 'response') this.trackIncomingCapabilities(message as JsonObject);
    return verdict.kind;
  }

  private checkCapability(message: JsonObject): void {
    const info = this.validator.info(String(message.method));
    if (!info?.capability) return;
    this.exercised.add('capability-negotiated');
    if (!hasCapability(this.negotiated, info.capability)) {
      this.violation(
        'capability-negotiated',
        `sent ${info.method} but ${info.capability} was not negotiated`,
      );
    }
  }

  private onResponse(message: ResponseMessage): void {
    const id = message.id;
    if (id === null) return; // framing errors: the scenario that provoked them looks for them
    const pending = this.pending.get(id);
    if (!pending && this.tolerated.has(id)) return;
    if (!pending) {
      const why = this.answered.has(id)
        ? 'a second response'
        : 'a response to a request never sent';
      this.violation('response-per-request', `sent ${why} (id ${JSON.stringify(id)})`);
      return;
    }
    this.pending.delete(id);
    this.answered.add(id);
    clearTimeout(pending.timer);
    pending.resolve(message);
  }

  private onRequest(message: JsonObject): void {
    const id = message.id as string | number;
    const method = String(message.method);
    this.exercised.add('ids-unique');
    if (this.unanswered.has(id)) {
      // Which request an answer of ours answers is now ambiguous: do not judge our own answers by method.
      this.ambiguousIds.add(id);
      this.violation(
        'ids-unique',
        `sent ${method} with id ${JSON.stringify(id)}, the id of a request of its own still unanswered`,
      );
    }
    this.unanswered.add(id);
    this.incomingRequests.set(id, method);
    const handler = this.handlers.get(method);
    const reply = (body: JsonObject, deliberate = false): void => {
      if (!this.closedFlag) this.send({ jsonrpc: '2.0', id, ...body }, deliberate);
    };
    if (!handler) {
      reply({ error: { code: -32601, message: `Method not found: ${method}` } });
      return;
    }
    Promise.resolve()
      .then(() => handler(message.params, message))
      .then(
        (result) =>
          result instanceof DeliberateResult
            ? reply({ result: result.result }, true)
            : reply({ result: result === undefined ? null : result }),
        (error: unknown) => {
          if (error instanceof RpcError)
            reply({ error: { code: error.code, message: error.message } });
          else
            reply({
              error: {
                code: -32603,
                message: error instanceof Error ? error.message : String(error),
              },
            });
        },
      );
  }

  private trackOutgoingCapabilities(message: JsonObject): void {
    if (this.harnessRole === 'client' && message.method === Methods.Initialize.method) {
      this.negotiated.client = declaredClientCapabilities(message.params);
    }
    if (
      this.harnessRole === 'daemon' &&
      'result' in message &&
      this.initializeIds.has(message.id as string | number)
    ) {
      this.negotiated.daemon = ((message.result as JsonObject | null)?.capabilities ??
        {}) as JsonObject;
      // From here on every message is subject to the capability rule.
      this.exercised.add('capability-negotiated');
    }
  }

  private readonly initializeIds = new Set<string | number>();

  private trackIncomingCapabilities(message: JsonObject): void {
    if (this.harnessRole === 'daemon' && message.method === Methods.Initialize.method) {
      this.negotiated.client = declaredClientCapabilities(message.params);
      this.initializeIds.add(message.id as string | number);
    }
    if (
      this.harnessRole === 'client' &&
      'result' in message &&
      this.answeredMethodOf(message.id) === Methods.Initialize.method
    ) {
      this.negotiated.daemon = ((message.result as JsonObject | null)?.capabilities ??
        {}) as JsonObject;
      // From here on every message is subject to the capability rule.
      this.exercised.add('capability-negotiated');
    }
  }

  private push(incoming: Incoming): void {
    this.messages.push(incoming);
    for (const wake of [...this.waiters]) wake();
  }

  private onClose(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.options.transcript.note(this.label, 'connection closed');
    for (const id of [...this.pending.keys()]) this.noResponse(id);
    this.markClosed();
    for (const wake of [...this.waiters]) wake();
  }

  /**
   * The first message from index `from` on that satisfies `predicate`, waiting
   * up to `timeoutMs`; undefined on timeout or when the connection closes.
   */
  waitFor(
    predicate: (m: Incoming) => boolean,
    timeoutMs = timeouts.requestMs,
    from = 0,
  ): Promise<Incoming | undefined> {
    const found = (): Incoming | undefined => this.messages.slice(from).find(predicate);
    const now = found();
    if (now || this.closedFlag) return Promise.resolve(now);
    return new Promise((resolve) => {
      const done = (value: Incoming | undefined): void => {
        this.waiters.delete(wake);
        clearTimeout(timer);
        resolve(value);
      };
      const wake = (): void => {
        const hit = found();
        if (hit || this.closedFlag) done(hit);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      this.waiters.add(wake);
    });
  }

  /**
   * Stops reading what the implementation sends: once the OS buffers are
   * full, its writes pile up on its side, as behind a client that stalled.
   */
  pauseReading(): void {
    this.options.transcript.note(this.label, 'the harness stops reading');
    this.options.input.pause();
  }

  resumeReading(): void {
    this.options.transcript.note(this.label, 'the harness reads again');
    this.options.input.resume();
  }

  /** Notifications of `method` received so far. */
  notifications(method?: string): JsonObject[] {
    return this.messages
      .filter(
        (m) =>
          m.kind === 'notification' &&
          (method === undefined || (m.message as JsonObject).method === method),
      )
      .map((m) => m.message as JsonObject);
  }

  /** Resolves true if nothing matching arrives within `ms` (the implementation stayed quiet). */
  async quietFor(ms: number, predicate: (m: Incoming) => boolean, from: number): Promise<boolean> {
    return (await this.waitFor(predicate, ms, from)) === undefined;
  }

  /** Ends the connection and records the always-on checks that stayed clean. */
  finish(): void {
    this.reader.flush();
    for (const id of [...this.pending.keys()]) this.noResponse(id);
    const recorder = this.options.recorder;
    const alwaysOn = [
      'schema-valid',
      'capability-negotiated',
      'response-per-request',
      'frames',
      'ids-unique',
    ];
    for (const name of alwaysOn) {
      if (this.exercised.has(name) && !this.violations.has(name)) recorder.pass(this.check(name));
    }
    if (
      this.options.stdio &&
      this.implRole === 'daemon' &&
      this.exercised.has('schema-valid') &&
      !this.violations.has('stdout-frames-only')
    ) {
      recorder.pass(this.check('stdout-frames-only'));
    }
    this.close();
  }

  close(): void {
    this.options.close();
  }

  /** Ends the harness's side of the stream: on stdio the implementation's stdin reaches end of file. */
  endOutput(): void {
    this.options.transcript.note(this.label, 'the harness ends its output');
    this.options.output.end();
  }
}
