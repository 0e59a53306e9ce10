/**
 * The connection's writer: the frames of one pass leave together when it
 * ends (one writev on a pipe or socket), and only after the store committed
 * what they report (stored before sent); events the store could not keep
 * never leave, and the connection stays.
 */
import { strict as assert } from 'node:assert';
import { PassThrough } from 'node:stream';
import { setImmediate as nextPass } from 'node:timers/promises';
import type { Message } from 'vscode-jsonrpc';
import { FrameWriter } from '../../src/server/frameWriter.js';

const note = (n: number): Message =>
  ({ jsonrpc: '2.0', method: 'chat/chunk', params: { n } }) as Message;

describe('FrameWriter', () => {
  it('sends the frames of one pass when it ends, after the store commits', async () => {
    const order: string[] = [];
    const output = new PassThrough();
    const chunks: Buffer[] = [];
    output.on('data', (chunk: Buffer) => {
      order.push('sent');
      chunks.push(chunk);
    });
    const writer = new FrameWriter(output, {
      commitPending: () => void order.push('committed'),
      droppedCommits: 0,
    });
    await writer.write(note(1));
    await writer.write(note(2));
    assert.deepEqual(order, [], 'nothing leaves during the pass');
    await nextPass();
    assert.equal(order[0], 'committed');
    assert.ok(order.length > 1 && order.slice(1).every((step) => step === 'sent'));
    const text = Buffer.concat(chunks).toString();
    assert.equal(text.match(/Content-Length: \d+\r\n\r\n/g)?.length, 2);
    assert.ok(text.indexOf('"n":1') < text.indexOf('"n":2'), 'in call order');
  });

  it('a pass whose events the store had to drop sends none of them, and its responses all the same', async () => {
    const output = new PassThrough();
    const chunks: Buffer[] = [];
    output.on('data', (chunk: Buffer) => chunks.push(chunk));
    const store = {
      droppedCommits: 0,
      commitPending(): void {
        store.droppedCommits++;
        throw new Error('disk full');
      },
    };
    const writer = new FrameWriter(output, store);
    await writer.write({
      jsonrpc: '2.0',
      method: 'chat/chunk',
      params: { sessionId: 's', seq: 7, text: 'not stored' },
    } as Message);
    await writer.write({ jsonrpc: '2.0', id: 3, result: { turnId: 't' } } as Message);
    await nextPass();
    const text = Buffer.concat(chunks).toString();
    assert.doesNotMatch(text, /not stored/, 'an event the store could not keep never leaves');
    assert.match(text, /"id":3/, 'the response does');
    assert.equal(output.destroyed, false, 'the connection stays');
  });
});
