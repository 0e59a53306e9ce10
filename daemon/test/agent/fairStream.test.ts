/** One turn's stream never holds the event loop: other clients' work runs in between. */
import assert from 'node:assert/strict';
import { fairly, SLICE_MS } from '../../src/agent/fairStream.js';

/** A stream that is ready all at once and costs CPU per item, as a long scripted reply does. */
async function* readyAtOnce(items: number, busyMs: number): AsyncGenerator<number> {
  for (let i = 0; i < items; i++) {
    const until = performance.now() + busyMs;
    while (performance.now() < until) {
      // burn
    }
    yield i;
  }
}

async function consume(stream: AsyncIterable<number>): Promise<number> {
  let count = 0;
  for await (const _ of stream) count += 1;
  return count;
}

describe('fair provider streams', () => {
  it('a stream that is ready at once lets other macrotasks run while it is consumed', async () => {
    let otherWorkRan = 0;
    const other = setInterval(() => (otherWorkRan += 1), 0);
    const items = await consume(fairly(readyAtOnce(200, 1)));
    clearInterval(other);
    assert.equal(items, 200, 'every item arrives, in order');
    // ~200 ms of work in slices of SLICE_MS: the timer ran between slices.
    assert.ok(otherWorkRan >= 200 / SLICE_MS / 2, `other work ran ${otherWorkRan} times`);
  });

  it('without it, the same stream starves other work (the test can tell)', async () => {
    let otherWorkRan = 0;
    const other = setInterval(() => (otherWorkRan += 1), 0);
    await consume(readyAtOnce(100, 1));
    clearInterval(other);
    assert.equal(otherWorkRan, 0);
  });
});
