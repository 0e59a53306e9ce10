/**
 * The limits of one TurnBudget. Defaults come from the design documents;
 * the config file may override any of them (`budgets` section).
 */
import type { BudgetKind, BudgetLimitsByKind } from '@arbor/protocol';
import { z } from 'zod';

const positiveInt = z.number().int().positive();

export const BudgetLimits = z.object({
  maxDepth: positiveInt.max(8).default(3),
  maxIterationsPerLevel: positiveInt.default(20),
  maxParallel: positiveInt.max(64).default(8),
  maxSubtasks: positiveInt.default(32),
  maxLlmCalls: positiveInt.default(60),
  maxToolCalls: positiveInt.default(200),
  maxWallClockMs: positiveInt.default(180_000),
  maxToolResultBytes: positiveInt.default(50_000),
  maxHistoryTokens: positiveInt.default(128_000),
});
export type BudgetLimits = z.infer<typeof BudgetLimits>;

/** What the config file may say: any subset, unknown keys rejected. */
export const BudgetOverrides = BudgetLimits.partial().strict();
export type BudgetOverrides = z.infer<typeof BudgetOverrides>;

export const DEFAULT_BUDGET_LIMITS: BudgetLimits = BudgetLimits.parse({});

/** Which limit each protocol budget kind names (budgets.md#budget-kinds). */
const LIMIT_OF_KIND: Record<BudgetKind, keyof BudgetLimits> = {
  depth: 'maxDepth',
  iterations: 'maxIterationsPerLevel',
  parallel: 'maxParallel',
  subtasks: 'maxSubtasks',
  llm_calls: 'maxLlmCalls',
  tool_calls: 'maxToolCalls',
  wall_clock_ms: 'maxWallClockMs',
  tool_result_bytes: 'maxToolResultBytes',
  history_tokens: 'maxHistoryTokens',
};

/** The limits as the protocol names them (capabilities.budgets.limits). */
export function limitsByKind(limits: BudgetLimits): BudgetLimitsByKind {
  return Object.fromEntries(
    (Object.keys(LIMIT_OF_KIND) as BudgetKind[]).map((kind) => [kind, limits[LIMIT_OF_KIND[kind]]]),
  );
}

/**
 * `replace`: setScript budgets stand instead of the daemon's (tests reach any
 * limit). `lower`: chat/send budgets only ever make a limit smaller.
 */
export function withBudgets(
  limits: BudgetLimits,
  budgets: BudgetLimitsByKind | undefined,
  how: 'replace' | 'lower',
): BudgetLimits {
  if (!budgets) return limits;
  const next = { ...limits };
  for (const [kind, limit] of Object.entries(budgets) as [BudgetKind, number | undefined][]) {
    if (limit === undefined) continue;
    const key = LIMIT_OF_KIND[kind];
    next[key] = how === 'replace' ? limit : Math.min(next[key], limit);
  }
  return next;
}
