/** The registry of every method, in spec order. */
import { BudgetExceeded } from './budget.js';
import { ChatCancel, ChatChunk, ChatSend } from './chat.js';
import { ToolExecute } from './clientTools.js';
import { CostSummary } from './cost.js';
import type { MethodDescriptor } from './descriptor.js';
import { Exit, Initialize, Initialized, Shutdown } from './lifecycle.js';
import { CancelRequest, LogTrace, SetTrace } from './lspBase.js';
import { PlanUpdate } from './plan.js';
import { ApprovalRequest, ApprovalResolved } from './approval.js';
import { QuestionRequest, QuestionResolved } from './question.js';
import { CheckpointDiff, CheckpointRestore } from './checkpoint.js';
import {
  SessionAttach,
  SessionDelete,
  SessionDeleted,
  SessionDetach,
  SessionDetached,
  SessionList,
  SessionLoad,
  SessionNew,
  SessionSetModel,
  SessionSetPermissionMode,
  SessionState,
  SessionUpdate,
} from './session.js';
import { ConformanceState, SetScript } from './testing.js';
import { ToolsList } from './tools.js';
import { CommandsChanged, CommandsList } from './commands.js';
import { AgentsList } from './agents.js';
import { TreeUpdate } from './tree.js';

export const Methods = {
  Initialize,
  Initialized,
  Shutdown,
  Exit,
  CancelRequest,
  SetTrace,
  LogTrace,
  SessionNew,
  SessionList,
  SessionLoad,
  SessionDelete,
  SessionDeleted,
  SessionAttach,
  SessionDetach,
  SessionDetached,
  SessionSetPermissionMode,
  SessionSetModel,
  SessionUpdate,
  SessionState,
  ChatSend,
  ChatCancel,
  ChatChunk,
  TreeUpdate,
  ApprovalRequest,
  ApprovalResolved,
  QuestionRequest,
  QuestionResolved,
  ToolExecute,
  ToolsList,
  CommandsList,
  CommandsChanged,
  AgentsList,
  CheckpointRestore,
  CheckpointDiff,
  BudgetExceeded,
  PlanUpdate,
  CostSummary,
  SetScript,
  ConformanceState,
} as const;

export const ALL_METHODS: readonly MethodDescriptor[] = Object.values(Methods);

const byName = new Map<string, MethodDescriptor>(ALL_METHODS.map((d) => [d.method, d]));

export function findMethod(method: string): MethodDescriptor | undefined {
  return byName.get(method);
}
