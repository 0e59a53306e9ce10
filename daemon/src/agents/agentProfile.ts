/**
 * An agent profile: what a user sets per agent, in one place (the runtime
 * control contract). Profiles come from the config file (`agents`) and from a
 * workspace's `.arbor/agents/<name>.json`; a session runs with one of them
 * (`session/new` `agent`, else the config's `defaultAgent`, else none).
 *
 * A profile can narrow what the daemon allows, never widen it: its tools are a
 * subset, its `hitlTools` only add approvals, its budgets only lower the
 * daemon's. What it adds is instructions, models, a planner pre-pass, the
 * parallel-subagents tool, injected tool arguments and a data policy.
 */
import { z } from 'zod';
import { AgentName } from '@arbor/protocol';
import { BudgetOverrides } from '../agent/budgetLimits.js';
import { BudgetAwareness } from '../agent/context/contextSettings.js';
import { ModelString } from '../config/modelString.js';

/** A profile's name: the key in `agents`, the file name of `.arbor/agents/<name>.json` (the wire's). */
export { AgentName };

/** A tool name, or a pattern ending in `*` (`mcp__github__*`). */
const ToolPattern = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+\*?$/, 'a tool name, or a name prefix followed by *');

/** Most jobs one run_subtasks call may start (the contract's cap). */
export const MAX_PARALLEL_SUBAGENTS = 7;
export const DEFAULT_MAX_PARALLEL_SUBAGENTS = 3;

/** What a turn of the profile keeps in the store; what is not kept is gone after the turn. */
export const DataPolicy = z
  .object({
    text: z
      .boolean()
      .default(true)
      .describe("Store the assistant's answers (false: only that there was one)"),
    toolCalls: z
      .boolean()
      .default(true)
      .describe('Store tool calls (names and arguments) in the turn tree'),
    toolResults: z
      .boolean()
      .default(true)
      .describe('Store tool results (previews, outputs, artifacts)'),
    dropResultsOf: z
      .array(ToolPattern)
      .default([])
      .describe('Tools (names or prefix*) whose results are never stored, even with toolResults'),
  })
  .strict();
export type DataPolicy = z.output<typeof DataPolicy>;

/** A JSON object property name the model fills in for every tool call, never the tool. */
const InjectedArgName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a property name: letters, digits and _, at most 64');

export const AgentProfile = z
  .object({
    description: z.string().max(500).optional().describe('What the agent is for, shown in pickers'),
    instructions: z
      .string()
      .max(32_000)
      .optional()
      .describe('Added to the system prompt of the root loop and of every subtask'),
    model: ModelString.optional().describe(
      'Model (provider:model) of its sessions that chose none; the session model still wins',
    ),
    subtaskModel: ModelString.optional().describe('Model of its subtasks, at any depth'),
    planningEnabled: z
      .boolean()
      .default(false)
      .describe('A planner pre-pass before the first executor call of each turn'),
    planningModel: ModelString.optional().describe("The planner's model; default: the executor's"),
    planningInstructions: z
      .string()
      .max(16_000)
      .optional()
      .describe("The planner's instructions; default: Arbor's built-in planner prompt"),
    budgetAwareness: BudgetAwareness.optional().describe(
      'per-message or limit:<0-100>, as context.budgetAwareness, for this agent',
    ),
    hitlTools: z
      .array(z.string().min(1))
      .default([])
      .describe('Tools that always ask for approval, even in auto mode (with alwaysAsk)'),
    injectedToolArgs: z
      .record(InjectedArgName, z.string().min(1).max(500))
      .default({})
      .describe(
        'Arguments the model gives with every tool call, never passed to the tool: {name: description}, e.g. {"reason": "Why this call is needed"}; shown in approvals and the tree',
      ),
    allowParallelSubagents: z
      .boolean()
      .default(false)
      .describe('Offer run_subtasks: several subtasks at once, each result checked'),
    maxParallelSubagents: z
      .number()
      .int()
      .min(1)
      .max(MAX_PARALLEL_SUBAGENTS)
      .default(DEFAULT_MAX_PARALLEL_SUBAGENTS)
      .describe('Most jobs of one run_subtasks call (1-7, default 3)'),
    emitMcpProgress: z
      .boolean()
      .default(true)
      .describe('false: MCP progress notifications are not shown; the tools run the same'),
    tools: z
      .array(ToolPattern)
      .optional()
      .describe('The only tools the agent may use (names or prefix*); default: all'),
    budgets: BudgetOverrides.optional().describe("Lower limits than the daemon's (never higher)"),
    dataPolicy: DataPolicy.optional().describe('What its turns keep in the store (default: all)'),
  })
  .strict();
/** As written in a file. */
export type AgentProfileInput = z.input<typeof AgentProfile>;
/** With defaults filled in. */
export type AgentProfile = z.output<typeof AgentProfile>;

/** A profile as a session runs it: its name and where it came from. */
export interface NamedAgentProfile {
  readonly name: AgentName;
  readonly source: 'config' | 'workspace';
  readonly profile: AgentProfile;
}

/** Whether `tool` is one of `patterns` (a name, or a prefix followed by `*`). */
export function matchesToolPattern(tool: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) =>
    pattern.endsWith('*') ? tool.startsWith(pattern.slice(0, -1)) : tool === pattern,
  );
}
