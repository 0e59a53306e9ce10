/** The frame parser alone: any split of the byte stream yields the same frames. */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ContentLengthFrameParser, MAX_HEADER_BYTES } from '../src/server/contentLengthFrames.js';
import { frame } from './helpers/wire.js';

function collect(max: number) {
  const out = { bodies: [] as string[], oversized: [] as number[], fatal: [] as string[] };
  const parser = new ContentLengthFrameParser(() => max, {
    body: (b) => out.bodies.push(b.toString('utf8')),
    oversized: (n) => out.oversized.push(n),
    fatal: (r) => out.fatal.push(r),
  });
  return { parser, out };
}

describe('Content-Length frame parser', () => {
  it('yields the same bodies however the stream is split (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary', maxLength: 60 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 30 }),
        (bodies, cuts) => {
          const stream = Buffer.concat(bodies.map((b) => frame(b)));
          const { parser, out } = collect(1 << 20);
          let at = 0;
          for (let i = 0; at < stream.length; i++) {
            const size = cuts[i % cuts.length]!;
            parser.push(stream.subarray(at, at + size));
            at += size;
          }
          assert.deepEqual(out.bodies, bodies);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('counts UTF-8 bytes, not characters', () => {
    const { parser, out } = collect(1000);
    parser.push(Buffer.concat([frame('"🌳ü"'), frame('"x"')]));
    assert.deepEqual(out.bodies, ['"🌳ü"', '"x"']);
  });

  it('discards an oversized body as it streams and resumes at the next frame', () => {
    const { parser, out } = collect(10);
    const big = frame('x'.repeat(5000));
    for (let i = 0; i < big.length; i += 100) parser.push(big.subarray(i, i + 100));
    parser.push(frame('"ok"'));
    assert.deepEqual(out.oversized, [5000]);
    assert.deepEqual(out.bodies, ['"ok"']);
  });

  it('accepts Content-Type utf-8 and other headers, in any case', () => {
    const { parser, out } = collect(100);
    parser.push(
      Buffer.from(
        'content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\nX-Other: 1\r\n\r\n{}',
      ),
    );
    assert.deepEqual(out.bodies, ['{}']);
  });

  for (const [name, bytes] of [
    ['missing Content-Length', 'Content-Type: x\r\n\r\n{}'],
    ['non-numeric Content-Length', 'Content-Length: -3\r\n\r\n{}'],
    ['unsupported charset', 'Content-Length: 2\r\nContent-Type: a; charset=latin1\r\n\r\n{}'],
    ['endless header', 'X'.repeat(MAX_HEADER_BYTES + 10)],
  ] as const) {
    it(`a ${name} is fatal and stops the parser`, () => {
      const { parser, out } = collect(100);
      parser.push(Buffer.from(bytes));
      parser.push(frame('{}'));
      assert.equal(out.fatal.length, 1);
      assert.deepEqual(out.bodies, []);
    });
  }
});
