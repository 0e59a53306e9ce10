/**
 * ApprovalQueue: the approvals of one session that have not ended yet
 * (a PromptQueue; see there for the rules). An approval ends with
 * `tool/approvalResolved` (spec approvals-client-race).
 */
import type { ApprovalDecision, ApprovalOutcome, ApprovalRequestParams } from '../approval.js';
import {
  PromptQueue,
  promptKey,
  type PendingPrompt,
  type PromptEnd,
  type PromptKey,
  type PromptSettlement,
} from './promptQueue.js';

export type ApprovalKey = PromptKey;
export const approvalKey = promptKey;

/** How an approval was resolved (`tool/approvalResolved`). */
export interface ApprovalResolution {
  outcome: ApprovalOutcome;
  decision?: ApprovalDecision;
  decidedBy?: string;
  /** With allowAlways: the rule the daemon saved. */
  rule?: string;
}

export type PendingApproval = PendingPrompt<ApprovalRequestParams, ApprovalDecision>;
export type ApprovalEnd = PromptEnd<ApprovalResolution>;
export type ApprovalSettlement = PromptSettlement<ApprovalDecision, ApprovalResolution>;

export class ApprovalQueue extends PromptQueue<
  ApprovalRequestParams,
  ApprovalDecision,
  ApprovalResolution
> {
  /**
   * Answers an approval. `allowAlways` where the daemon offered no rule to
   * save becomes `allowForSession` (approvals.md#rules-allow-always-unoffered).
   */
  override decide(key: ApprovalKey, decision: ApprovalDecision): boolean {
    const offered = this.get(key)?.request.suggestedRule !== undefined;
    return super.decide(key, decision === 'allowAlways' && !offered ? 'allowForSession' : decision);
  }

  /** `tool/approvalResolved`: the approval ended, wherever it was decided. */
  resolved(params: {
    turnId: string;
    toolCallId: string;
    outcome: ApprovalOutcome;
    decision?: ApprovalDecision | undefined;
    decidedBy?: string | undefined;
    rule?: string | undefined;
  }): boolean {
    const resolution: ApprovalResolution = { outcome: params.outcome };
    if (params.decision !== undefined) resolution.decision = params.decision;
    if (params.decidedBy !== undefined) resolution.decidedBy = params.decidedBy;
    if (params.rule !== undefined) resolution.rule = params.rule;
    return this.end(params, resolution);
  }
}
