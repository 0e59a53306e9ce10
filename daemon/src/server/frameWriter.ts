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

interface Frame {
  header: Buffer;
  body: Buffer;
  /** A numbered session event (params.seq): stored in the pass's transaction. */
  event: boolean;
}

export class FrameWriter extends AbstractMessageWriter implements MessageWriter {
  private errors = 0;
  /** This pass's frames, not yet handed to the stream. */
  private pass: Frame[] = [];
  /** droppedCommits when this pass's first frame was written. */
  private dropsAtStart = 0;

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
    return this.output.writableLength;
  }

  write(message: Message): Promise<void> {
    if (this.output.destroyed || this.output.writableEnded) return Promise.resolve();
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    if (this.pass.length === 0) {
      this.dropsAtStart = this.store.droppedCommits;
      setImmediate(() => this.flush());
    }
    this.pass.push({
      header: Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'),
      body,
      event: isSessionEvent(message),
    });
    return Promise.resolve();
  }

  /** Sends this pass's frames once what they report is committed. */
  flush(): void {
    if (this.pass.length === 0) return;
    let frames = this.pass;
    this.pass = [];
    try {
      this.store.commitPending();
    } catch {
      // Counted in droppedCommits; checked below.
    }
    if (this.store.droppedCommits !== this.dropsAtStart) {
      // The store could not keep this pass's events (a full disk even into its reserve):
      // they never leave. Their sessions number the next events from the log, so a
      // client sees no gap, and their turns end saying why; responses still go out.
      frames = frames.filter((frame) => !frame.event);
    }
    if (frames.length === 0 || this.output.destroyed) return;
    // One copy of the pass's bytes, one write.
    this.output.write(Buffer.concat(frames.flatMap((frame) => [frame.header, frame.body])));
  }

  end(): void {
    // The connection ends the stream itself (ClientConnection.close).
  }
}

function isSessionEvent(message: Message): boolean {
  const params = (message as { method?: unknown; params?: unknown }).params;
  return (
    typeof (message as { method?: unknown }).method === 'string' &&
    typeof params === 'object' &&
    params !== null &&
    typeof (params as { seq?: unknown }).seq === 'number'
  );
}
