/** Client: the suite plays the daemon. */
import { c, type CheckDef } from './define.js';

export const CLIENT_CHECKS: readonly CheckDef[] = [
  // Client: the suite plays the daemon.
  c(
    'client.lifecycle.initialize-first',
    'MUST',
    'lifecycle.md#lifecycle-first-request',
    'the first message the client sends is initialize',
  ),
  c(
    'client.lifecycle.protocol-version',
    'MUST',
    'versioning.md#negotiation',
    'initialize carries protocolVersion 1 (the newest the client speaks)',
  ),
  c(
    'client.lifecycle.initialized',
    'MUST',
    'lifecycle.md#lifecycle-send-initialized',
    'the client sends initialized after the initialize result',
  ),
  c(
    'client.version.unsupported-stops',
    'MUST',
    'versioning.md#versioning-downgrade',
    'given a protocolVersion it does not speak, the client sends nothing but shutdown/exit and leaves',
  ),
  c(
    'client.jsonrpc.unknown-request',
    'MUST',
    'transport.md#transport-unknown-method',
    'an unknown request (also `_`-prefixed) gets -32601',
  ),
  c(
    'client.jsonrpc.unknown-notification-ignored',
    'MUST',
    'versioning.md#versioning-unknown-notifications-ignored',
    'unknown and `_` notifications are ignored and the client keeps working',
  ),
  c(
    'client.transport.robust',
    'MUST',
    'transport.md#transport-client-robust',
    'a malformed frame from the daemon does not crash the client',
  ),
  c(
    'client.approvals.valid-decision',
    'CAPABILITY',
    'conformance.md#conformance-driver-approvals',
    'tool/approvalRequest is answered with the decision ARBOR_CONFORMANCE_APPROVAL names',
    'client.approvals',
  ),
  c(
    'client.approvals.cancelled',
    'CAPABILITY',
    'approvals.md#approvals-client-answers-cancelled',
    'a cancelled approval request is answered -32800',
    'client.approvals',
  ),
  c(
    'client.approvals.unknown-outcome',
    'CAPABILITY',
    'approvals.md#approvals-client-unknown-outcome',
    'an unknown approval outcome is never treated as approval',
    'client.conformance',
  ),
  c(
    'client.tree.rebuild',
    'CAPABILITY',
    'tree.md#tree-upsert-merge',
    'the client rebuilds the tree from upserts, late fields and deep nesting',
    'client.conformance',
  ),
  c(
    'client.events.seq-gap-reattach',
    'MUST',
    'turns.md#turns-gap-reattach',
    'on a seq gap the client re-attaches with sinceSeq = last applied seq',
  ),
  c(
    'client.events.duplicate-ignored',
    'CAPABILITY',
    'turns.md#turns-duplicate-ignored',
    'an event whose seq is not above the last applied one is ignored',
    'client.conformance',
  ),
  c(
    'client.budget.not-turn-end',
    'CAPABILITY',
    'budgets.md#budgets-client-not-end',
    'budget/exceeded (and cost/summary) do not end the turn; only session/state idle does',
    'client.conformance',
  ),
  c(
    'client.driver.exit-on-close',
    'MUST',
    'conformance.md#conformance-driver-exit',
    'in driver mode the client exits with code 0 when the daemon closes the connection',
  ),
];
