/**
 * Splits a byte stream into LSP frames (`Content-Length: N\r\n\r\n<N bytes>`).
 *
 * Written by hand rather than taken from vscode-jsonrpc because the daemon must
 * refuse an oversized body while it streams in: the body of a frame larger than
 * the maximum is counted and dropped chunk by chunk, never buffered. Header
 * parsing works on bytes, so frames split anywhere (even 1 byte at a time) and
 * several frames in one chunk are handled alike.
 */

/** Longest header block accepted; LSP headers are a few dozen bytes. */
export const MAX_HEADER_BYTES = 8192;

const HEADER_END = Buffer.from('\r\n\r\n', 'ascii');

export interface FrameHandlers {
  /** A complete frame body (raw bytes, not yet decoded). */
  body(bytes: Buffer): void;
  /** A frame announced more than the maximum; its body is being discarded. */
  oversized(contentLength: number): void;
  /**
   * The header was unusable: without a trustworthy length the stream cannot be
   * resynchronised, so the parser stops and the connection should be closed.
   */
  fatal(reason: string): void;
}

type State =
  | { kind: 'header'; pending: Buffer }
  | { kind: 'body'; remaining: number; parts: Buffer[] }
  | { kind: 'discard'; remaining: number }
  | { kind: 'failed' };

export class ContentLengthFrameParser {
  private state: State = { kind: 'header', pending: Buffer.alloc(0) };

  /** `maxBodyBytes` is read per frame: a socket allows less before it has authenticated. */
  constructor(
    private readonly maxBodyBytes: () => number,
    private readonly handlers: FrameHandlers,
  ) {}

  get failed(): boolean {
    return this.state.kind === 'failed';
  }

  push(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0 && this.state.kind !== 'failed') {
      rest = this.consume(rest);
    }
  }

  /** Consumes what the current state can use and returns the unconsumed rest. */
  private consume(chunk: Buffer): Buffer {
    const state = this.state;
    switch (state.kind) {
      case 'header':
        return this.consumeHeader(state.pending, chunk);
      case 'body': {
        const take = Math.min(state.remaining, chunk.length);
        state.parts.push(chunk.subarray(0, take));
        state.remaining -= take;
        if (state.remaining === 0) {
          this.state = { kind: 'header', pending: Buffer.alloc(0) };
          this.handlers.body(Buffer.concat(state.parts));
        }
        return chunk.subarray(take);
      }
      case 'discard': {
        const take = Math.min(state.remaining, chunk.length);
        state.remaining -= take;
        if (state.remaining === 0) this.state = { kind: 'header', pending: Buffer.alloc(0) };
        return chunk.subarray(take);
      }
      case 'failed':
        return Buffer.alloc(0);
    }
  }

  private consumeHeader(pending: Buffer, chunk: Buffer): Buffer {
    const joined = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    const end = joined.indexOf(HEADER_END);
    if (end === -1) {
      if (joined.length > MAX_HEADER_BYTES) return this.fail('header block too long');
      // Copy: the caller's chunk may be a view into a reused buffer.
      this.state = { kind: 'header', pending: Buffer.from(joined) };
      return Buffer.alloc(0);
    }
    if (end > MAX_HEADER_BYTES) return this.fail('header block too long');
    const length = parseContentLength(joined.subarray(0, end).toString('latin1'));
    if (typeof length === 'string') return this.fail(length);
    const rest = joined.subarray(end + HEADER_END.length);
    if (length > this.maxBodyBytes()) {
      this.state = { kind: 'discard', remaining: length };
      this.handlers.oversized(length);
    } else if (length === 0) {
      this.state = { kind: 'header', pending: Buffer.alloc(0) };
      this.handlers.body(Buffer.alloc(0));
    } else {
      this.state = { kind: 'body', remaining: length, parts: [] };
    }
    return rest;
  }

  private fail(reason: string): Buffer {
    this.state = { kind: 'failed' };
    this.handlers.fatal(reason);
    return Buffer.alloc(0);
  }
}

/** The Content-Length of a header block, or a reason why there is none. */
export function parseContentLength(headerBlock: string): number | string {
  let length: number | undefined;
  for (const line of headerBlock.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) return `malformed header line`;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length') {
      if (!/^\d{1,15}$/.test(value)) return 'Content-Length is not a non-negative integer';
      const parsed = Number(value);
      if (length !== undefined && length !== parsed) return 'conflicting Content-Length headers';
      length = parsed;
    } else if (name === 'content-type') {
      const charset = /charset\s*=\s*"?([^;"\s]+)/i.exec(value)?.[1]?.toLowerCase();
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
        return `unsupported charset ${charset}`;
      }
    }
    // Other headers are ignored, as in LSP.
  }
  return length ?? 'missing Content-Length header';
}
