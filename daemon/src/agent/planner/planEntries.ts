/**
 * The planner's answer as plan entries (plan.md): one per step of its list,
 * and the compact note the executor reads. A planner that answered without a
 * list still has a plan: its text, as one step.
 */
import type { PlanEntry } from '@arbor/protocol';
import { cutText } from '../executionTree.js';
import { PLAN_NOTE_HEADER } from './plannerPrompt.js';

/** Most steps kept: a plan longer than this is not one the executor follows step by step. */
export const MAX_PLAN_STEPS = 30;
/** A step's longest text (PlanEntry `content`). */
const STEP_CHARS = 2_000;
/** The executor's note at most: it is sent with every executor model call of the turn. */
const MAX_NOTE_CHARS = 6_000;

/** A list item: `1.`, `1)`, `-`, `*` or `•`, then the step. */
const ITEM = /^\s*(?:\d{1,3}[.)]|[-*•])\s+(.*\S)\s*$/;

/** The steps of the planner's answer, each a pending entry with a stable id. */
export function planEntries(text: string): PlanEntry[] {
  const lines = text.split('\n');
  const items = lines.flatMap((line) => {
    const match = ITEM.exec(line);
    return match?.[1] === undefined ? [] : [match[1]];
  });
  const steps = items.length > 0 ? items : text.trim().length > 0 ? [text.trim()] : [];
  return steps.slice(0, MAX_PLAN_STEPS).map((step, index) => ({
    id: `plan-${index + 1}`,
    content: cutText(step, STEP_CHARS),
    status: 'pending',
  }));
}

/** The plan as one system note for the executor. */
export function planNote(entries: readonly PlanEntry[]): string {
  const steps = entries.map((entry, index) => `${index + 1}. ${entry.content}`).join('\n');
  return cutText(`${PLAN_NOTE_HEADER}\n${steps}`, MAX_NOTE_CHARS);
}
