/**
 * The planner's built-in prompt (a profile's `planningInstructions` replaces
 * it) and the first line of its user message, which a script keys the
 * planner's conversation by (appendix-scripted-provider.md#script-planner).
 */

/** The planner's user message starts with this line, then the user's request. */
export const PLANNER_HEADER = 'Plan the work for this request:';

export const BUILT_IN_PLANNER_PROMPT = `You are the planner of a coding agent. Before the agent starts on the user's request, you write the plan it will follow.
You may look around the workspace with the read-only tools you have (read, search, list); you cannot change anything, and nothing you read is passed on except your plan.
Answer with the plan only: a short numbered list, one concrete step per line ("1. …"), in the order the agent should do them, at most about ten steps. Name the files, functions and commands involved where you know them. Leave out explanations, alternatives and anything the agent does not need to act.`;

/** What the executor is told about the plan, before the plan's steps. */
export const PLAN_NOTE_HEADER =
  'A planner wrote this plan for the current request before you started. Follow it, and adapt it when what you find disagrees; the user sees it as the plan of this turn.';
