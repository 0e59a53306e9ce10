/**
 * A controller that leaves while the daemon asks it something
 * (sessions.md#session-detach, sessions.md#disconnect): two controllers are
 * asked about one call; one detaches or disconnects. The daemon withdraws the
 * request it sent the one that detached, and the approval stays pending for
 * the other, whose later allow decides it. (A tool/execute outstanding at a
 * disconnect is daemon.client-tools.disconnect-error's to judge.)
 */
import { Methods } from '@arbor/protocol';
import type { Connection, JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Skip } from '../scenario.js';
import {
  type DaemonContext,
  type Initialized,
  describe,
  notes,
  requireDaemonCapability,
  requireSocket,
  sleep,
} from './context.js';
import { WRITE_TOOL, attach, isCancelOf, show, until, untilCancelled } from './approvals.js';
import { scriptedSession, send, waitTurnEnd } from './turns.js';

const DETACH = 'daemon.sessions.detach-approvals';
const DISCONNECT = 'daemon.sessions.disconnect-pending-requests';

interface Asked {
  id: string | number;
  params: JsonObject;
}

interface Setup {
  sender: Initialized;
  other: Initialized;
  sessionId: string;
  turnId: string;
  callId: string;
  /** The request the leaving controller got. */
  asked: Asked;
  executed: JsonObject[];
  /** Lets the sender answer allow. */
  release: () => void;
}

/**
 * The sender (client tools, approvals) starts a turn calling its write tool;
 * `other`, a second controller, never decides. Resolves once both were asked;
 * skips when the other controller is not asked (approvals.ask-controllers' to judge).
 */
async function bothAsked(ctx: DaemonContext, label: string): Promise<Setup> {
  const callId = `conformance-${label}-1`;
  let released = false;
  const executed: JsonObject[] = [];
  const sender = await ctx.connect('sender', {
    capabilities: { approvals: {}, clientTools: {} },
    tools: [WRITE_TOOL],
  });
  requireDaemonCapability(sender.init, 'clientTools');
  const senderAsked: Asked[] = [];
  sender.conn.handle(Methods.ApprovalRequest.method, async (params, message) => {
    senderAsked.push({ id: message.id as string | number, params: params as JsonObject });
    await until(() => released, 15_000);
    return { decision: 'allow' };
  });
  sender.conn.handle(Methods.ToolExecute.method, (params) => {
    executed.push(params as JsonObject);
    return { content: `conformance result of ${String((params as JsonObject).toolCallId)}` };
  });
  const other = await ctx.connect('other', { capabilities: { approvals: {} } });
  const otherAsked: Asked[] = [];
  const never = untilCancelled(15_000);
  other.conn.handle(Methods.ApprovalRequest.method, (params, message) => {
    otherAsked.push({ id: message.id as string | number, params: params as JsonObject });
    return never(params as JsonObject, message.id as string | number, other.conn);
  });
  const sessionId = await scriptedSession(
    ctx,
    sender,
    {
      '*': [
        { toolCalls: [{ id: callId, name: WRITE_TOOL.name, arguments: { n: 1 } }] },
        { text: 'Finished.' },
      ],
    },
    'default',
    'editor',
  );
  await attach(ctx, other, sessionId, 'controller');
  const turnId = await send(ctx, sender.conn, sessionId, `conformance: ${label}`);
  const both = await until(() => senderAsked.length > 0 && otherAsked.length > 0, 5000);
  if (!both) {
    released = true;
    throw new Skip(
      `the write call was not asked of both controllers within 5 s (sender ${senderAsked.length}, other ${otherAsked.length})`,
    );
  }
  return {
    sender,
    other,
    sessionId,
    turnId,
    callId,
    asked: otherAsked[0]!,
    executed,
    release: () => (released = true),
  };
}

/** How the approval ended, as the sender saw it: the outcomes announced and whether the call ran. */
async function outcome(ctx: DaemonContext, s: Setup): Promise<string | undefined> {
  s.release();
  await waitTurnEnd(ctx, s.sender.conn, s.sessionId, s.turnId, 20_000);
  const resolved = notes(s.sender.conn, s.sessionId).filter(
    (e) => e.method === Methods.ApprovalResolved.method && e.params.toolCallId === s.callId,
  );
  const ran = s.executed.some((x) => x.toolCallId === s.callId);
  if (resolved.length > 0 && resolved.every((e) => e.params.outcome === 'approved') && ran)
    return undefined;
  return `tool/approvalResolved ${show(resolved.map((e) => e.params))}, the call ${ran ? 'ran' : 'did not run'}`;
}

const cancelled = (conn: Connection, id: string | number, ms: number) =>
  conn.waitFor(isCancelOf(id), ms);

export const detachApprovals: Scenario<DaemonContext> = {
  id: 'daemon-detach-approvals',
  role: 'daemon',
  title:
    'a controller that detaches while asked about a call gets $/cancelRequest for it; the approval stays pending, and the other controller decides it',
  checks: [DETACH],
  async run(ctx) {
    requireSocket(ctx.target, 'two controllers of one session');
    const s = await bothAsked(ctx, 'detach-while-asked');
    const detach = await s.other.conn.request(Methods.SessionDetach.method, {
      sessionId: s.sessionId,
    });
    if (!detach || detach.error) {
      s.release();
      throw new Skip(`session/detach got ${describe(detach)}`);
    }
    const cancel = await cancelled(s.other.conn, s.asked.id, 2000);
    const wrong = await outcome(ctx, s);
    ctx.recorder.expect(
      DETACH,
      cancel !== undefined && wrong === undefined,
      cancel === undefined
        ? `the controller that detached got no $/cancelRequest for its tool/approvalRequest (id ${String(s.asked.id)}) within 2 s`
        : `after one controller detached, the other allowed: ${wrong ?? ''} (expected approved, and the call run)`,
    );
  },
};

export const disconnectPending: Scenario<DaemonContext> = {
  id: 'daemon-disconnect-pending-requests',
  role: 'daemon',
  title:
    'a controller that disconnects while asked about a call gives no answer: the approval stays pending, and the other controller decides it',
  checks: [DISCONNECT],
  async run(ctx) {
    requireSocket(ctx.target, 'two controllers of one session');
    const s = await bothAsked(ctx, 'disconnect-while-asked');
    s.other.conn.close();
    await sleep(300); // the daemon has seen the connection close
    const wrong = await outcome(ctx, s);
    ctx.recorder.expect(
      DISCONNECT,
      wrong === undefined,
      `after one controller asked about the call disconnected, the other allowed: ${wrong ?? ''} (expected approved, and the call run)`,
    );
  },
};
