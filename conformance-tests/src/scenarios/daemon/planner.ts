/**
 * The planner pre-pass of an agent profile with `planningEnabled`
 * (plan.md#plan-planner, tree.md#kinds, protocol 1.1), judged from outside:
 * the suite writes such a profile into the scenario's workspace and runs two
 * turns. In the first the scripted planner reads the memory (memory_list),
 * then answers a two-step plan; the executor then calls memory_read, so the
 * planner's call and the root loop's are told apart by their tool. In the
 * second the planner's model fails: no plan, and the session's plan stays.
 * The planner's script key is longer than the turns' own keys, so it wins
 * the substring match (appendix-scripted-provider.md#script-planner).
 */
import { Methods } from '@arbor/protocol';
import type { JsonObject } from '../../harness/connection.js';
import type { Scenario } from '../scenario.js';
import { Abort } from '../scenario.js';
import { profileSession, writeAgentProfiles } from './agentSessions.js';
import { requireDaemonCapability, type DaemonContext } from './context.js';
import { sessionEvents, send, waitTurnEnd } from './turns.js';

const NODE = 'daemon.agents.planner-node';
const CHILDREN = 'daemon.agents.planner-children';
const PLAN = 'daemon.agents.planner-plan';

const PROFILE = 'conformance-planner';
const HEADER = 'Plan the work for this request:';
/** Shorter than HEADER: the planner's message holds it too. */
const PLANNED = 'cpl: fix the date bug';
const UNPLANNED = 'cpl: no plan';
const STEPS = ['Read src/date.ts', 'Fix the month offset'];

const CONVERSATIONS: Record<string, JsonObject[]> = {
  [HEADER]: [
    {
      text: 'conformance: the planner looks first.',
      toolCalls: [{ name: 'memory_list', arguments: {} }],
      usage: { inputTokens: 11, outputTokens: 3 },
    },
    {
      text: STEPS.map((step, i) => `${i + 1}. ${step}`).join('\n'),
      usage: { inputTokens: 13, outputTokens: 5 },
    },
  ],
  [PLANNED]: [
    { toolCalls: [{ name: 'memory_read', arguments: { key: 'conformance-none' } }] },
    { text: 'conformance-planner: fixed.' },
  ],
  [`${HEADER}\n${UNPLANNED}`]: [{ error: 'conformance: the planner fails' }],
  [UNPLANNED]: [{ text: 'conformance-planner: done without a plan.' }],
};

type Node = JsonObject & { id: string; parentId?: string | null };
type Event = ReturnType<typeof sessionEvents>[number];

const nodesOf = (e: Event): Node[] =>
  e.method === Methods.TreeUpdate.method && Array.isArray(e.params.nodes)
    ? (e.params.nodes as Node[])
    : [];

export const planner: Scenario<DaemonContext> = {
  id: 'daemon-planner',
  role: 'daemon',
  title:
    "a profile's planner pre-pass: one planner node under the turn node, before the root loop, with the planner's usage and its calls as children, its text not streamed; its plan as one plan/update of pending steps; a planner without a plan leaves the plan alone",
  checks: [NODE, CHILDREN, PLAN],
  async run(ctx) {
    const c = await ctx.connect('open-enums', { capabilities: { openEnums: {} } });
    requireDaemonCapability(c.init, 'testing.scriptedProvider');
    requireDaemonCapability(c.init, 'agents');
    writeAgentProfiles(ctx, { [PROFILE]: { planningEnabled: true } });
    const sessionId = await profileSession(c, ctx, {
      mode: 'auto',
      agent: PROFILE,
      conversations: CONVERSATIONS,
    });

    const turnId = await send(ctx, c.conn, sessionId, PLANNED);
    await waitTurnEnd(ctx, c.conn, sessionId, turnId, 20_000);
    const events = sessionEvents(c.conn, sessionId).filter((e) => e.params.turnId === turnId);
    const tree = new Map<string, Node>();
    const firstAt = new Map<string, number>();
    events.forEach((e, at) => {
      for (const node of nodesOf(e)) {
        tree.set(node.id, { ...tree.get(node.id), ...node });
        if (!firstAt.has(node.id)) firstAt.set(node.id, at);
      }
    });
    const nodes = [...tree.values()];
    const turnNode = nodes.find((n) => n.parentId === null);
    const planners = nodes.filter((n) => n.kind === 'planner');
    const plannerNode = planners[0];
    const executorCall = nodes.find((n) => n.name === 'memory_read');
    if (turnNode === undefined || executorCall === undefined)
      throw new Abort(
        `no turn node or no node of the executor's memory_read call (nodes: ${JSON.stringify(nodes.map((n) => [n.id, n.kind, n.name])).slice(0, 400)})`,
      );
    const executorAt = firstAt.get(executorCall.id) ?? -1;

    // tree.md#tree-planner-node
    const usage = plannerNode?.usage as { inputTokens?: number; outputTokens?: number } | undefined;
    ctx.recorder.expect(
      NODE,
      planners.length === 1 &&
        plannerNode!.parentId === turnNode.id &&
        plannerNode!.depth === 0 &&
        firstAt.get(plannerNode!.id)! < executorAt &&
        (usage?.inputTokens ?? 0) >= 24 &&
        (usage?.outputTokens ?? 0) >= 8,
      `${planners.length} planner node(s); the first: ${JSON.stringify(plannerNode ?? null).slice(0, 400)}, announced at event ${String(plannerNode && firstAt.get(plannerNode.id))} of the turn, the executor's first call at ${executorAt} (expected one planner node, child of the turn node ${turnNode.id} at depth 0, announced first, with usage of at least 24 input and 8 output tokens: its two model calls)`,
    );

    // tree.md#tree-planner-children
    const plannerCall = nodes.find((n) => n.name === 'memory_list');
    const chunks = events.filter(
      (e) => e.method === Methods.ChatChunk.method && e.params.nodeId === plannerNode?.id,
    );
    ctx.recorder.expect(
      CHILDREN,
      plannerNode !== undefined && plannerCall?.parentId === plannerNode.id && chunks.length === 0,
      `the planner's memory_list call: ${JSON.stringify(plannerCall ?? null).slice(0, 300)} (expected parentId ${String(plannerNode?.id)}); ${chunks.length} chat/chunk naming the planner node (expected none)`,
    );

    // plan.md#plan-planner-update
    const updates = events
      .map((e, at) => ({ e, at }))
      .filter(({ e }) => e.method === Methods.PlanUpdate.method);
    const entries = updates[0]?.e.params.entries as JsonObject[] | undefined;
    const firstProblem =
      updates.length !== 1
        ? `${updates.length} plan/update of the turn (expected one)`
        : !Array.isArray(entries) ||
            entries.length !== STEPS.length ||
            entries.some((entry, i) => entry.content !== STEPS[i] || entry.status !== 'pending')
          ? `entries ${JSON.stringify(entries).slice(0, 300)} (expected ${JSON.stringify(STEPS)}, each pending)`
          : plannerNode === undefined ||
              updates[0]!.at < firstAt.get(plannerNode.id)! ||
              updates[0]!.at > executorAt
            ? `the plan/update is event ${updates[0]!.at} of the turn; the planner node came at ${String(plannerNode && firstAt.get(plannerNode.id))}, the executor's first call at ${executorAt} (expected between them)`
            : undefined;

    const unplannedId = await send(ctx, c.conn, sessionId, UNPLANNED);
    await waitTurnEnd(ctx, c.conn, sessionId, unplannedId, 20_000);
    const stray = sessionEvents(c.conn, sessionId).filter(
      (e) => e.method === Methods.PlanUpdate.method && e.params.turnId === unplannedId,
    );
    ctx.recorder.expect(
      PLAN,
      firstProblem === undefined && stray.length === 0,
      firstProblem ??
        `a turn whose planner failed (no plan) sent plan/update ${JSON.stringify(stray.map((e) => e.params.entries)).slice(0, 300)} (expected none: the session's plan stays)`,
    );
  },
};
