/** Budgets: one TurnBudget per turn; exceeding any limit ends the turn. */
import { z } from 'zod';
import { NodeId, NonNegativeInt, TurnId, message, sessionEvent } from './base.js';
import { notification } from './descriptor.js';

export const BudgetKind = z.enum([
  'depth',
  'iterations',
  'parallel',
  'subtasks',
  'llm_calls',
  'tool_calls',
  'wall_clock_ms',
  'tool_result_bytes',
  'history_tokens',
]);
export type BudgetKind = z.infer<typeof BudgetKind>;

/** A limit per budget kind, e.g. `{"llm_calls": 5}`. */
export const BudgetLimitsByKind = z.partialRecord(BudgetKind, z.number().int().positive());
export type BudgetLimitsByKind = z.infer<typeof BudgetLimitsByKind>;

export const BudgetExceededParams = message({
  ...sessionEvent,
  turnId: TurnId,
  nodeId: NodeId.optional().describe('The node where the limit was hit'),
  kind: BudgetKind,
  limit: NonNegativeInt,
  observed: NonNegativeInt,
});
export type BudgetExceededParams = z.infer<typeof BudgetExceededParams>;

export const BudgetExceeded = notification({
  method: 'budget/exceeded',
  direction: 'daemonToClient',
  params: BudgetExceededParams,
  summary: 'Which budget was exceeded, its limit and what was observed.',
  specRef: 'budgets.md#budget-exceeded',
});
