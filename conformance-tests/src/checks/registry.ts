/**
 * Every check the suite can report: one id per normative spec sentence, the
 * anchor of that sentence, and a tier. MUST and CAPABILITY failures fail a
 * run; SHOULD failures fail it only with --strict; INFO never does.
 * CAPABILITY checks are evaluated only when the capability they need was
 * negotiated; otherwise they are SKIPPED, never PASSED.
 */

export type Tier = 'MUST' | 'CAPABILITY' | 'SHOULD' | 'INFO';
export type Role = 'daemon' | 'client';

export interface CheckDef {
  readonly id: string;
  readonly tier: Tier;
  /** Which implementation the check judges. */
  readonly role: Role;
  /** `file.md#anchor` in protocol-spec/spec. */
  readonly spec: string;
  /** The requirement, in a few words. */
  readonly title: string;
  /** For CAPABILITY checks: the capability that must be negotiated. */
  readonly capability?: string;
}

function check(def: CheckDef): CheckDef {
  return Object.freeze(def);
}

const d = (id: string, tier: Tier, spec: string, title: string, capability?: string): CheckDef =>
  check({ id, tier, role: 'daemon', spec, title, ...(capability ? { capability } : {}) });
const c = (id: string, tier: Tier, spec: string, title: string, capability?: string): CheckDef =>
  check({ id, tier, role: 'client', spec, title, ...(capability ? { capability } : {}) });

export const CHECKS: readonly CheckDef[] = [
  // Always on, whatever the scenario: the wire itself.
  d('daemon.wire.schema-valid', 'MUST', 'transport.md#transport-schema-valid', 'every message the daemon sends validates against the JSON Schema'),
  d('daemon.wire.capability-negotiated', 'MUST', 'versioning.md#versioning-capability-required', 'the daemon sends no method whose capability the client did not declare'),
  d('daemon.wire.response-per-request', 'MUST', 'transport.md#transport-response-per-request', 'every request gets exactly one response'),
  d('daemon.wire.stdout-frames-only', 'MUST', 'transport.md#transport-stdout-frames-only', 'in stdio mode the daemon writes nothing but frames to stdout'),
  c('client.wire.schema-valid', 'MUST', 'transport.md#transport-schema-valid', 'every message the client sends validates against the JSON Schema'),
  c('client.wire.capability-negotiated', 'MUST', 'versioning.md#versioning-capability-required', 'the client sends no method whose capability the daemon did not advertise'),
  c('client.wire.response-per-request', 'MUST', 'transport.md#transport-response-per-request', 'every request gets exactly one response'),

  // Daemon: framing and JSON-RPC errors.
  d('daemon.jsonrpc.parse-error', 'MUST', 'transport.md#transport-parse-error', 'malformed JSON gets -32700 with id null and the connection stays open'),
  d('daemon.jsonrpc.invalid-envelope', 'MUST', 'transport.md#transport-invalid-envelope', 'a valid JSON but invalid JSON-RPC message gets -32600'),
  d('daemon.jsonrpc.invalid-envelope-id', 'MUST', 'transport.md#transport-invalid-envelope-id', 'the -32600 answer carries the usable id, else null'),
  d('daemon.jsonrpc.batch-rejected', 'MUST', 'transport.md#transport-batch-rejected', 'a batch gets one -32600 error with id null and no element is processed'),
  d('daemon.jsonrpc.params-invalid', 'MUST', 'transport.md#transport-params-invalid', 'invalid params of a known method get -32602'),
  d('daemon.jsonrpc.unknown-method', 'MUST', 'transport.md#transport-unknown-method', 'an unknown request (also `_`-prefixed) gets -32601'),
  d('daemon.jsonrpc.unknown-notification-ignored', 'MUST', 'versioning.md#versioning-unknown-notification', 'an unknown notification gets no response and changes nothing'),
  d('daemon.jsonrpc.cancel-unknown-ignored', 'MUST', 'lifecycle.md#lifecycle-cancel-unknown-ignored', '$/cancelRequest for an unknown id is ignored'),
  d('daemon.transport.max-size-advertised', 'MUST', 'transport.md#transport-max-size-advertised', 'the initialize result advertises capabilities.maxMessageBytes'),
  d('daemon.transport.oversize-error', 'CAPABILITY', 'transport.md#transport-oversize-error', 'a frame over maxMessageBytes gets -33003 with id null', 'daemon.maxMessageBytes'),
  d('daemon.transport.oversize-discard', 'CAPABILITY', 'transport.md#transport-oversize-discard', 'after an oversize frame the connection serves the next frame', 'daemon.maxMessageBytes'),
  d('daemon.transport.socket-token', 'MUST', 'transport.md#transport-socket-token', 'a socket connection without the right token is refused with -33000'),

  // Daemon: lifecycle.
  d('daemon.lifecycle.initialize-result', 'MUST', 'lifecycle.md#lifecycle-initialize-result', 'initialize is answered with protocolVersion, serverInfo, capabilities and clientId'),
  d('daemon.lifecycle.not-initialized', 'MUST', 'lifecycle.md#lifecycle-not-initialized', 'a request before initialize gets -32002'),
  d('daemon.lifecycle.initialize-once', 'MUST', 'lifecycle.md#lifecycle-initialize-once', 'a second initialize gets -33002'),
  d('daemon.lifecycle.after-shutdown', 'MUST', 'lifecycle.md#lifecycle-after-shutdown', 'after shutdown every request but exit gets an error'),
  d('daemon.lifecycle.exit-code', 'MUST', 'lifecycle.md#lifecycle-exit-code', 'stdio: exit after shutdown ends the process with code 0'),
  d('daemon.lifecycle.exit-without-shutdown', 'SHOULD', 'lifecycle.md#lifecycle-exit-without-shutdown', 'stdio: exit without shutdown ends the process with code 1'),

  // Daemon: version negotiation.
  d('daemon.version.supported', 'MUST', 'versioning.md#versioning-negotiation', 'a client speaking version 1 gets protocolVersion 1'),
  d('daemon.version.unsupported', 'MUST', 'versioning.md#versioning-unsupported', 'a version the daemon does not speak gets -33001 or a lower version it speaks'),
  d('daemon.version.absent-means-1', 'MUST', 'versioning.md#versioning-absent-version', 'initialize without protocolVersion is treated as version 1'),

  // Daemon: sessions and attach.
  d('daemon.sessions.new', 'MUST', 'sessions.md#sessions-new-idle', 'session/new answers an idle session with the requested root and mode'),
  d('daemon.sessions.invalid-workspace-root', 'MUST', 'sessions.md#sessions-invalid-workspace-root', 'a missing or relative workspace root gets -33009'),
  d('daemon.sessions.list', 'MUST', 'sessions.md#sessions-list-newest-first', 'session/list includes the new session'),
  d('daemon.sessions.load', 'MUST', 'sessions.md#sessions-load', 'session/load returns the session and its messages'),
  d('daemon.sessions.not-found', 'MUST', 'sessions.md#sessions-not-found', 'an unknown sessionId gets -33004'),
  d('daemon.sessions.attach-role', 'MUST', 'sessions.md#sessions-attach-role', 'session/attach answers with the requested role'),
  d('daemon.sessions.observer-cannot-control', 'MUST', 'sessions.md#sessions-observer-cannot-control', 'an observer sending chat/send gets -33006'),
  d('daemon.sessions.events-to-all-attached', 'MUST', 'sessions.md#sessions-fan-out', 'every attached client receives the same events with the same seq'),

  // Daemon: turns, seq, tree, budgets (need the scripted provider).
  d('daemon.turns.send-answers-turn-id', 'CAPABILITY', 'turns.md#turns-send-answers-at-once', 'chat/send answers at once with a turnId', 'daemon.testing.scriptedProvider'),
  d('daemon.turns.running-first', 'CAPABILITY', 'turns.md#turns-running-first', 'session/state running comes before every other event of the turn', 'daemon.testing.scriptedProvider'),
  d('daemon.turns.idle-ends-turn', 'CAPABILITY', 'turns.md#turns-idle-stop-reason', 'a turn ends with session/state idle carrying its stopReason, and nothing of it follows', 'daemon.testing.scriptedProvider'),
  d('daemon.turns.turn-in-progress', 'CAPABILITY', 'turns.md#turns-in-progress', 'chat/send during a running turn gets -33005', 'daemon.testing.scriptedProvider'),
  d('daemon.turns.cancel', 'CAPABILITY', 'turns.md#turns-cancel-stop-reason', 'chat/cancel ends the running turn with stopReason cancelled', 'daemon.testing.scriptedProvider'),
  d('daemon.events.seq-increasing', 'CAPABILITY', 'turns.md#turns-seq-increasing', 'seq is strictly increasing per session', 'daemon.testing.scriptedProvider'),
  d('daemon.events.seq-no-gaps', 'CAPABILITY', 'turns.md#turns-seq-no-gaps', 'seq grows by exactly one per event of a session', 'daemon.testing.scriptedProvider'),
  d('daemon.tree.parent-before-child', 'CAPABILITY', 'tree.md#tree-parent-before-child', 'a node is announced only after its parent', 'daemon.testing.scriptedProvider'),
  d('daemon.tree.turn-root', 'CAPABILITY', 'tree.md#tree-turn-root', 'exactly one node per turn has parentId null and it is the turn node', 'daemon.testing.scriptedProvider'),
  d('daemon.tree.final-status', 'CAPABILITY', 'tree.md#tree-final-status', 'a node in a final status never changes status again', 'daemon.testing.scriptedProvider'),
  d('daemon.budget.exceeded-notified', 'CAPABILITY', 'budgets.md#budgets-exceeded-notification', 'a turn ending with budget_exceeded is preceded by budget/exceeded', 'daemon.testing.scriptedProvider'),
  d('daemon.approvals.allow', 'CAPABILITY', 'approvals.md#approvals-allow-runs', 'an allowed call runs and the client tool is executed', 'daemon.clientTools'),
  d('daemon.approvals.deny', 'CAPABILITY', 'approvals.md#approvals-deny', 'a denied call does not run and its node ends denied', 'daemon.clientTools'),
  d('daemon.approvals.resolved', 'CAPABILITY', 'approvals.md#approvals-resolved-broadcast', 'every attached client gets tool/approvalResolved', 'daemon.clientTools'),
  d('daemon.client-tools.round-trip', 'CAPABILITY', 'client-tools.md#client-tools-execute', 'a declared client tool is run through tool/execute and its result used', 'daemon.clientTools'),

  // Client: the suite plays the daemon.
  c('client.lifecycle.initialize-first', 'MUST', 'lifecycle.md#lifecycle-initialize-first', 'the first message the client sends is initialize'),
  c('client.lifecycle.protocol-version', 'MUST', 'versioning.md#versioning-client-version', 'initialize carries protocolVersion 1 (the newest the client speaks)'),
  c('client.lifecycle.initialized', 'MUST', 'lifecycle.md#lifecycle-initialized', 'the client sends initialized after the initialize result'),
  c('client.jsonrpc.unknown-request', 'MUST', 'transport.md#transport-unknown-method', 'an unknown request (also `_`-prefixed) gets -32601'),
  c('client.jsonrpc.unknown-notification-ignored', 'MUST', 'versioning.md#versioning-unknown-notification', 'unknown and `_` notifications are ignored and the client keeps working'),
  c('client.transport.robust', 'MUST', 'transport.md#transport-client-robust', 'a malformed frame from the daemon does not crash the client'),
  c('client.approvals.valid-decision', 'CAPABILITY', 'approvals.md#approvals-client-answer', 'tool/approvalRequest is answered with a valid decision', 'client.approvals'),
  c('client.approvals.cancelled', 'CAPABILITY', 'approvals.md#approvals-client-cancelled', 'a cancelled approval request is answered -32800', 'client.approvals'),
  c('client.approvals.unknown-outcome', 'CAPABILITY', 'approvals.md#approvals-unknown-outcome', 'an unknown approval outcome is never treated as approval', 'client.conformance'),
  c('client.tree.rebuild', 'CAPABILITY', 'tree.md#tree-client-upsert', 'the client rebuilds the tree from upserts, late fields and deep nesting', 'client.conformance'),
  c('client.events.seq-gap-reattach', 'MUST', 'sessions.md#sessions-gap-reattach', 'on a seq gap the client re-attaches with sinceSeq = last applied seq'),
];

const byId = new Map(CHECKS.map((def) => [def.id, def]));

export function findCheck(id: string): CheckDef | undefined {
  return byId.get(id);
}

export function getCheck(id: string): CheckDef {
  const def = byId.get(id);
  if (!def) throw new Error(`unknown check id ${id}`);
  return def;
}
