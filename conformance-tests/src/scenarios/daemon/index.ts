/** Every daemon scenario, in report order. */
import type { Scenario } from '../scenario.js';
import type { DaemonContext } from './context.js';
import { runtimeControls } from './runtimeControls.js';
import { parallelSubtasks } from './parallelSubtasks.js';
import { planner } from './planner.js';
import { batch, cancelInFlight, jsonRpcErrors, notifications, oversize } from './jsonrpc.js';
import { duplicateId, maxDepth, preauthBounds, slowConsumer } from './bounds.js';
import {
  emptyArrays,
  initializationOptions,
  initializeTrace,
  nullParams,
  quietBeforeInitialized,
} from './interop.js';
import {
  exitWithoutShutdown,
  initializeRetry,
  lifecycleOrder,
  shutdownParams,
  shutdownStdioTurns,
  socketToken,
  stdioToken,
  versionNegotiation,
} from './lifecycle.js';
import { deleteDuringTurn, sessions } from './sessions.js';
import { reloadFidelity } from './reload.js';
import { loadHistory } from './loadHistory.js';
import { badHeader, framing, socketMode, stdinEof } from './framing.js';
import { exitAnyState, exitSocket, shutdownDetach } from './exit.js';
import { trace } from './trace.js';
import {
  afterShutdownNotifications,
  initializedOnce,
  logTraceNoSecrets,
  noRequestsAfterShutdown,
} from './afterShutdown.js';
import {
  errorRules,
  invalidEnums,
  listLoadNoAttach,
  listPages,
  modeUpdate,
  notAttached,
  reattach,
  setModel,
} from './sessionRules.js';
import { attachMidTurn, detachTurn, disconnectTurn, replay } from './attach.js';
import { detachApprovals, disconnectPending } from './pendingRequests.js';
import { replayRetention } from './replayRetention.js';
import {
  clientToolBuiltinName,
  clientToolDisconnect,
  clientToolSender,
} from './clientToolOwners.js';
import { alwaysAsk, protectedPathWrite, subtaskGate } from './gateExceptions.js';
import { extensibleRequests } from './extensible.js';
import {
  approvalAllow,
  approvalCancel,
  approvalDeny,
  approvalGrant,
  approvalAllowAlways,
  approvalInvalid,
  approvalNoController,
  approvalResend,
  approvalTimeout,
  approvalTwoControllers,
  approvalModes,
  approvalModeSwitch,
  clientToolCancel,
  clientToolBatch,
  clientToolErrors,
  clientToolRoundTrip,
  grantScope,
} from './approvals.js';
import {
  questionAnswered,
  questionCancel,
  questionInvalid,
  questionNoController,
  questionResend,
  questionTimeout,
  questionTwoControllers,
} from './questions.js';
import {
  checkpointBusy,
  checkpointConfined,
  checkpointConflict,
  checkpointRestore,
} from './checkpoints.js';
import { scriptedProvider } from './scriptedProvider.js';
import { structuredSubtasks, subtaskTools, subtasks } from './subtasks.js';
import { budgetRules } from './budgetRules.js';
import { sendBudgets } from './sendBudgets.js';
import { sendErrors } from './sendErrors.js';
import { maxTokens } from './maxTokens.js';
import { contextUse } from './contextUse.js';
import { compaction } from './compaction.js';
import { loadPlan } from './loadPlan.js';
import { commands } from './commands.js';
import { agents } from './agents.js';
import { longPreview, textJoined } from './textJoin.js';
import { scriptEnd, scriptSet } from './scriptRules.js';
import { chunkRules, partialKept } from './turnRules.js';
import { invalidResponse } from './invalidResponse.js';
import { parallelClientTools, toolServers, toolsCallable, toolsList } from './tools.js';
import { budget, cancel, turn, twoClients } from './turns.js';
import {
  commandEnv,
  commandSandbox,
  modelCredentials,
  protectedResolved,
  secretsRedacted,
  storedTree,
  workspaceConfined,
} from './security.js';

export const DAEMON_SCENARIOS: readonly Scenario<DaemonContext>[] = [
  jsonRpcErrors,
  batch,
  notifications,
  cancelInFlight,
  oversize,
  duplicateId,
  maxDepth,
  nullParams,
  emptyArrays,
  lifecycleOrder,
  exitWithoutShutdown,
  shutdownParams,
  shutdownStdioTurns,
  initializationOptions,
  quietBeforeInitialized,
  initializeTrace,
  versionNegotiation,
  socketToken,
  preauthBounds,
  framing,
  badHeader,
  stdinEof,
  socketMode,
  stdioToken,
  initializeRetry,
  exitAnyState,
  exitSocket,
  shutdownDetach,
  trace,
  initializedOnce,
  afterShutdownNotifications,
  noRequestsAfterShutdown,
  logTraceNoSecrets,
  sessions,
  deleteDuringTurn,
  notAttached,
  reattach,
  listPages,
  listLoadNoAttach,
  modeUpdate,
  invalidEnums,
  errorRules,
  setModel,
  reloadFidelity,
  loadHistory,
  replay,
  attachMidTurn,
  detachTurn,
  disconnectTurn,
  detachApprovals,
  disconnectPending,
  replayRetention,
  extensibleRequests,
  slowConsumer,
  turn,
  cancel,
  budget,
  twoClients,
  approvalAllow,
  approvalDeny,
  approvalGrant,
  approvalAllowAlways,
  approvalCancel,
  approvalTwoControllers,
  approvalResend,
  approvalInvalid,
  clientToolRoundTrip,
  approvalNoController,
  approvalTimeout,
  clientToolCancel,
  approvalModes,
  approvalModeSwitch,
  clientToolErrors,
  clientToolBatch,
  grantScope,
  clientToolSender,
  clientToolDisconnect,
  clientToolBuiltinName,
  subtaskGate,
  alwaysAsk,
  protectedPathWrite,
  questionAnswered,
  questionInvalid,
  questionCancel,
  questionTwoControllers,
  questionResend,
  questionNoController,
  questionTimeout,
  checkpointRestore,
  checkpointConflict,
  checkpointBusy,
  checkpointConfined,
  toolsList,
  toolsCallable,
  scriptedProvider,
  subtasks,
  structuredSubtasks,
  subtaskTools,
  budgetRules,
  sendBudgets,
  sendErrors,
  maxTokens,
  contextUse,
  compaction,
  loadPlan,
  commands,
  agents,
  runtimeControls,
  parallelSubtasks,
  planner,
  textJoined,
  longPreview,
  scriptEnd,
  scriptSet,
  partialKept,
  chunkRules,
  parallelClientTools,
  toolServers,
  invalidResponse,
  storedTree,
  secretsRedacted,
  modelCredentials,
  workspaceConfined,
  protectedResolved,
  commandSandbox,
  commandEnv,
];
