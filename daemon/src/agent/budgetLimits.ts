/**
 * The limits of one TurnBudget. Defaults come from the design documents;
 * the config file may override any of them (`budgets` section).
 */
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
