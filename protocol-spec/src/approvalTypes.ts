/** Approval vocabulary, shared by the tree and the approval messages. */
import { z } from 'zod';

export const ApprovalDecision = z
  .enum(['allow', 'allowForSession', 'allowAlways', 'deny'])
  .describe(
    "The user's answer to an approval request; allowAlways (protocol 1.1): allow, and save the request's suggestedRule for the workspace",
  );
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

export const ApprovalOutcome = z
  .enum(['approved', 'rejected', 'timed_out', 'cancelled', 'not_required'])
  .describe('How a permission check ended');
export type ApprovalOutcome = z.infer<typeof ApprovalOutcome>;
