/**
 * The single hook where the permission gate wraps every tool call (at every
 * depth). The permissions module supplies the real gate
 * (permissions/permissionGate.ts); without one every call is allowed.
 * A refusal's `reason` is the whole result the model sees.
 */
import type { ApprovalOutcome, DecidingRule, InjectedArgs } from '@arbor/protocol';
import type { Tool } from '../tools/tool.js';
import type { TurnRequest } from './turnRunner.js';

export interface GateRequest {
  turn: TurnRequest;
  tool: Tool;
  /** Validated arguments. */
  args: unknown;
  /** What the model gave besides the arguments, as the agent profile asked: shown in the approval request. */
  injectedArgs?: InjectedArgs;
  nodeId: string;
  toolCallId: string;
  depth: number;
  signal: AbortSignal;
  /** Call before asking the user: the tree node shows `awaiting_approval`. */
  awaitingApproval(): void;
  /** Records an outcome on the node without changing its status (e.g. `cancelled` as the turn stops). */
  setApproval(approval: ApprovalOutcome): void;
  /** Records on the node the permission rule that decided the call. */
  setRule(rule: DecidingRule): void;
  /** What the call's PreToolUse hooks said (hooks/): one more input of the gate, never a way around it. */
  hook?: GateHookVerdict;
}

export interface GateHookVerdict {
  decision: 'allow' | 'ask' | 'deny';
  /** Shown to the model for deny, in the approval request for ask. */
  reason?: string;
}

export type GateDecision =
  | { allow: true; approval?: ApprovalOutcome }
  | { allow: false; status: 'denied' | 'blocked'; reason: string; approval?: ApprovalOutcome };

export type ToolGate = (request: GateRequest) => Promise<GateDecision>;

export const ALLOW_ALL_TOOLS: ToolGate = () => Promise.resolve({ allow: true });
