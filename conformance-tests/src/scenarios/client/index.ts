/** Every client scenario, in report order. */
import type { Scenario } from '../scenario.js';
import type { ClientContext } from './context.js';
import {
  approval,
  approvalCancel,
  budget,
  initialize,
  malformed,
  seqGap,
  tree,
  unknownMessages,
  unknownOutcome,
  versionUnsupported,
} from './scenarios.js';

export const CLIENT_SCENARIOS: readonly Scenario<ClientContext>[] = [
  initialize,
  versionUnsupported,
  unknownMessages,
  malformed,
  approval,
  approvalCancel,
  unknownOutcome,
  tree,
  seqGap,
  budget,
];
