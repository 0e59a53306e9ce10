/**
 * A client with `capabilities.openEnums` reads an enum value it does not know
 * as its stand-in (versioning.md#open-enums): a session/state idle with a
 * future stopReason still ends the turn, and the event counts as applied.
 */
import { Methods } from '@arbor/protocol';
import type { Scenario } from '../scenario.js';
import type { ClientContext } from './context.js';
import { clientState, ready, requireClientCapability, sleep } from './scenarios.js';

const CHECK = 'client.versioning.open-enums';

export const openEnums: Scenario<ClientContext> = {
  id: 'client-open-enums',
  role: 'client',
  title: 'a stopReason the client does not know ends the turn; the event is not dropped',
  checks: [CHECK],
  async run(ctx) {
    const conn = await ready(ctx);
    requireClientCapability(conn, 'client.openEnums');
    requireClientCapability(conn, 'client.conformance');
    const turnId = 'turn-open-enums';
    ctx.emit(conn, Methods.SessionState.method, { state: 'running', turnId });
    ctx.emit(conn, Methods.TreeUpdate.method, {
      turnId,
      nodes: [{ id: 't', parentId: null, kind: 'turn', name: 'turn', status: 'running', depth: 0 }],
    });
    // A value no version of the spec lists: deliberately outside the schema.
    conn.notify(
      Methods.SessionState.method,
      {
        sessionId: ctx.sessionId,
        seq: ++ctx.lastSeq,
        state: 'idle',
        turnId,
        stopReason: 'conformance_future_reason',
        usage: { inputTokens: 1, outputTokens: 1 },
      },
      true,
    );
    await sleep(50);
    const state = await clientState(ctx, conn, CHECK);
    if (!state) return;
    ctx.recorder.expect(
      CHECK,
      state.state === 'idle' && state.lastSeq === ctx.lastSeq,
      `after session/state idle with an unknown stopReason (seq ${ctx.lastSeq}) the client shows state ${String(state.state)}, lastSeq ${String(state.lastSeq)}`,
    );
  },
};
