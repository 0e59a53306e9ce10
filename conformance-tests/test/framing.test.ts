/** The harness's own Content-Length reader: split frames, junk on stdout, bad headers. */
import assert from 'node:assert/strict';
import { FrameReader, encodeFrame } from '../src/harness/framing.js';

function read(chunks: Buffer[]): { frames: string[]; junk: string[] } {
  const frames: string[] = [];
  const junk: string[] = [];
  const reader = new FrameReader({
    frame: (b) => frames.push(b.toString('utf8')),
    junk: (b) => junk.push(b.toString('utf8')),
  });
  for (const c of chunks) reader.push(c);
  reader.end();
  return { frames, junk };
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
});
