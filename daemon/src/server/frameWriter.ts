/**
 * Writes each message as one `Content-Length` frame, at once and in call
 * order. vscode-jsonrpc's StreamMessageWriter instead queues messages in
 * memory behind a lock until the stream took the previous one, where no
 * limit can see them; here whatever the peer has not read yet sits in the
 * stream's own buffer, and `queuedBytes` is the whole backlog.
 */
import type { Writable } from 'node:stream';
import { AbstractMessageWriter, type Message, type MessageWriter } from 'vscode-jsonrpc';

export class FrameWriter extends AbstractMessageWriter implements MessageWriter {
  private errors = 0;

  constructor(private readonly output: Writable) {
    super();
    output.on('error', (error: Error) => this.fireError(error, undefined, ++this.errors));
    output.on('close', () => this.fireClose());
  }

  /** Bytes written and not yet taken by the peer. */
  get queuedBytes(): number {
    return this.output.writableLength;
  }

  write(message: Message): Promise<void> {
    if (this.output.destroyed || this.output.writableEnded) return Promise.resolve();
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    // Corked: header and body leave together without copying the body into one buffer.
    this.output.cork();
    this.output.write(`Content-Length: ${body.length}\r\n\r\n`, 'ascii');
    this.output.write(body);
    this.output.uncork();
    return Promise.resolve();
  }

  end(): void {
    // The connection ends the stream itself (ClientConnection.close).
  }
}
