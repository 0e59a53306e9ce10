/** The plan / todo list the agent keeps (todo_write) and each entry's status. */
import { z } from 'zod';
import { TurnId, message, sessionEvent } from './base.js';
import { notification } from './descriptor.js';

export const PlanEntryStatus = z.enum(['pending', 'in_progress', 'completed', 'cancelled']);
export const PlanEntry = message({
  id: z.string().min(1).max(200),
  content: z.string().min(1).max(2000),
  status: PlanEntryStatus,
});
export type PlanEntry = z.infer<typeof PlanEntry>;

export const PlanUpdateParams = message({
  ...sessionEvent,
  turnId: TurnId,
  entries: z.array(PlanEntry).max(200).describe('The whole list; replaces the previous one'),
});
export const PlanUpdate = notification({
  method: 'plan/update',
  direction: 'daemonToClient',
  params: PlanUpdateParams,
  summary: 'The whole plan / todo list with each entry’s status.',
  specRef: 'plan.md#plan-update',
});
