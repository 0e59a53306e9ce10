/** What the permission gate needs from a session: its grants and its approval broker. */
import type { ApprovalBroker } from './approvalBroker.js';
import type { SessionGrants } from './grants.js';

export interface SessionApprovals {
  grants: SessionGrants;
  broker: ApprovalBroker;
}
