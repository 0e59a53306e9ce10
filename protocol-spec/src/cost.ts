/** Cost: tokens and money per provider/model for one turn. */
import { z } from 'zod';
import { Cost, NonNegativeInt, TurnId, Usage, message, sessionEvent } from './base.js';
import { notification } from './descriptor.js';

export const ModelCost = message({
  provider: z.string().min(1),
  model: z.string().min(1),
  calls: NonNegativeInt,
  usage: Usage,
  cost: Cost.describe('USD; null when the price of this model is unknown'),
});
export type ModelCost = z.infer<typeof ModelCost>;

export const ContextUse = message({
  tokens: NonNegativeInt.describe(
    "The conversation's size after the turn: input plus output tokens of the root loop's last model call",
  ),
  window: z.number().int().positive().describe("The model's context window, in tokens"),
}).describe('How full the model’s context window is (protocol 1.1)');
export type ContextUse = z.infer<typeof ContextUse>;

export const CostSummaryParams = message({
  ...sessionEvent,
  turnId: TurnId,
  usage: Usage,
  cost: Cost.describe('USD for the turn; null if any model’s price is unknown'),
  currency: z.literal('USD'),
  byModel: z.array(ModelCost),
  context: ContextUse.optional().describe(
    'How full the context window of the session’s model is after the turn (protocol 1.1); absent when the turn made no model call',
  ),
});
export type CostSummaryParams = z.infer<typeof CostSummaryParams>;

export const CostSummary = notification({
  method: 'cost/summary',
  direction: 'daemonToClient',
  params: CostSummaryParams,
  summary: 'Tokens and cost per provider/model, once per turn, before it ends.',
  specRef: 'cost.md#cost-summary',
});
