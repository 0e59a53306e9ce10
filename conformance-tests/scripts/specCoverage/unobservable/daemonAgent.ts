/**
 * Daemon-side sentences of the agent (turns, tree, approvals, budgets, plan,
 * cost, tools, subtasks, the scripted provider) the suite cannot observe from
 * outside, with the reason.
 */
import type { Unobservable } from './types.js';

export const UNOBSERVABLE_DAEMON_AGENT: readonly Unobservable[] = [];
