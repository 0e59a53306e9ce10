/** Every client scenario, in report order. */
import type { Scenario } from '../scenario.js';
import { approvalRace, approvalResend, approvalTimeout } from './approvalLifecycle.js';
import { toolCancel, undeclaredTool } from './clientTools.js';
import type { ClientContext } from './context.js';
import { driverMessage } from './driverMode.js';
import { frameHeaders, frameLarge, frameSplit, unknownResponse } from './frameReader.js';
import { respectsMax } from './messageSize.js';
import { daemonStderr } from './daemonStderr.js';
import { invalidResponse } from './invalidResponse.js';
import { openEnums } from './openEnums.js';
import {
  questionAnswer,
  questionCancel,
  questionDefaultAnswer,
  questionResend,
  questionResolved,
} from './questions.js';
import {
  approval,
  approvalAlways,
  approvalCancel,
  budget,
  initialize,
  malformed,
  seqGap,
  tree,
  treeProgress,
  unknownMessages,
  unknownOutcome,
  versionUnsupported,
} from './scenarios.js';
import {
  cancelledTurn,
  gapNewTurn,
  planSeq,
  planReplace,
  seqPerSession,
  sessionUpdate,
  snapshotReplay,
  snapshotVersion,
  stateAfterApplied,
  treeApplyInOrder,
  unknownErrorCode,
  unknownFields,
  unknownParent,
  unknownSession,
} from './sessionEvents.js';

export const CLIENT_SCENARIOS: readonly Scenario<ClientContext>[] = [
  initialize,
  driverMessage,
  versionUnsupported,
  unknownMessages,
  unknownFields,
  malformed,
  frameSplit,
  frameHeaders,
  frameLarge,
  unknownResponse,
  invalidResponse,
  openEnums,
  approval,
  approvalAlways,
  approvalCancel,
  approvalResend,
  approvalTimeout,
  approvalRace,
  unknownOutcome,
  questionAnswer,
  questionDefaultAnswer,
  questionResend,
  questionResolved,
  questionCancel,
  undeclaredTool,
  toolCancel,
  tree,
  treeProgress,
  treeApplyInOrder,
  unknownParent,
  seqGap,
  gapNewTurn,
  snapshotReplay,
  snapshotVersion,
  unknownErrorCode,
  seqPerSession,
  planSeq,
  planReplace,
  sessionUpdate,
  cancelledTurn,
  budget,
  unknownSession,
  stateAfterApplied,
  respectsMax,
  daemonStderr,
];
