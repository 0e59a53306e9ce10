/** Live approvals: the daemon asks controller clients, the first valid answer wins. */
import { z } from 'zod';
import {
  NodeId,
  SessionId,
  ToolCallId,
  ToolCategory,
  TurnId,
  message,
  sessionEvent,
} from './base.js';
import { ApprovalDecision, ApprovalOutcome } from './approvalTypes.js';
import { notification, request } from './descriptor.js';
import { PermissionRuleText } from './permissionRules.js';
import { InjectedArgs } from './tree.js';

export { ApprovalDecision, ApprovalOutcome } from './approvalTypes.js';

export const ApprovalRequestParams = message({
  sessionId: SessionId,
  turnId: TurnId,
  nodeId: NodeId,
  toolCallId: ToolCallId,
  name: z.string().min(1),
  args: z.unknown().describe('The tool arguments as the model sent them (validated)'),
  category: ToolCategory,
  reason: z.string().describe('Why approval is needed, for the user'),
  suggestedRule: PermissionRuleText.optional().describe(
    'The narrowest allow rule that would cover this call from now on in this workspace; present when the daemon can save it, i.e. when `allowAlways` is a valid answer (protocol 1.1)',
  ),
  injectedArgs: InjectedArgs.optional().describe(
    'What the model gave with the call besides its arguments, as the agent profile asked (e.g. a reason), for the user to weigh; the tool never gets them (protocol 1.1)',
  ),
});
export type ApprovalRequestParams = z.infer<typeof ApprovalRequestParams>;

export const ApprovalRequestResult = message({ decision: ApprovalDecision });
export type ApprovalRequestResult = z.infer<typeof ApprovalRequestResult>;

export const ApprovalRequest = request({
  method: 'tool/approvalRequest',
  direction: 'daemonToClient',
  params: ApprovalRequestParams,
  result: ApprovalRequestResult,
  capability: 'client.approvals',
  summary:
    'Asks a controller client to allow, allow for the session, allow always (a saved rule), or deny a tool call.',
  specRef: 'approvals.md#approval-request',
});

export const ApprovalResolvedParams = message({
  ...sessionEvent,
  turnId: TurnId,
  toolCallId: ToolCallId,
  outcome: ApprovalOutcome,
  decision: ApprovalDecision.optional().describe(
    'The decision that applied, when a client decided',
  ),
  decidedBy: z.string().optional().describe('clientId of the deciding client'),
  rule: PermissionRuleText.optional().describe(
    'With decision allowAlways: the allow rule the daemon saved for the workspace (protocol 1.1)',
  ),
});
export type ApprovalResolvedParams = z.infer<typeof ApprovalResolvedParams>;

export const ApprovalResolved = notification({
  method: 'tool/approvalResolved',
  direction: 'daemonToClient',
  params: ApprovalResolvedParams,
  summary: 'Tells every attached client how an approval ended, so other cards close.',
  specRef: 'approvals.md#approval-resolved',
});
