/**
 * The client side of the approval lifecycle (approvals.md#approval-lifecycle):
 * a re-sent request is one approval, `tool/approvalResolved` closes it, and the
 * client's own answer does not. Observed through `_arbor/conformance/state`'s
 * `pendingApprovals`.
 */
import { Methods } from '@arbor/protocol';
import { timeouts, type Connection, type JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import type { ClientContext } from './context.js';
import {
  approvalParams,
  clientState,
  describe,
  ready,
  requireClientCapability,
  sleep,
  startTurnWithToolAwaitingApproval,
} from './scenarios.js';

/** A request the driver holds (policy `ignore`) until the daemon cancels it: it waits longer. */
const held = (): { timeoutMs: number; noResponseCheck: string } => ({
  timeoutMs: 4 * timeouts.requestMs,
  noResponseCheck: 'client.approvals.cancelled',
});

const pendingOf = (state: JsonObject): unknown[] =>
  Array.isArray(state.pendingApprovals) ? state.pendingApprovals : [];

async function approvalSetup(ctx: ClientContext): Promise<Connection> {
  const conn = await ready(ctx);
  requireClientCapability(conn, 'client.approvals');
  requireClientCapability(conn, 'client.conformance');
  return conn;
}

function resolve(ctx: ClientContext, conn: Connection, toolCallId: string, outcome: string): void {
  ctx.emit(conn, Methods.ApprovalResolved.method, { turnId: 'turn-1', toolCallId, outcome });
}

export const approvalResend: Scenario<ClientContext> = {
  id: 'client-approval-resend',
  role: 'client',
  title: 'an approval request received twice (as re-sent on attach) is one pending approval',
  checks: ['client.approvals.dedupe'],
  async run(ctx) {
    const conn = await approvalSetup(ctx);
    startTurnWithToolAwaitingApproval(ctx, conn, 'call-5');
    // The driver policy is `ignore`: both stay unanswered until the daemon cancels them.
    const ids = ['approval-5a', 'approval-5b'];
    const answers = ids.map((id) =>
      conn.request(Methods.ApprovalRequest.method, approvalParams(ctx, 'call-5'), {
        id,
        ...held(),
      }),
    );
    await sleep(50);
    const state = await clientState(ctx, conn, 'client.approvals.dedupe');
    if (state) {
      const shown = pendingOf(state).filter((id) => id === 'call-5').length;
      ctx.recorder.expect(
        'client.approvals.dedupe',
        shown === 1,
        `after the same approval request twice the client shows pendingApprovals ${JSON.stringify(state.pendingApprovals)}`,
      );
    }
    resolve(ctx, conn, 'call-5', 'cancelled');
    for (const id of ids) conn.notify(Methods.CancelRequest.method, { id });
    await Promise.all(answers);
  },
};

export const approvalTimeout: Scenario<ClientContext> = {
  id: 'client-approval-timeout',
  role: 'client',
  title: 'an approval that times out: tool/approvalResolved timed_out closes it',
  checks: ['client.approvals.resolved-closes'],
  async run(ctx) {
    const conn = await approvalSetup(ctx);
    startTurnWithToolAwaitingApproval(ctx, conn, 'call-6');
    const answer = conn.request(Methods.ApprovalRequest.method, approvalParams(ctx, 'call-6'), {
      id: 'approval-6',
      ...held(),
    });
    await sleep(50);
    const before = await clientState(ctx, conn, 'client.approvals.resolved-closes');
    if (!before) return;
    if (!pendingOf(before).includes('call-6')) {
      ctx.recorder.fail(
        'client.approvals.resolved-closes',
        `the unanswered approval is not shown as pending: ${JSON.stringify(before.pendingApprovals)}`,
      );
      return;
    }
    // Judged before the $/cancelRequest, which closes a prompt on its own.
    resolve(ctx, conn, 'call-6', 'timed_out');
    await sleep(50);
    const after = await clientState(ctx, conn, 'client.approvals.resolved-closes');
    conn.notify(Methods.CancelRequest.method, { id: 'approval-6' });
    await answer;
    if (!after) return;
    ctx.recorder.expect(
      'client.approvals.resolved-closes',
      !pendingOf(after).includes('call-6'),
      `after tool/approvalResolved timed_out the client still shows pendingApprovals ${JSON.stringify(after.pendingApprovals)}`,
    );
  },
};

export const approvalRace: Scenario<ClientContext> = {
  id: 'client-approval-race',
  role: 'client',
  title: "the client's own answer does not end an approval; tool/approvalResolved does",
  checks: ['client.approvals.resolved-ends'],
  async run(ctx) {
    const conn = await approvalSetup(ctx);
    startTurnWithToolAwaitingApproval(ctx, conn, 'call-7');
    const answer = await conn.request(
      Methods.ApprovalRequest.method,
      approvalParams(ctx, 'call-7'),
      { noResponseCheck: 'client.approvals.valid-decision' },
    );
    if (!answer) return;
    if (!answer.result) {
      ctx.recorder.fail(
        'client.approvals.resolved-ends',
        `the approval request got ${describe(answer)}, not a decision`,
      );
      return;
    }
    // Another controller or the timeout may still win: until resolved, it is not over.
    const state = await clientState(ctx, conn, 'client.approvals.resolved-ends');
    resolve(ctx, conn, 'call-7', 'timed_out');
    if (!state) return;
    ctx.recorder.expect(
      'client.approvals.resolved-ends',
      pendingOf(state).includes('call-7'),
      `after answering, before tool/approvalResolved, the client shows pendingApprovals ${JSON.stringify(state.pendingApprovals)}: its own answer ended the approval`,
    );
  },
};
