/**
 * A provider stream that is ready all at once (the scripted provider, a long
 * reply arriving in one network read) would otherwise be consumed in a single
 * macrotask: tens of thousands of deltas through the loop, the tree and the
 * store while every other client's request waits. Consumed through here, the
 * turn hands the event loop back at least every SLICE_MS.
 */
import { setImmediate as nextMacrotask } from 'node:timers/promises';

/**
 * Longest stretch one turn's stream runs before other work gets its turn.
 * Short: vscode-jsonrpc handles one queued message per event-loop turn, so
 * the slice bounds how many other requests are answered per second.
 */
export const SLICE_MS = 2;

export async function* fairly<T>(iterable: AsyncIterable<T>): AsyncGenerator<T> {
  let sliceStart = performance.now();
  for await (const item of iterable) {
    yield item;
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextMacrotask();
      sliceStart = performance.now();
    }
  }
}
