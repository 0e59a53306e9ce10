/**
 * Extension methods for testing (`_arbor/...`). Optional: a daemon advertises
 * `capabilities.testing`, a client `capabilities.conformance`. They let the
 * conformance suite drive deterministic turns and observe a client's view.
 */
import { z } from 'zod';
import {
  Empty,
  NonNegativeInt,
  PermissionMode,
  SessionId,
  ToolCallId,
  Usage,
  message,
} from './base.js';
import { PlanEntry } from './plan.js';
import { BudgetLimitsByKind } from './budget.js';
import { request } from './descriptor.js';
import { TurnState } from './session.js';
import { ExecutionTreeSnapshot } from './tree.js';

export const ScriptedToolCall = message({
  id: z.string().min(1).max(200).optional().describe('Defaults to a generated id'),
  name: z.string().min(1),
  arguments: z.unknown().default({}),
});

// The error reply comes first: the model reply's fields are all optional, so
// it would otherwise match `{error}` too and strip the error away.
export const ScriptedReply = z.union([
  message({
    error: z.string().min(1).describe('The provider fails with this message'),
    delayMs: NonNegativeInt.max(600_000).optional(),
  }),
  message({
    text: z.string().optional(),
    toolCalls: z.array(ScriptedToolCall).optional(),
    usage: Usage.optional().describe('Reported as this call’s usage (cache counters since 1.1)'),
    stop: z
      .literal('max_tokens')
      .optional()
      .describe('1.1: the model is cut off at its output-token limit after this reply'),
    delayMs: NonNegativeInt.max(600_000).optional().describe('Wait before replying'),
  }),
]);
export type ScriptedReply = z.infer<typeof ScriptedReply>;

/**
 * The scripted provider's script: each agent loop (root or subtask) is keyed
 * by its first user message (exact match, else the longest key contained in
 * it, else `*`) and consumes its own list of replies in order.
 */
export const Script = message({
  version: z.literal(1),
  conversations: z.record(z.string(), z.array(ScriptedReply)),
});
export type Script = z.infer<typeof Script>;
/** A script as written in a file, before defaults are applied. */
export type ScriptInput = z.input<typeof Script>;

export const SetScriptParams = message({
  sessionId: SessionId.optional().describe('Absent: the script for sessions created afterwards'),
  script: Script,
  budgets: BudgetLimitsByKind.optional().describe(
    'Lower budget limits for the turns this script drives, so tests can reach them',
  ),
});
export const SetScript = request({
  method: '_arbor/testing/setScript',
  direction: 'clientToDaemon',
  params: SetScriptParams,
  result: Empty,
  capability: 'daemon.testing.scriptedProvider',
  summary: 'Makes a session (or new sessions) use the scripted provider with this script.',
  specRef: 'appendix-scripted-provider.md#set-script',
});

export const ConformanceStateParams = message({ sessionId: SessionId });
export const ConformanceStateResult = message({
  sessionId: SessionId,
  lastSeq: z.number().int().nonnegative().describe('Highest seq the client has applied'),
  state: TurnState,
  permissionMode: PermissionMode.optional(),
  tree: ExecutionTreeSnapshot.describe('The client’s current view of the running or last turn'),
  pendingApprovals: z.array(ToolCallId),
  pendingQuestions: z
    .array(ToolCallId)
    .optional()
    .describe(
      'toolCallIds of the questions the client shows as pending (answered here or not, until tool/questionResolved); absent when it shows no questions (protocol 1.1)',
    ),
  text: z.string().describe('Assistant text of the current turn as the client shows it'),
  plan: z
    .array(PlanEntry)
    .max(200)
    .optional()
    .describe(
      'The session’s plan as the client shows it, in its order; absent when the client shows no plans (protocol 1.1)',
    ),
});
export const ConformanceState = request({
  method: '_arbor/conformance/state',
  direction: 'daemonToClient',
  params: ConformanceStateParams,
  result: ConformanceStateResult,
  capability: 'client.conformance',
  summary: 'Asks a client for its view of a session, so the suite can check its reducer.',
  specRef: 'conformance.md#client-state',
});
