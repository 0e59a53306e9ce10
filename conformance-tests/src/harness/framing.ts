/**
 * LSP base-protocol framing, written here on purpose instead of borrowed from
 * vscode-jsonrpc: the suite must see every byte an implementation writes
 * (stray log lines, bad headers, batches) and must be able to send frames no
 * well-behaved library would produce.
 */

/** Longest header part a frame may have (transport.md#transport-header-limit). */
export const MAX_HEADER_BYTES = 8192;

export function encodeFrame(body: string | Buffer): Buffer {
  const content = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([
    Buffer.from(`Content-Length: ${content.length}\r\n\r\n`, 'ascii'),
    content,
  ]);
}

export interface FrameSink {
  /** One complete content part. */
  frame(body: Buffer): void;
  /** Bytes that are not part of any frame (a log line on stdout, a broken header). */
  junk(bytes: Buffer, why: string): void;
}

const HEADER_LINE = /^[A-Za-z0-9-]+:[ \t]*[^\r\n]*$/;
const HEADER_END = Buffer.from('\r\n\r\n', 'ascii');

/**
 * Incremental Content-Length reader. Bytes that do not belong to a frame are
 * reported as junk and skipped, so one stray line does not hide every later
 * message from the checks.
 */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);
  private bodyLength: number | null = null;

  constructor(private readonly sink: FrameSink) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    this.drain();
  }

  /** The stream ended: whatever is left is junk (a partial frame or trailing output). */
  end(): void {
    if (this.buffer.length > 0) {
      this.sink.junk(
        this.buffer,
        this.bodyLength === null ? 'bytes after the last frame' : 'truncated frame',
      );
    }
    this.buffer = Buffer.alloc(0);
    this.bodyLength = null;
  }

  private drain(): void {
    for (;;) {
      if (this.bodyLength !== null) {
        if (this.buffer.length < this.bodyLength) return;
        const body = this.buffer.subarray(0, this.bodyLength);
        this.buffer = this.buffer.subarray(this.bodyLength);
        this.bodyLength = null;
        this.sink.frame(body);
        continue;
      }
      const end = this.buffer.indexOf(HEADER_END);
      if (end < 0) {
        if (this.buffer.length > MAX_HEADER_BYTES) {
          this.sink.junk(this.buffer, 'no header terminator within 8192 bytes');
          this.buffer = Buffer.alloc(0);
        }
        return;
      }
      const block = this.buffer.subarray(0, end).toString('latin1');
      const parsed = parseHeaderBlock(block);
      if (parsed.junkBytes > 0) {
        this.sink.junk(this.buffer.subarray(0, parsed.junkBytes), 'bytes outside any frame');
      }
      this.buffer = this.buffer.subarray(end + HEADER_END.length);
      if (parsed.contentLength === null) {
        this.sink.junk(
          Buffer.from(block.slice(parsed.junkBytes), 'latin1'),
          'header without a valid Content-Length',
        );
        continue;
      }
      this.bodyLength = parsed.contentLength;
    }
  }
}

/**
 * Finds the frame header at the end of a block that may start with junk: the
 * longest run of CRLF-terminated `Name: value` lines that contains exactly one
 * Content-Length. Lines ending in a bare LF are junk (a header line never does).
 */
function parseHeaderBlock(block: string): { junkBytes: number; contentLength: number | null } {
  // Offsets of each line start; the block has no trailing CRLF.
  const lines: { start: number; text: string }[] = [];
  let start = 0;
  for (;;) {
    const nl = block.indexOf('\n', start);
    if (nl < 0) {
      lines.push({ start, text: block.slice(start) });
      break;
    }
    lines.push({ start, text: block.slice(start, nl + 1) });
    start = nl + 1;
  }
  // A header line is `Name: value\r\n`, the last one without its CRLF.
  const isHeader = (i: number): boolean => {
    const line = lines[i]!;
    const last = i === lines.length - 1;
    if (!last && !line.text.endsWith('\r\n')) return false;
    const text = last ? line.text : line.text.slice(0, -2);
    return HEADER_LINE.test(text);
  };
  let first = lines.length;
  for (let i = lines.length - 1; i >= 0 && isHeader(i); i--) first = i;
  if (first === lines.length) return { junkBytes: block.length, contentLength: null };
  let contentLength: number | null = null;
  let count = 0;
  for (let i = first; i < lines.length; i++) {
    const text = lines[i]!.text.replace(/\r?\n$/, '');
    const colon = text.indexOf(':');
    if (text.slice(0, colon).trim().toLowerCase() === 'content-length') {
      count++;
      const value = text.slice(colon + 1).trim();
      contentLength = /^\d+$/.test(value) ? Number(value) : null;
    }
  }
  const junkBytes = lines[first]!.start;
  return { junkBytes, contentLength: count === 1 ? contentLength : null };
}
