/**
 * The context engine's settings (config `context`). Budget awareness is the
 * runtime contract's switch: off by default; `per-message` tells the model
 * after each tool result how much context and turn budget is left;
 * `limit:<n>` keeps every request under n % of the model's window.
 */
import { z } from 'zod';

export const BudgetAwareness = z.union([
  z.literal('per-message'),
  z
    .string()
    .regex(/^limit:(100|[1-9]?[0-9])$/, 'limit:<0-100>')
    .transform((value) => ({ limitPercent: Number(value.slice('limit:'.length)) })),
]);

const positiveInt = z.number().int().positive();

export const ContextSettings = z
  .object({
    budgetAwareness: BudgetAwareness.optional().describe(
      'per-message: an advisory of remaining context and turn budget after each tool result; limit:<0-100>: keep each request under that % of the context window (default: off)',
    ),
    offloadTokens: positiveInt
      .default(8_000)
      .describe(
        'A tool result larger than this (tokens) is kept as an artifact; the model gets a preview, its id and read_artifact',
      ),
    reducedTokens: positiveInt
      .default(200)
      .describe(
        'Older tool results larger than this (tokens) are replaced by a reduced version when the request must shrink',
      ),
  })
  .strict();
export type ContextSettings = z.output<typeof ContextSettings>;

export const DEFAULT_CONTEXT_SETTINGS: ContextSettings = ContextSettings.parse({});
