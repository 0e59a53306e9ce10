/** Every daemon scenario, in report order. */
import type { Scenario } from '../scenario.js';
import type { DaemonContext } from './context.js';
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
  lifecycleOrder,
  shutdownParams,
  shutdownStdioTurns,
  socketToken,
  versionNegotiation,
} from './lifecycle.js';
import { deleteDuringTurn, sessions } from './sessions.js';
import {
  approvalAllow,
  approvalCancel,
  approvalDeny,
  approvalGrant,
  approvalInvalid,
  approvalResend,
  approvalTwoControllers,
  clientToolRoundTrip,
} from './approvals.js';
import { budget, cancel, turn, twoClients } from './turns.js';

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
  sessions,
  deleteDuringTurn,
  slowConsumer,
  turn,
  cancel,
  budget,
  twoClients,
  approvalAllow,
  approvalDeny,
  approvalGrant,
  approvalCancel,
  approvalTwoControllers,
  approvalResend,
  approvalInvalid,
  clientToolRoundTrip,
];
