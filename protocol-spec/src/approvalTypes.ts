/** Approval vocabulary, shared by the tree and the approval messages. */
import { z } from 'zod';

export const ApprovalDecision = z
  .enum(['allow', 'allowForSession', 'deny'])
  .describe("The user's answer to an approval request");
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

export const ApprovalOutcome = z
  .enum(['approved', 'rejected', 'timed_out', 'cancelled', 'not_required'])
  .describe('How a permission check ended');
export type ApprovalOutcome = z.infer<typeof ApprovalOutcome>;
