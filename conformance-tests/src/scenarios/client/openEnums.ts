/**
 * A client with `capabilities.openEnums` reads an enum value it does not know
 * as its stand-in (versioning.md#open-enums): a tree node of a future kind
 * is kept (shown as a tool call), a session/state idle with a future
 * stopReason still ends the turn, and both events count as applied.
 */
import { Methods } from '@arbor/protocol';
import type { Scenario } from '../scenario.js';
import type { ClientContext } from './context.js';
import { clientState, ready, requireClientCapability, sleep } from './scenarios.js';

const CHECK = 'client.versioning.open-enums';

export const openEnums: Scenario<ClientContext> = {
  id: 'client-open-enums',
  role: 'client',
  title:
    'a node kind and a stopReason the client does not know: the node is kept, the turn ends; no event is dropped',
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
    // Values no version of the spec lists: deliberately outside the schema.
    conn.notify(
      Methods.TreeUpdate.method,
      {
        sessionId: ctx.sessionId,
        seq: ++ctx.lastSeq,
        turnId,
        nodes: [
          {
            id: 'future',
            parentId: 't',
            kind: 'conformance_future_kind',
            name: 'conformance_step',
            status: 'done',
            depth: 0,
          },
        ],
      },
      true,
    );
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
    const nodes = ((state.tree as { nodes?: { id?: unknown }[] } | undefined)?.nodes ?? []).map(
      (node) => node.id,
    );
    ctx.recorder.expect(
      CHECK,
      state.state === 'idle' && state.lastSeq === ctx.lastSeq && nodes.includes('future'),
      `after a tree node of an unknown kind and session/state idle with an unknown stopReason (seq ${ctx.lastSeq}) the client shows state ${String(state.state)}, lastSeq ${String(state.lastSeq)}, nodes ${JSON.stringify(nodes)}`,
    );
  },
};
