/**
 * Writes each message as one `Content-Length` frame, in call order. Frames
 * written in one pass of the event loop leave together when the pass ends,
 * in one write: a turn's response and events would otherwise cost a system
 * call, and a wake-up of the peer, each. Before they leave, the store commits
 * what they report (`StoreCommits`): stored before sent.
 *
 * vscode-jsonrpc's StreamMessageWriter instead queues messages in memory
 * behind a lock until the stream took the previous one, where no limit can
 * see them; here whatever the peer has not read yet sits in the stream's own
 * buffer, and `queuedBytes` is the backlog.
 */
import type { Writable } from 'node:stream';
import { AbstractMessageWriter, type Message, type MessageWriter } from 'vscode-jsonrpc';
import type { StoreCommits } from '../store/passTransaction.js';

export class FrameWriter extends AbstractMessageWriter implements MessageWriter {
  private errors = 0;
  /** Bytes corked in this pass, not yet handed to the stream. */
  private corkedBytes = 0;
  /** droppedCommits when this pass's first frame was corked. */
  private dropsAtCork = 0;

  constructor(
    private readonly output: Writable,
    private readonly store: StoreCommits,
  ) {
    super();
    output.on('error', (error: Error) => this.fireError(error, undefined, ++this.errors));
    output.on('close', () => this.fireClose());
  }

  /** Bytes written and not yet taken by the peer (this pass's frames are about to leave). */
  get queuedBytes(): number {
    return this.output.writableLength - this.corkedBytes;
  }

  write(message: Message): Promise<void> {
    if (this.output.destroyed || this.output.writableEnded) return Promise.resolve();
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    const header = `Content-Length: ${body.length}\r\n\r\n`;
    if (this.corkedBytes === 0) {
      this.output.cork();
      this.dropsAtCork = this.store.droppedCommits;
      setImmediate(() => this.flush());
    }
    this.corkedBytes += header.length + body.length;
    this.output.write(header, 'ascii');
    this.output.write(body);
    return Promise.resolve();
  }

  /** Sends this pass's frames once what they report is committed. */
  flush(): void {
    if (this.corkedBytes === 0) return;
    this.corkedBytes = 0;
    try {
      this.store.commitPending();
    } catch {
      // Counted in droppedCommits; checked below.
    }
    if (this.store.droppedCommits !== this.dropsAtCork) {
      // Some of these frames report events the store could not keep: none may leave. The
      // client sees the connection close, and replays from the log when it attaches again.
      this.output.destroy();
      return;
    }
    if (this.output.writableCorked > 0) this.output.uncork();
  }

  end(): void {
    // The connection ends the stream itself (ClientConnection.close).
  }
}
