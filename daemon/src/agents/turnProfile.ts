/**
 * What a session's agent profile changes in one of its turns, field by field
 * (TurnRequest.agent). Each function takes what the turn had without a
 * profile and returns what it runs with, so the turn runner, the loop and the
 * permission gate each apply a profile in one call. A profile only narrows:
 * its budgets lower the daemon's, its tools are a subset, its hitlTools add
 * approvals; it never widens what the daemon allows.
 */
import { limitsByKind, withBudgets, type BudgetLimits } from '../agent/budgetLimits.js';
import type { ContextSettings } from '../agent/context/contextSettings.js';
import type { TurnRequest } from '../agent/turnRunner.js';
import { isMcpToolName } from '../tools/mcp/mcpToolNames.js';
import type { Tool } from '../tools/tool.js';
import { matchesToolPattern, type NamedAgentProfile } from './agentProfile.js';

type Agent = NamedAgentProfile | undefined;

/** The session's model wins; then the profile's; then the daemon's default. */
export function turnModel(request: TurnRequest, defaultModel: string | undefined) {
  return request.model ?? request.agent?.profile.model ?? defaultModel;
}

/** The profile's subtask model, else the daemon's (config `subtaskModel`). */
export function turnSubtaskModel(agent: Agent, subtaskModel: string | undefined) {
  return agent?.profile.subtaskModel ?? subtaskModel;
}

/** The limits lowered to the profile's `budgets`; a higher one is ignored, never applied. */
export function turnLimits(agent: Agent, limits: BudgetLimits): BudgetLimits {
  const budgets = agent?.profile.budgets;
  if (!budgets) return limits;
  return withBudgets(limits, limitsByKind({ ...limits, ...budgets }), 'lower');
}

/** The profile's budgetAwareness replaces the config's for its turns. */
export function turnContextSettings(agent: Agent, settings: ContextSettings): ContextSettings {
  const awareness = agent?.profile.budgetAwareness;
  return awareness === undefined ? settings : { ...settings, budgetAwareness: awareness };
}

/**
 * Only the profile's tools are offered to the model; a call to another then
 * gets the loop's unknown-tool answer, as any tool the turn does not have.
 */
export function turnTools(agent: Agent, tools: readonly Tool[]): readonly Tool[] {
  const allowed = agent?.profile.tools;
  return allowed === undefined
    ? tools
    : tools.filter((tool) => matchesToolPattern(tool.name, allowed));
}

/** Sections appended to the root's and every subtask's system prompt: the profile's instructions. */
export function agentInstructionSections(agent: Agent): string[] {
  const instructions = agent?.profile.instructions?.trim();
  return instructions
    ? [`You run as the agent "${agent!.name}". Its instructions:\n${instructions}`]
    : [];
}

/** Whether the profile asks before every call of `tool`, in any mode (its `hitlTools`). */
export function agentAsksAlways(turn: TurnRequest, tool: string): boolean {
  return turn.agent?.profile.hitlTools.includes(tool) ?? false;
}

/** `emitMcpProgress: false` hides MCP servers' progress; the calls themselves run the same. */
export function showsProgress(agent: Agent, tool: string): boolean {
  return agent?.profile.emitMcpProgress !== false || !isMcpToolName(tool);
}
