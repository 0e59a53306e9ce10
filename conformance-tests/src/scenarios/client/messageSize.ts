/**
 * A client keeps every frame it sends within the daemon's advertised
 * `maxMessageBytes` (transport.md#transport-client-respects-max). The fake
 * daemon advertises a small limit and the driver is given a message whose
 * chat/send cannot fit it: a conformant client refuses it on its side instead
 * of sending a frame the daemon would answer -33003.
 */
import type { Scenario } from '../scenario.js';
import { timeouts } from '../../harness/connection.js';
import { SMALL_MAX_MESSAGE_BYTES, type ClientContext } from './context.js';
import { ready, sleep } from './scenarios.js';

export const respectsMax: Scenario<ClientContext> = {
  id: 'client-respects-max',
  role: 'client',
  title: `a daemon that accepts at most ${SMALL_MAX_MESSAGE_BYTES} bytes, and a message longer than that`,
  checks: ['client.transport.respects-max'],
  async run(ctx) {
    const check = 'client.transport.respects-max';
    const conn = await ready(ctx);
    // The driver sends its message right after attaching; give it time to try.
    await sleep(Math.min(timeouts.requestMs, 2000));
    const initializeAnswer = ctx.transcript.entries.findIndex(
      (e) => e.connection === conn.label && e.direction === 'harness→impl' && e.kind === 'frame',
    );
    // The initialize request is sent before the limit is known (8388608 is assumed until then).
    const oversized = ctx.transcript.entries
      .slice(initializeAnswer + 1)
      .filter(
        (e) =>
          e.connection === conn.label &&
          e.direction === 'impl→harness' &&
          e.kind === 'frame' &&
          (e.bytes ?? 0) > SMALL_MAX_MESSAGE_BYTES,
      );
    ctx.recorder.expect(
      check,
      oversized.length === 0,
      `sent a frame of ${oversized[0]?.bytes} content bytes to a daemon whose maxMessageBytes is ${SMALL_MAX_MESSAGE_BYTES}: ${oversized[0]?.text.slice(0, 120)}`,
    );
  },
};
