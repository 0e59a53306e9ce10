/**
 * run_subtasks: several subtasks from one call, run at once, each result
 * checked. Offered only when the session's agent profile allows parallel
 * subagents (`allowParallelSubagents`), with at most `maxParallelSubagents`
 * jobs a call. Like run_subtask it is carried out by the loop, not the
 * permission gate: each job is an ordinary subtask (loop.ts spawnSubtask)
 * whose own calls are gated, counted against the turn's budget.
 *
 * The model gets one JSON array, one entry per job in the order given —
 * `{ok: true, result}` or `{ok: false, error}` — never the jobs' texts run
 * together, so a failed job cannot pass for part of a sibling's answer.
 */
import { z } from 'zod';
import type { AgentProfile } from '../../agents/agentProfile.js';
import { MAX_PARALLEL_SUBAGENTS } from '../../agents/agentProfile.js';
import { defineTool, type Tool } from '../../tools/tool.js';
import type { Toolbelt } from '../../tools/toolbelt.js';
import { cutText, type ExecutionTree } from '../executionTree.js';
import { RUN_SUBTASK } from '../subtaskTools.js';
import type { ToolResult } from '../toolResult.js';
import { scheduleCalls } from '../toolScheduler.js';
import { BudgetExceededError, type TurnBudget } from '../turnBudget.js';

export const RUN_SUBTASKS = 'run_subtasks';

/** How much of a job's task names its node: a label, not the task. */
const TITLE_CHARS = 120;

const Job = z
  .object({
    task: z
      .string()
      .min(1)
      .describe('What this job must do; it sees nothing else of the conversation'),
    additional_context: z
      .string()
      .optional()
      .describe('Facts the job needs, given to it after the task'),
    tool_names: z
      .array(z.string().min(1))
      .optional()
      .describe('Only these of your tools (default: all of them except run_subtasks)'),
    output_schema: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('JSON Schema its result must match; it returns it through finish_subtask'),
    system_prompt: z
      .string()
      .optional()
      .describe('Extra framing for this job only, added to its system prompt'),
  })
  .strict();
export type SubtaskJob = z.infer<typeof Job>;

export const RunSubtasksArgs = z
  .object({
    jobs: z
      .array(Job)
      .min(1)
      .max(MAX_PARALLEL_SUBAGENTS)
      .describe('The jobs, run concurrently; each result is checked on its own'),
  })
  .strict();

/** One job's entry in the call's result. */
export type JobEntry = { ok: true; result: unknown } | { ok: false; error: string };

/** What the loop needs to start one subtask (loop.ts spawnSubtask's input). */
export interface SubtaskSpec {
  title: string;
  instructions: string;
  tools?: readonly string[];
  output_schema?: Record<string, unknown>;
  /** Added to the subtask's system prompt. */
  framing?: string;
}

/** How a subtask ended, as its parent sees it. */
export type SubtaskEnd =
  { ok: true; value: unknown; result: ToolResult } | { ok: false; result: ToolResult };

export interface ParallelSubtasksDeps {
  tree: ExecutionTree;
  budget: TurnBudget;
  signal: AbortSignal;
  /** The run_subtasks call's node: the jobs' nodes are its children. */
  nodeId: string;
  /** The depth of the calling loop (and of the job nodes). */
  depth: number;
  /** The profile's cap on jobs per call. */
  maxJobs: number;
  /** The caller's tools a job may have: its belt without run_subtasks. */
  childSafe: Toolbelt;
  /** Runs one job as a subtask in `nodeId` (already started) with `belt` as its caller's tools. */
  spawn: (spec: SubtaskSpec, nodeId: string, belt: Toolbelt) => Promise<SubtaskEnd>;
}

const tools = new Map<number, Tool>();

/** The tool as the model is offered it: the profile's cap is in its schema. */
export function runSubtasksTool(maxJobs: number): Tool {
  let tool = tools.get(maxJobs);
  if (tool === undefined) {
    tool = defineTool({
      name: RUN_SUBTASKS,
      description: `Runs up to ${maxJobs} independent subtasks at once, each with its own fresh context, and returns a JSON array with one entry per job, in order: {"ok": true, "result": …} or {"ok": false, "error": "…"}. With output_schema a job's result is checked against it.`,
      input: RunSubtasksArgs.extend({ jobs: RunSubtasksArgs.shape.jobs.max(maxJobs) }),
      category: 'read',
      execute: () => {
        throw new Error('run_subtasks is executed by the agent loop');
      },
    }) as Tool;
    tools.set(maxJobs, tool);
  }
  return tool;
}

/** The tools the profile adds to a turn's belt: run_subtasks when it allows parallel subagents. */
export function parallelSubtaskTools(profile: AgentProfile | undefined): Tool[] {
  return profile?.allowParallelSubagents ? [runSubtasksTool(profile.maxParallelSubagents)] : [];
}

/** Runs a run_subtasks call to its result; only a turn stop (cancel, budget) escapes as an exception. */
export async function runParallelSubtasks(
  args: unknown,
  deps: ParallelSubtasksDeps,
): Promise<ToolResult> {
  const { tree, budget, signal } = deps;
  tree.start(deps.nodeId);
  const parsed = RunSubtasksArgs.safeParse(args);
  if (!parsed.success) {
    return {
      content: `Invalid arguments for ${RUN_SUBTASKS}:\n${z.prettifyError(parsed.error)}`,
      isError: true,
    };
  }
  const { jobs } = parsed.data;
  // The whole call is refused, not cut down: which jobs to drop is the model's choice.
  if (jobs.length > deps.maxJobs) {
    return {
      content: `${RUN_SUBTASKS} takes at most ${deps.maxJobs} jobs; this call has ${jobs.length}. Nothing ran: split the jobs over several calls.`,
      isError: true,
    };
  }
  if (deps.depth >= budget.limits.maxDepth) {
    return {
      content: `Depth limit reached: subtasks nest at most ${budget.limits.maxDepth} levels deep. Do this work here, without ${RUN_SUBTASKS}.`,
      isError: true,
    };
  }

  const childSafe = new Set(deps.childSafe.names);
  const planned = jobs.map((job, index) => ({
    job,
    nodeId: tree.add({
      parentId: deps.nodeId,
      kind: 'subtask',
      name: RUN_SUBTASK,
      title: jobTitle(job, index),
      depth: deps.depth,
      args: job,
    }),
    parallelSafe: true,
    lock: undefined,
    entry: undefined as JobEntry | undefined,
  }));

  await scheduleCalls(planned, { maxParallel: budget.limits.maxParallel, signal }, async (item) => {
    tree.start(item.nodeId);
    const { job } = item;
    const foreign = (job.tool_names ?? []).filter((name) => !childSafe.has(name));
    let end: SubtaskEnd;
    if (foreign.length > 0) {
      // Only this job is refused: its siblings do not depend on it.
      end = {
        ok: false,
        result: {
          content: `tool_names must be tools a job may have: ${foreign.join(', ')} ${foreign.length === 1 ? 'is' : 'are'} not. Available: ${deps.childSafe.names.join(', ')}.`,
          isError: true,
        },
      };
    } else {
      end = await spawnJob(
        {
          title: jobTitle(job, planned.indexOf(item)),
          instructions:
            job.additional_context === undefined || job.additional_context.length === 0
              ? job.task
              : `${job.task}\n\nContext:\n${job.additional_context}`,
          ...(job.tool_names === undefined ? {} : { tools: job.tool_names }),
          ...(job.output_schema === undefined ? {} : { output_schema: job.output_schema }),
          ...(job.system_prompt ? { framing: job.system_prompt } : {}),
        },
        item.nodeId,
        deps,
      );
    }
    item.entry = end.ok
      ? { ok: true, result: end.value }
      : { ok: false, error: end.result.content };
    tree.finish(item.nodeId, {
      status: end.ok ? 'done' : 'error',
      result: end.result.content,
      isError: !end.ok,
    });
  });

  const entries = planned.map(
    (item): JobEntry => item.entry ?? { ok: false, error: 'The job did not run.' },
  );
  return {
    content: JSON.stringify(entries),
    // One failed job is an entry the model reads; the call failed only when every job did.
    isError: entries.every((entry) => !entry.ok),
  };
}

/** A job as a subtask; a spent budget ends the turn, with the job that spent it in error. */
async function spawnJob(
  spec: SubtaskSpec,
  nodeId: string,
  deps: ParallelSubtasksDeps,
): Promise<SubtaskEnd> {
  try {
    return await deps.spawn(spec, nodeId, deps.childSafe);
  } catch (error) {
    if (error instanceof BudgetExceededError && error.exceedance.nodeId === nodeId)
      deps.tree.finish(nodeId, { status: 'error', result: error.message, isError: true });
    throw error;
  }
}

function jobTitle(job: SubtaskJob, index: number): string {
  const line = job.task.trim().split('\n', 1)[0] ?? '';
  return `Job ${index + 1}: ${cutText(line, TITLE_CHARS)}`;
}
