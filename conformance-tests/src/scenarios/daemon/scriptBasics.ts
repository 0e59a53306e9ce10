/**
 * What the subtask and budget scenarios build on, judged by other checks:
 * every tool call of one scripted reply is made (daemon.testing.tool-calls)
 * and setScript `budgets` apply (daemon.testing.set-budgets). A daemon that
 * fails either would fail these scenarios' checks for the wrong reason, so
 * they are SKIPPED instead, with the check to blame.
 */
import { Methods } from '@arbor/protocol';
import type { Connection, JsonObject } from '../../harness/connection.js';
import { Abort, Skip } from '../scenario.js';
import { type DaemonContext, describe } from './context.js';
import { checkTurnEnd } from './turnEnd.js';
import { send, sessionEvents, waitTurnEnd } from './turns.js';

const PROBE = 'conformance-probe: two calls in one reply, then one a reply';
/** The probe's limit: model calls 2–4 make one `conformance_probe_c` call each. */
const LLM_CALLS = 4;

const probeCall = (name: string): JsonObject => ({ name, arguments: {} });

export async function setScript(
  ctx: DaemonContext,
  conn: Connection,
  sessionId: string,
  conversations: JsonObject,
  budgets?: JsonObject,
): Promise<void> {
  const set = await conn.request(Methods.SetScript.method, {
    sessionId,
    script: { version: 1, conversations },
    ...(budgets && { budgets }),
  });
  if (!set || set.error) {
    if (budgets)
      ctx.recorder.fail(
        'daemon.testing.set-budgets',
        `setScript with budgets got ${describe(set)}`,
      );
    throw new Abort(`setScript failed: ${describe(set)}`);
  }
}

/**
 * Runs one probe turn in `sessionId` (auto mode: unknown tools are error
 * results); afterwards the caller sets the script it needs.
 */
export async function requireScriptBasics(
  ctx: DaemonContext,
  conn: Connection,
  sessionId: string,
): Promise<void> {
  const replies = [
    { toolCalls: [probeCall('conformance_probe_a'), probeCall('conformance_probe_b')] },
    ...Array.from({ length: 9 }, () => ({ toolCalls: [probeCall('conformance_probe_c')] })),
    { text: 'conformance: the probe is done.' },
  ];
  await setScript(ctx, conn, sessionId, { [PROBE]: replies }, { llm_calls: LLM_CALLS });
  const turnId = await send(ctx, conn, sessionId, PROBE);
  await waitTurnEnd(ctx, conn, sessionId, turnId, 30_000);
  const events = sessionEvents(conn, sessionId);
  checkTurnEnd(ctx.recorder, events, turnId);
  const names = new Map<string, string>();
  for (const e of events)
    if (e.method === Methods.TreeUpdate.method && e.params.turnId === turnId)
      for (const node of (e.params.nodes ?? []) as JsonObject[])
        if (typeof node.name === 'string') names.set(String(node.id), node.name);
  const count = (name: string): number => [...names.values()].filter((n) => n === name).length;
  if (count('conformance_probe_a') !== 1 || count('conformance_probe_b') !== 1)
    throw new Skip(
      'the daemon did not make both tool calls of one scripted reply (daemon.testing.tool-calls)',
    );
  const later = count('conformance_probe_c');
  if (
    !ctx.recorder.expect(
      'daemon.testing.set-budgets',
      later <= LLM_CALLS - 1,
      `with setScript budgets {llm_calls: ${LLM_CALLS}} a script that calls a tool on every model call made ${later + 1} model calls with tool calls`,
    )
  )
    throw new Skip('setScript budgets are not applied (daemon.testing.set-budgets)');
}
