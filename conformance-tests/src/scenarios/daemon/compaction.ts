/**
 * Compaction (tree.md#tree-compaction-node, protocol 1.1): a daemon that
 * summarizes earlier turns with a model call shows that call as a node of
 * kind `compaction` under the turn node, with the call's usage; a client
 * without `capabilities.openEnums` gets it as kind `tool`
 * (versioning.md#versioning-new-values-gated). A daemon may drop earlier
 * turns instead: then there is nothing to judge.
 *
 * The script lowers `history_tokens` below the first turn's long answer, so
 * the second turn's history no longer fits. Every reply has the same usage,
 * so whatever reply the summary call gets, its node's usage is that; its
 * input count is 0, which a daemon that corrects its own counts by reported
 * usage cannot take for a measurement of the request.
 */
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import type { DaemonContext, Initialized } from './context.js';
import { TURN_END_CHECKS, checkTurnEnd } from './turnEnd.js';
import { scriptedSession, send, sessionEvents, waitTurnEnd } from './turns.js';

const CHECK = 'daemon.tree.compaction-node';
const GATED = 'daemon.versioning.new-values-gated';
const USAGE = { inputTokens: 0, outputTokens: 4 };
/** ~15,000 tokens: over the limit below, with room left for a daemon's own prompt and tools. */
const LONG_ANSWER = 'The first answer, at length. '.repeat(2_100);
const HISTORY_TOKENS = 12_000;

const SCRIPT: JsonObject = {
  'conformance compaction 1': [{ text: LONG_ANSWER, usage: USAGE }],
  'conformance compaction 2': [{ text: 'The second answer.', usage: USAGE }],
};

interface SecondTurn {
  nodes: JsonObject[];
  idle: JsonObject;
}

/** Two turns on one connection; the second turn's tree nodes, merged by id, and its end. */
async function twoTurns(ctx: DaemonContext, c: Initialized): Promise<SecondTurn> {
  const sessionId = await scriptedSession(ctx, c, SCRIPT, 'auto', 'thread', {
    history_tokens: HISTORY_TOKENS,
  });
  const first = await send(ctx, c.conn, sessionId, 'conformance compaction 1');
  await waitTurnEnd(ctx, c.conn, sessionId, first);
  const second = await send(ctx, c.conn, sessionId, 'conformance compaction 2');
  const idle = await waitTurnEnd(ctx, c.conn, sessionId, second);
  const events = sessionEvents(c.conn, sessionId);
  checkTurnEnd(ctx.recorder, events, second);
  const merged = new Map<string, JsonObject>();
  for (const event of events) {
    if (event.method !== Methods.TreeUpdate.method || event.params.turnId !== second) continue;
    for (const node of (event.params.nodes ?? []) as JsonObject[]) {
      const id = String(node.id);
      merged.set(id, { ...(merged.get(id) ?? {}), ...node });
    }
  }
  return { nodes: [...merged.values()], idle };
}

const FINAL = new Set(['done', 'error', 'cancelled', 'denied', 'blocked']);

export const compaction: Scenario<DaemonContext> = {
  id: 'daemon-compaction',
  role: 'daemon',
  title:
    'earlier turns summarized by a model call show as a compaction node under the turn node with its usage; a v1 client gets kind tool',
  checks: [CHECK, GATED, ...TURN_END_CHECKS],
  async run(ctx) {
    const r = ctx.recorder;
    const modern = await ctx.connect('open-enums', { capabilities: { openEnums: {} } });
    const { nodes } = await twoTurns(ctx, modern);
    const summaries = nodes.filter((node) => node.kind === 'compaction');
    if (summaries.length === 0) {
      for (const check of [CHECK, GATED])
        r.skip(check, 'the daemon did not summarize the earlier turn (it may drop it instead)');
      return;
    }
    const root = nodes.find((node) => node.parentId === null);
    const problems = summaries.flatMap((node) => [
      ...(node.parentId === root?.id
        ? []
        : [
            `compaction node ${String(node.id)} has parent ${String(node.parentId)}, not the turn node`,
          ]),
      ...(FINAL.has(String(node.status))
        ? []
        : [`compaction node ${String(node.id)} ended ${String(node.status)}`]),
      ...(node.status !== 'done' || JSON.stringify(pick(node.usage)) === JSON.stringify(USAGE)
        ? []
        : [
            `compaction node ${String(node.id)} has usage ${JSON.stringify(node.usage)}; its model call used ${JSON.stringify(USAGE)}`,
          ]),
    ]);
    r.expect(CHECK, problems.length === 0, problems.join('; '));

    const v1 = await ctx.connect('v1');
    const old = await twoTurns(ctx, v1);
    const leaked = old.nodes.filter((node) => node.kind === 'compaction');
    r.expect(
      GATED,
      leaked.length === 0,
      `a client without capabilities.openEnums got node ${String(leaked[0]?.id)} of kind compaction, expected the v1 stand-in tool`,
    );
  },
};

/** The usage's token counts only (`_meta` and later members aside). */
function pick(usage: unknown): JsonObject | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const { inputTokens, outputTokens } = usage as JsonObject;
  return { inputTokens, outputTokens };
}
