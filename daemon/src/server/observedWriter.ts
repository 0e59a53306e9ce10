/**
 * The connection's writer, wrapped so the connection sees every message it
 * sends: error responses are logged here, once each, with the client's id and
 * never the body; and writing stops cleanly once the connection is closed.
 */
import { type Message, type MessageWriter, Emitter, type Event } from 'vscode-jsonrpc';

export type WrittenHook = (message: Message) => void;

export class ObservedWriter implements MessageWriter {
  private closed = false;
  private readonly closeEmitter = new Emitter<void>();

  constructor(
    private readonly inner: MessageWriter,
    private readonly afterWrite: WrittenHook,
  ) {
    inner.onClose(() => this.closeEmitter.fire());
  }

  get onError(): Event<[Error, Message | undefined, number | undefined]> {
    return this.inner.onError;
  }

  get onClose(): Event<void> {
    return this.closeEmitter.event;
  }

  async write(message: Message): Promise<void> {
    if (this.closed) return;
    await this.inner.write(message);
    this.afterWrite(message);
  }

  /** Stops writing; the transport closes the stream itself. */
  close(): void {
    this.closed = true;
  }

  end(): void {
    this.inner.end();
  }

  dispose(): void {
    this.closed = true;
    this.inner.dispose();
  }
}
