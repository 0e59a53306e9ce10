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
  /**
   * One complete content part, read once: its text, and its JSON value
   * (`json` absent when the text is not JSON).
   */
  frame(body: Buffer, content: FrameContent): void;
  /** Bytes that are not part of any frame (a log line on stdout, a broken header). */
  junk(bytes: Buffer, why: string): void;
  /**
   * A frame that breaks a framing rule of transport.md#framing but could still
   * be read: more than one Content-Length, a header part over 8192 bytes,
   * content that is not UTF-8, or a Content-Length short of the content.
   */
  malformed(why: string): void;
}

const HEADER_LINE = /^[A-Za-z0-9-]+:[ \t]*[^\r\n]*$/;
const HEADER_END = Buffer.from('\r\n\r\n', 'ascii');
/** A header this long without its terminator is not a header: give up on it. */
const HOPELESS_HEADER_BYTES = 65536;
/** How far past a short Content-Length the rest of the content is looked for. */
const SHORT_COUNT_SEARCH_BYTES = 65536;
const CLOSERS = new Set([0x7d, 0x5d]); // `}` `]`: where a JSON text can end

// ignoreBOM keeps a byte-order mark in the text, as Buffer#toString does: JSON text has none.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export interface FrameContent {
  text: string;
  json?: { value: unknown };
  /** The bytes are valid UTF-8 (else `text` holds replacement characters). */
  utf8: boolean;
}

/** Decodes and parses a content part, once. */
function read(body: Buffer): FrameContent {
  let text: string;
  let valid = true;
  try {
    text = utf8.decode(body);
  } catch {
    text = body.toString('utf8');
    valid = false;
  }
  try {
    return { text, json: { value: JSON.parse(text) }, utf8: valid };
  } catch {
    return { text, utf8: valid };
  }
}

/**
 * Incremental Content-Length reader. Bytes that do not belong to a frame are
 * reported as junk and skipped, so one stray line does not hide every later
 * message from the checks.
 *
 * A content part that is not JSON is held until the next bytes arrive: when
 * they complete it, the sender counted Content-Length short — in characters or
 * UTF-16 code units instead of UTF-8 bytes, the usual mistake — and the frame
 * is read whole and reported as malformed, rather than as a broken message
 * followed by junk. A correct sender's frames are never held.
 */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);
  private bodyLength: number | null = null;
  private suspect: Buffer | null = null;

  constructor(private readonly sink: FrameSink) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    this.drain();
  }

  /** Delivers a held content part as it is: nothing more is coming for it now. */
  flush(): void {
    this.releaseSuspect();
  }

  /** The stream ended: whatever is left is junk (a partial frame or trailing output). */
  end(): void {
    this.releaseSuspect();
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
        this.deliver(body);
        continue;
      }
      const end = this.buffer.indexOf(HEADER_END);
      if (this.suspect !== null && this.completeShortCount(end)) continue;
      if (end < 0) {
        if (this.buffer.length > HOPELESS_HEADER_BYTES) {
          this.releaseSuspect();
          this.sink.junk(this.buffer, `no header terminator within ${HOPELESS_HEADER_BYTES} bytes`);
          this.buffer = Buffer.alloc(0);
        }
        return;
      }
      this.releaseSuspect();
      const block = this.buffer.subarray(0, end).toString('latin1');
      const parsed = parseHeaderBlock(block);
      if (parsed.junkBytes > 0) {
        this.sink.junk(this.buffer.subarray(0, parsed.junkBytes), 'bytes outside any frame');
      }
      this.buffer = this.buffer.subarray(end + HEADER_END.length);
      const headerBytes = end + HEADER_END.length - parsed.junkBytes;
      if (parsed.contentLengths.length === 0) {
        if (parsed.junkBytes < block.length) {
          this.sink.junk(
            Buffer.from(block.slice(parsed.junkBytes), 'latin1'),
            'header without Content-Length',
          );
        }
        continue;
      }
      const length = parsed.contentLengths[0]!;
      const problems = [
        ...(headerBytes > MAX_HEADER_BYTES
          ? [`a header part of ${headerBytes} bytes (at most ${MAX_HEADER_BYTES})`]
          : []),
        ...(parsed.contentLengths.length > 1
          ? [`${parsed.contentLengths.length} Content-Length headers`]
          : []),
        ...(length === null ? ['a Content-Length that is not a decimal integer'] : []),
      ];
      if (problems.length > 0) this.sink.malformed(problems.join('; '));
      if (length === null || parsed.contentLengths.some((l) => l !== length)) {
        this.sink.junk(
          Buffer.from(block.slice(parsed.junkBytes), 'latin1'),
          'header without one valid Content-Length',
        );
        continue;
      }
      this.bodyLength = length;
    }
  }

  private deliver(body: Buffer): void {
    this.releaseSuspect();
    const content = read(body);
    if (content.json === undefined) {
      this.suspect = Buffer.from(body);
      return;
    }
    this.emit(body, content);
  }

  private emit(body: Buffer, content: FrameContent): void {
    if (!content.utf8) this.sink.malformed('content that is not UTF-8');
    this.sink.frame(body, content);
  }

  private releaseSuspect(): void {
    if (this.suspect === null) return;
    const body = this.suspect;
    this.suspect = null;
    this.emit(body, read(body));
  }

  /**
   * Looks, in the bytes after a held content part (up to the next header
   * terminator, `end`), for the shortest continuation that makes it a JSON
   * text. Found: the frame is read whole and reported. Not found with a
   * header already in sight: the held part was just not JSON.
   */
  private completeShortCount(end: number): boolean {
    const suspect = this.suspect!;
    const limit = Math.min(end < 0 ? this.buffer.length : end, SHORT_COUNT_SEARCH_BYTES);
    for (let i = 0; i < limit; i++) {
      if (!CLOSERS.has(this.buffer[i]!)) continue;
      const whole = Buffer.concat([suspect, this.buffer.subarray(0, i + 1)]);
      const content = read(whole);
      if (content.json === undefined) continue;
      this.suspect = null;
      this.buffer = this.buffer.subarray(i + 1);
      this.sink.malformed(
        `Content-Length ${suspect.length} counts ${i + 1} bytes short of its content (${whole.length} bytes of UTF-8): ` +
          'counted in characters or UTF-16 code units?',
      );
      this.emit(whole, content);
      return true;
    }
    if (end >= 0) this.releaseSuspect();
    return false;
  }
}

/**
 * Finds the frame header at the end of a block that may start with junk: the
 * longest run of CRLF-terminated `Name: value` lines. Lines ending in a bare
 * LF are junk (a header line never does). Each Content-Length value is
 * returned (null: not a decimal integer), so the caller judges how many.
 */
function parseHeaderBlock(block: string): {
  junkBytes: number;
  contentLengths: (number | null)[];
} {
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
  if (first === lines.length) return { junkBytes: block.length, contentLengths: [] };
  const contentLengths: (number | null)[] = [];
  for (let i = first; i < lines.length; i++) {
    const text = lines[i]!.text.replace(/\r?\n$/, '');
    const colon = text.indexOf(':');
    if (text.slice(0, colon).trim().toLowerCase() === 'content-length') {
      const value = text.slice(colon + 1).trim();
      contentLengths.push(/^\d+$/.test(value) ? Number(value) : null);
    }
  }
  return { junkBytes: lines[first]!.start, contentLengths };
}
