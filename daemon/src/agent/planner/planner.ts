/**
 * The planner pre-pass of an agent profile (`planningEnabled`): before the
 * executor's first model call of a turn, a planner loop looks at the request
 * (with the read-only tools of the turn, under the same budget and abort
 * signal) and writes a plan. Its messages and tool calls stay in its own loop:
 * the executor gets only the plan, as one note in its system prompt, and
 * clients get it as `plan/update`. On the wire the pre-pass is a `planner`
 * node under the turn node (tree.md#tree-planner-node), with the planner's
 * usage and cost.
 *
 * A planner that fails (its model errors, it runs out of iterations) costs
 * the turn its plan, not the turn: the executor then starts without one.
 */
import { Methods } from '@arbor/protocol';
import type { AgentProfile } from '../../agents/agentProfile.js';
import { knownCategory } from '../../permissions/permissionMatrix.js';
import type { ResolvedProvider } from '../../providers/index.js';
import type { ProviderMessage } from '../../providers/provider.js';
import type { Toolbelt } from '../../tools/toolbelt.js';
import { AgentLoop } from '../loop.js';
import { FINISH_SUBTASK, RUN_SUBTASK } from '../subtaskTools.js';
import type { TurnContext } from '../turnContext.js';
import { RUN_SUBTASKS } from '../parallelSubtasks/runSubtasks.js';
import { planEntries, planNote } from './planEntries.js';
import { BUILT_IN_PLANNER_PROMPT, PLANNER_HEADER } from './plannerPrompt.js';

/** The planner node's `name`. */
export const PLANNER_NODE_NAME = 'plan';

/**
 * Read tools the planner still does not get: ones that start work, change
 * the turn's state, put out a plan of their own, or wait on the user.
 */
const NOT_FOR_PLANNER: ReadonlySet<string> = new Set([
  RUN_SUBTASK,
  RUN_SUBTASKS,
  FINISH_SUBTASK,
  'todo_write',
  'memory_write',
  'ask_user',
]);

export interface PlanTurnOptions {
  profile: AgentProfile;
  /** The planner's provider and model (`planningModel`, else the executor's). */
  llm: ResolvedProvider;
  /** The executor's tools; the planner gets their read-only part. */
  belt: Toolbelt;
  /** The earlier turns and the user's message, as the executor gets them. */
  history: readonly ProviderMessage[];
  prompt: string;
  /** The workspace's instructions (AGENTS.md…), as the executor gets them: a plan must follow them too. */
  instructions: readonly string[];
}

/**
 * Runs the planner when the profile enables it; returns the note for the
 * executor's system prompt, or undefined when there is no plan. Throws only
 * what ends the turn (cancel, a spent budget).
 */
export async function planTurn(
  ctx: TurnContext,
  options: PlanTurnOptions,
): Promise<string | undefined> {
  const { tree, signal, budget } = ctx;
  if (!options.profile.planningEnabled) return undefined;
  const nodeId = tree.add({
    parentId: tree.rootId,
    kind: 'planner',
    name: PLANNER_NODE_NAME,
    title: 'Planning',
    status: 'running',
    depth: 0,
  });
  const readOnly = options.belt.tools
    .filter((tool) => knownCategory(tool.category) === 'read' && !NOT_FOR_PLANNER.has(tool.name))
    .map((tool) => tool.name);
  const loop = new AgentLoop(ctx, {
    nodeId,
    // Its tool calls sit inside its node, one level down, as a subtask's do.
    depth: 1,
    llm: options.llm,
    system: [
      options.profile.planningInstructions ?? BUILT_IN_PLANNER_PROMPT,
      ...options.instructions,
    ].join('\n\n'),
    messages: [
      ...options.history,
      { role: 'user', content: `${PLANNER_HEADER}\n${options.prompt}` },
    ],
    prunable: options.history.length,
    belt: options.belt.without(options.belt.names.filter((name) => !readOnly.includes(name))),
    silent: true,
  });
  try {
    const outcome = await loop.run();
    // At its iteration limit the planner's last call had no tools: what it answered is its plan.
    const entries =
      outcome.kind === 'answer' || outcome.kind === 'max_iterations'
        ? planEntries(outcome.text)
        : [];
    if (entries.length === 0) {
      const reason =
        outcome.kind === 'answer' || outcome.kind === 'max_iterations'
          ? 'the planner wrote no plan'
          : `the planner stopped without a plan (${outcome.kind})`;
      tree.finish(nodeId, { status: 'error', isError: true, result: reason });
      ctx.log('warn', `turn ${ctx.request.turnId}: ${reason}; the executor starts without one`);
      return undefined;
    }
    ctx.events.emit(Methods.PlanUpdate, { turnId: ctx.request.turnId, entries });
    tree.finish(nodeId, { status: 'done', result: loop.text });
    return planNote(entries);
  } catch (error) {
    if (signal.aborted || budget.exceeded) {
      tree.finish(nodeId, { status: 'cancelled' });
      throw error;
    }
    const reason = error instanceof Error ? error.message : String(error);
    ctx.log('warn', `turn ${ctx.request.turnId}: the planner failed, no plan: ${reason}`);
    tree.finish(nodeId, {
      status: 'error',
      isError: true,
      result: `The planner failed: ${reason}`,
    });
    return undefined;
  }
}
