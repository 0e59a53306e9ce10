/** Every daemon scenario, in report order. */
import type { Scenario } from '../scenario.js';
import type { DaemonContext } from './context.js';
import { batch, cancelInFlight, jsonRpcErrors, notifications, oversize } from './jsonrpc.js';
import {
  exitWithoutShutdown,
  lifecycleOrder,
  socketToken,
  versionNegotiation,
} from './lifecycle.js';
import { sessions } from './sessions.js';
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
  lifecycleOrder,
  exitWithoutShutdown,
  versionNegotiation,
  socketToken,
  sessions,
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
