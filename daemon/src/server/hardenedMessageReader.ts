/**
 * vscode-jsonrpc MessageReader that only lets well-formed messages through.
 * Frames come from ContentLengthFrameParser (size enforced while streaming);
 * bodies must be UTF-8 JSON objects with a valid JSON-RPC envelope. Every
 * failure becomes a ProtocolFault handed to `onFault`, which answers it on the
 * connection's writer; the JSON-RPC connection never sees the bad message.
 */
import type { Readable } from 'node:stream';
import { AbstractMessageReader, Disposable, type DataCallback } from 'vscode-jsonrpc';
import { Methods } from '@arbor/protocol';
import { ContentLengthFrameParser } from './contentLengthFrames.js';
import { checkEnvelope } from './envelope.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './jsonDepth.js';
import { faults, type ProtocolFault } from './protocolFault.js';

/**
 * Notifications vscode-jsonrpc consumes itself; they never reach our handlers.
 * `$/progress` is LSP's and unused by Arbor, so it has no descriptor.
 */
const CONNECTION_INTERNAL_NOTIFICATIONS = new Set<string>([
  Methods.CancelRequest.method,
  '$/progress',
  Methods.LogTrace.method,
]);

export interface HardenedReaderOptions {
  /** Read per frame: it may change (a socket allows less before authentication). */
  maxMessageBytes(): number;
  onFault(fault: ProtocolFault): void;
}

export class HardenedMessageReader extends AbstractMessageReader {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private callback: DataCallback | undefined;
  /** Requests and handler-bound notifications passed on, so the owner can drain them at EOF. */
  requestsPassed = 0;
  notificationsPassed = 0;
  private readonly parser: ContentLengthFrameParser;
  /** Ids of requests passed on and not yet answered (transport.md#transport-duplicate-id). */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly readable: Readable,
    private readonly options: HardenedReaderOptions,
  ) {
    super();
    this.parser = new ContentLengthFrameParser(options.maxMessageBytes, {
      body: (bytes) => this.onBody(bytes),
      oversized: (length) => options.onFault(faults.tooLarge(length, options.maxMessageBytes())),
      fatal: (reason) => options.onFault(faults.unreadableHeader(reason)),
    });
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const onData = (chunk: Buffer | string): void => {
      this.parser.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    };
    const onError = (error: Error): void => this.fireError(error);
    const onClose = (): void => this.fireClose();
    this.readable.on('data', onData);
    this.readable.on('error', onError);
    this.readable.on('end', onClose);
    this.readable.on('close', onClose);
    return Disposable.create(() => {
      this.callback = undefined;
      this.readable.off('data', onData);
      this.readable.off('error', onError);
      this.readable.off('end', onClose);
      this.readable.off('close', onClose);
    });
  }

  /** The response to a request passed on was written: its id may be used again. */
  answered(id: string | number): void {
    this.inFlight.delete(idKey(id));
  }

  private onBody(bytes: Buffer): void {
    if (nestsDeeperThan(bytes, MAX_JSON_DEPTH)) {
      this.options.onFault(
        faults.invalidRequest(`message nests deeper than ${MAX_JSON_DEPTH} levels; not read`),
      );
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(this.decoder.decode(bytes));
    } catch {
      // The parse error's text may quote the body, so it is not passed on.
      this.options.onFault(faults.parseError('message body is not valid UTF-8 JSON'));
      return;
    }
    const checked = checkEnvelope(value);
    if (!checked.ok) {
      if (checked.fault) this.options.onFault(checked.fault);
      return;
    }
    const message = checked.message as { id?: string | number; method?: string };
    if (message.method !== undefined && message.id !== undefined) {
      const key = idKey(message.id);
      if (this.inFlight.has(key)) {
        this.options.onFault(
          faults.invalidRequest(
            `request id ${JSON.stringify(message.id)} is already in use by a request not yet answered`,
            message.id,
          ),
        );
        return;
      }
      this.inFlight.add(key);
    }
    if (message.method !== undefined) {
      if (message.id !== undefined) this.requestsPassed += 1;
      else if (!CONNECTION_INTERNAL_NOTIFICATIONS.has(message.method))
        this.notificationsPassed += 1;
    }
    this.callback?.(checked.message);
  }
}

/** 1 and "1" are different ids. */
function idKey(id: string | number): string {
  return `${typeof id}:${id}`;
}
