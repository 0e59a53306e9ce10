/**
 * A client reads protocol data from the daemon's stdout only
 * (transport.md#transport-client-stderr). Over stdio the fake daemon writes a
 * well-formed `session/state` frame to its stderr before anything else: a
 * client that parses stderr shows a turn waiting for an approval (seq 1) that
 * no daemon ever sent.
 */
import type { Scenario } from '../scenario.js';
import { hasCapability } from '../../harness/connection.js';
import { STDERR_SCENARIO, type ClientContext } from './context.js';
import { clientState, ready, sleep } from './scenarios.js';

export const daemonStderr: Scenario<ClientContext> = {
  id: STDERR_SCENARIO,
  role: 'client',
  title: "a frame on the stdio daemon's stderr is not protocol data",
  checks: ['client.transport.stderr-ignored'],
  async run(ctx) {
    const check = 'client.transport.stderr-ignored';
    if (ctx.target.transport !== 'stdio') {
      ctx.recorder.skip(check, 'runs over --transport stdio only');
      return;
    }
    const conn = await ready(ctx);
    if (!hasCapability(conn.negotiated, 'client.conformance')) {
      ctx.recorder.skip(check, 'the client does not advertise capabilities.conformance');
      return;
    }
    await sleep(100); // the decoy is out long before; let a client that reads it apply it
    const state = await clientState(ctx, conn, check);
    if (!state) return;
    ctx.recorder.expect(
      check,
      state.state === 'idle' && state.lastSeq === 0,
      `no event was sent on stdout, yet the client shows state ${String(state.state)} at lastSeq ${String(state.lastSeq)}: it read the decoy session/state on the daemon's stderr`,
    );
  },
};
