/** The harness's own Content-Length reader: split frames, junk on stdout, bad headers. */
import assert from 'node:assert/strict';
import { FrameReader, encodeFrame } from '../src/harness/framing.js';

interface Read {
  frames: string[];
  junk: string[];
  malformed?: string[];
}

function read(chunks: Buffer[]): Read {
  const frames: string[] = [];
  const junk: string[] = [];
  const malformed: string[] = [];
  const reader = new FrameReader({
    frame: (b) => frames.push(b.toString('utf8')),
    junk: (b) => junk.push(b.toString('utf8')),
    malformed: (why) => malformed.push(why),
  });
  for (const c of chunks) reader.push(c);
  reader.end();
  return { frames, junk, ...(malformed.length > 0 ? { malformed } : {}) };
}

/** A frame whose Content-Length is `length`, whatever its content's real size. */
function framed(body: string | Buffer, length: number, extraHeader = ''): Buffer {
  const content = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([Buffer.from(`${extraHeader}Content-Length: ${length}\r\n\r\n`), content]);
}

describe('FrameReader', () => {
  it('reads frames split at every byte, counting Content-Length in UTF-8 bytes', () => {
    const all = Buffer.concat([encodeFrame('{"text":"é"}'), encodeFrame('{"a":1}')]);
    const bytes = [...all].map((b) => Buffer.from([b]));
    assert.deepEqual(read(bytes), { frames: ['{"text":"é"}', '{"a":1}'], junk: [] });
  });

  it('accepts a Content-Type header before Content-Length', () => {
    const frame = Buffer.from(
      'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}',
    );
    assert.deepEqual(read([frame]), { frames: ['{}'], junk: [] });
  });

  it('reports a log line before a frame as junk and still reads the frame', () => {
    const { frames, junk } = read([Buffer.from('daemon starting\n'), encodeFrame('{}')]);
    assert.deepEqual(frames, ['{}']);
    assert.deepEqual(junk, ['daemon starting\n']);
  });

  it('reports a header-looking line ending in a bare LF as junk', () => {
    const { frames, junk } = read([Buffer.from('INFO: ready\n'), encodeFrame('{}')]);
    assert.deepEqual(frames, ['{}']);
    assert.deepEqual(junk, ['INFO: ready\n']);
  });

  it('reports trailing output and headers without Content-Length as junk', () => {
    const { frames, junk } = read([encodeFrame('{}'), Buffer.from('X-Other: 1\r\n\r\nbye')]);
    assert.deepEqual(frames, ['{}']);
    assert.equal(junk.length, 2);
  });

  describe('frames that break a framing rule are read and reported (client/daemon.wire.frames)', () => {
    const body = '{"text":"grüße 🌳"}';

    it('a Content-Length counted in UTF-16 code units: the frame is read whole, split at every byte too', () => {
      const short = Buffer.concat([framed(body, body.length), encodeFrame('{"a":1}')]);
      for (const chunks of [[short], [...short].map((b) => Buffer.from([b]))]) {
        const result = read(chunks);
        assert.deepEqual(result.frames, [body, '{"a":1}']);
        assert.deepEqual(result.junk, []);
        assert.equal(result.malformed?.length, 1);
        assert.match(result.malformed[0]!, /counts 4 bytes short/);
      }
    });

    it('a short count on the last frame before a pause is found without waiting for the next frame', () => {
      const frames: string[] = [];
      const malformed: string[] = [];
      const reader = new FrameReader({
        frame: (b) => frames.push(b.toString('utf8')),
        junk: () => assert.fail('no junk expected'),
        malformed: (why) => malformed.push(why),
      });
      reader.push(framed(body, body.length));
      assert.deepEqual(frames, [body]);
      assert.equal(malformed.length, 1);
    });

    it('content that is not JSON stays a frame of its own (judged by schema-valid), not a short count', () => {
      assert.deepEqual(read([encodeFrame('not json'), encodeFrame('{}')]), {
        frames: ['not json', '{}'],
        junk: [],
      });
    });

    it('two Content-Length headers, a header over 8192 bytes, content that is not UTF-8', () => {
      assert.deepEqual(read([framed('{}', 2, 'Content-Length: 2\r\n')]).malformed, [
        '2 Content-Length headers',
      ]);
      const long = read([framed('{}', 2, `X-Pad: ${'x'.repeat(9000)}\r\n`)]);
      assert.deepEqual(long.frames, ['{}']);
      assert.match(long.malformed![0]!, /header part of 9\d{3} bytes/);
      const latin1 = Buffer.from('{"text":"caf\xe9"}', 'latin1');
      assert.deepEqual(read([framed(latin1, latin1.length)]).malformed, [
        'content that is not UTF-8',
      ]);
    });

    it('a correct frame is reported as nothing but a frame', () => {
      assert.deepEqual(read([encodeFrame(body)]), { frames: [body], junk: [] });
    });
  });
});
