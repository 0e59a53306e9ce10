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
  d(
    'daemon.wire.schema-valid',
    'MUST',
    'versioning.md#versioning-speak-negotiated',
    'every message the daemon sends validates against the JSON Schema',
  ),
  d(
    'daemon.wire.capability-negotiated',
    'MUST',
    'versioning.md#versioning-no-method-without-capability',
    'the daemon sends no method whose capability the client did not declare',
  ),
  d(
    'daemon.wire.response-per-request',
    'MUST',
    'transport.md#transport-response-per-request',
    'every request gets exactly one response',
  ),
  d(
    'daemon.wire.stdout-frames-only',
    'MUST',
    'transport.md#transport-stdout-frames-only',
    'in stdio mode the daemon writes nothing but frames to stdout',
  ),
  c(
    'client.wire.schema-valid',
    'MUST',
    'versioning.md#versioning-speak-negotiated',
    'every message the client sends validates against the JSON Schema',
  ),
  c(
    'client.wire.capability-negotiated',
    'MUST',
    'versioning.md#versioning-no-method-without-capability',
    'the client sends no method whose capability the daemon did not advertise',
  ),
  c(
    'client.wire.response-per-request',
    'MUST',
    'transport.md#transport-response-per-request',
    'every request gets exactly one response',
  ),

  // Daemon: framing and JSON-RPC errors.
  d(
    'daemon.jsonrpc.parse-error',
    'MUST',
    'transport.md#transport-parse-error',
    'malformed JSON gets -32700 with id null and the connection stays open',
  ),
  d(
    'daemon.jsonrpc.invalid-envelope',
    'MUST',
    'transport.md#transport-invalid-envelope',
    'a valid JSON but invalid JSON-RPC message gets -32600',
  ),
  d(
    'daemon.jsonrpc.invalid-envelope-id',
    'MUST',
    'transport.md#transport-invalid-envelope-id',
    'the -32600 answer carries the usable id, else null',
  ),
  d(
    'daemon.jsonrpc.batch-rejected',
    'MUST',
    'transport.md#transport-batch-rejected',
    'a batch gets one -32600 error with id null and no element is processed',
  ),
  d(
    'daemon.jsonrpc.params-invalid',
    'MUST',
    'transport.md#transport-params-invalid',
    'invalid params of a known method get -32602',
  ),
  d(
    'daemon.jsonrpc.null-params',
    'MUST',
    'transport.md#transport-null-params',
    '"params": null is read as params omitted (session/list answers, shutdown and exit work)',
  ),
  d(
    'daemon.jsonrpc.empty-array-object',
    'MUST',
    'transport.md#transport-empty-array-object',
    '[] is read as {} where an object has only optional members (session/list, initialized, capabilities)',
  ),
  d(
    'daemon.jsonrpc.duplicate-id',
    'MUST',
    'transport.md#transport-duplicate-id',
    'a request with the id of one still unanswered gets -32600 with that id and is not processed; the first is answered',
  ),
  d(
    'daemon.jsonrpc.max-depth',
    'MUST',
    'transport.md#transport-max-depth',
    'a body nested more than 256 levels deep gets -32600 with id null, is not processed, and the connection stays open',
  ),
  d(
    'daemon.jsonrpc.unknown-method',
    'MUST',
    'transport.md#transport-unknown-method',
    'an unknown request (also `_`-prefixed) gets -32601',
  ),
  d(
    'daemon.jsonrpc.unknown-notification-ignored',
    'MUST',
    'versioning.md#versioning-unknown-notifications-ignored',
    'an unknown notification gets no response and changes nothing',
  ),
  d(
    'daemon.jsonrpc.cancel-unknown-ignored',
    'MUST',
    'lifecycle.md#lifecycle-cancel-unknown-id',
    '$/cancelRequest for an unknown id is ignored',
  ),
  d(
    'daemon.jsonrpc.cancel-still-responds',
    'MUST',
    'lifecycle.md#lifecycle-cancel-still-responds',
    'a request cancelled in flight still gets exactly one response: its result or -32800',
  ),
  d(
    'daemon.transport.max-size-advertised',
    'MUST',
    'transport.md#transport-max-size-advertised',
    'the initialize result advertises capabilities.maxMessageBytes',
  ),
  d(
    'daemon.transport.oversize-error',
    'CAPABILITY',
    'transport.md#transport-oversize-error',
    'a frame over maxMessageBytes gets -33003 with id null',
    'daemon.maxMessageBytes',
  ),
  d(
    'daemon.transport.oversize-discard',
    'CAPABILITY',
    'transport.md#transport-oversize-discard',
    'after an oversize frame the connection serves the next frame',
    'daemon.maxMessageBytes',
  ),
  d(
    'daemon.transport.socket-token',
    'MUST',
    'lifecycle.md#lifecycle-token-rejected',
    'a socket initialize without the right token (missing, wrong, not a string, differing under initializationOptions) gets -33000 and the connection is closed',
  ),
  d(
    'daemon.transport.preauth-frame-limit',
    'SHOULD',
    'transport.md#transport-preauth-bounds',
    'before the token, a 1.5 MiB frame gets -33003 and the connection is closed',
  ),
  d(
    'daemon.transport.preauth-deadline',
    'SHOULD',
    'transport.md#transport-preauth-bounds',
    'a socket connection that never initializes is closed within 12 s',
  ),

  // Daemon: lifecycle.
  d(
    'daemon.lifecycle.initialize-result',
    'MUST',
    'lifecycle.md#lifecycle-initialize-order',
    'initialize is answered with protocolVersion, serverInfo, capabilities and clientId',
  ),
  d(
    'daemon.lifecycle.not-initialized',
    'MUST',
    'lifecycle.md#lifecycle-not-initialized',
    'a request before initialize gets -32002',
  ),
  d(
    'daemon.lifecycle.initialize-once',
    'MUST',
    'lifecycle.md#lifecycle-second-initialize',
    'a second initialize gets -33002',
  ),
  d(
    'daemon.lifecycle.after-shutdown',
    'MUST',
    'lifecycle.md#lifecycle-after-shutdown-requests',
    'after shutdown every request gets -32600',
  ),
  d(
    'daemon.lifecycle.exit-code',
    'MUST',
    'lifecycle.md#lifecycle-exit-stdio-code',
    'stdio: exit ends the process with code 0 after shutdown, 1 without',
  ),
  d(
    'daemon.lifecycle.shutdown-params',
    'MUST',
    'lifecycle.md#lifecycle-shutdown-params',
    'shutdown with params absent, null, {} or [] answers null; with [1] -32602',
  ),
  d(
    'daemon.lifecycle.shutdown-stdio-turns',
    'SHOULD',
    'lifecycle.md#lifecycle-shutdown-stdio-turns',
    'stdio: shutdown while a turn runs ends it (stopReason cancelled) before the shutdown result',
  ),
  d(
    'daemon.lifecycle.initialization-options',
    'CAPABILITY',
    'lifecycle.md#lifecycle-initialization-options',
    'approvals, clientTools and tools declared only under initializationOptions count: the client is asked, its tool runs',
    'daemon.clientTools',
  ),
  d(
    'daemon.lifecycle.quiet-before-initialized',
    'CAPABILITY',
    'lifecycle.md#lifecycle-daemon-quiet-before-initialized',
    'a tool/approvalRequest due before the client sent initialized waits for it, then is sent',
    'daemon.clientTools',
  ),
  d(
    'daemon.lifecycle.initialize-trace',
    'SHOULD',
    'lifecycle.md#lifecycle-initialize-trace',
    'initialize with trace "messages" turns $/logTrace on without $/setTrace',
  ),

  // Daemon: version negotiation.
  d(
    'daemon.version.supported',
    'MUST',
    'versioning.md#versioning-daemon-chooses',
    "a client speaking the suite's version gets that protocolVersion",
  ),
  d(
    'daemon.version.newer-client',
    'MUST',
    'versioning.md#versioning-daemon-chooses',
    "a client newer than the daemon gets min(its version, the daemon's newest)",
  ),
  d(
    'daemon.version.absent-means-1',
    'MUST',
    'versioning.md#versioning-absent-means-1',
    'initialize without protocolVersion is treated as version 1',
  ),

  // Daemon: sessions and attach.
  d(
    'daemon.sessions.new',
    'MUST',
    'sessions.md#session-new',
    'session/new answers an idle session with the requested root and mode',
  ),
  d(
    'daemon.sessions.invalid-workspace-root',
    'MUST',
    'sessions.md#sessions-new-workspace-root',
    'a missing or relative workspace root gets -33009',
  ),
  d(
    'daemon.sessions.invalid-model',
    'MUST',
    'sessions.md#sessions-new-invalid-model',
    'a malformed model or an unknown provider gets -33011',
  ),
  d(
    'daemon.sessions.list',
    'MUST',
    'sessions.md#session-list',
    'session/list includes the new session',
  ),
  d(
    'daemon.sessions.load',
    'MUST',
    'sessions.md#session-load',
    'session/load returns the session and its messages',
  ),
  d(
    'daemon.sessions.not-found',
    'MUST',
    'sessions.md#sessions-unknown-session',
    'an unknown sessionId gets -33004',
  ),
  d(
    'daemon.sessions.delete-cancels-turn',
    'CAPABILITY',
    'sessions.md#sessions-delete-cancels-turn',
    "session/delete during a turn: every attached client gets the turn's cost/summary and one idle, stopReason cancelled",
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.sessions.delete-notifies',
    'MUST',
    'sessions.md#sessions-delete-notifies',
    "every attached client gets session/deleted, exactly once, as the session's last event",
  ),
  d(
    'daemon.sessions.delete-answer-last',
    'MUST',
    'sessions.md#sessions-delete-answer-last',
    'the deleting client has every event of the session before the session/delete result',
  ),
  d(
    'daemon.sessions.delete-detaches',
    'MUST',
    'sessions.md#sessions-delete-detaches',
    'after session/delete, requests naming the session get -33004',
  ),
  d(
    'daemon.sessions.slow-consumer-detached',
    'SHOULD',
    'sessions.md#sessions-detached-slow-consumer',
    "a client that reads nothing while 32 MiB of a session's events stream is detached with session/detached",
  ),
  d(
    'daemon.sessions.detached-resume',
    'CAPABILITY',
    'sessions.md#sessions-detached-slow-consumer',
    'nothing of the session follows session/detached; re-attaching with sinceSeq = the last seq seen replays the rest without a gap',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.sessions.attach-role',
    'MUST',
    'sessions.md#sessions-attach-role-granted',
    'session/attach answers with the requested role',
  ),
  d(
    'daemon.sessions.observer-cannot-control',
    'MUST',
    'sessions.md#sessions-observer-refused',
    'an observer sending chat/send gets -33006',
  ),
  d(
    'daemon.sessions.events-to-all-attached',
    'MUST',
    'turns.md#turns-seq-same-for-all',
    'every attached client receives the same events with the same seq',
  ),

  // Daemon: turns, seq, tree, budgets (need the scripted provider).
  d(
    'daemon.turns.send-answers-turn-id',
    'CAPABILITY',
    'turns.md#turns-send-answers-at-once',
    'chat/send answers at once with a turnId',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.turns.response-before-events',
    'CAPABILITY',
    'turns.md#turns-send-response-before-events',
    "the chat/send response comes before the turn's first event",
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.turns.running-first',
    'CAPABILITY',
    'turns.md#turns-running-first',
    'session/state running comes before every other event of the turn',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.turns.idle-ends-turn',
    'CAPABILITY',
    'turns.md#turns-idle-last',
    'a turn ends with session/state idle carrying turnId, stopReason and usage, and nothing of it follows',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.turns.turn-in-progress',
    'CAPABILITY',
    'turns.md#turns-one-turn',
    'chat/send during a running turn gets -33005',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.turns.cancel',
    'CAPABILITY',
    'turns.md#turns-cancel-ends-turn',
    'chat/cancel ends the running turn with stopReason cancelled',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.events.seq-starts-at-1',
    'CAPABILITY',
    'turns.md#turns-seq-start',
    "a new session's first event has seq 1",
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.events.seq-increasing',
    'CAPABILITY',
    'turns.md#turns-seq-order',
    'seq is strictly increasing per session',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.events.seq-no-gaps',
    'CAPABILITY',
    'turns.md#turns-seq-no-gaps',
    'seq grows by exactly one per event of a session',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.tree.parent-before-child',
    'CAPABILITY',
    'tree.md#tree-parent-first',
    'a node is announced only after its parent',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.tree.turn-root',
    'CAPABILITY',
    'tree.md#tree-turn-node-first',
    "the turn's first tree/update holds the turn node; no other node is a root",
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.tree.final-status',
    'CAPABILITY',
    'tree.md#tree-final-is-final',
    'a node in a final status never changes status again',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.budget.exceeded-notified',
    'CAPABILITY',
    'budgets.md#budgets-turn-ending',
    'a turn ending with budget_exceeded is preceded by budget/exceeded',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.testing.set-budgets',
    'CAPABILITY',
    'appendix-scripted-provider.md#appendix-scripted-provider-set-budgets',
    'setScript budgets replace the limit for the turns of that script (llm_calls 2 ends an endless turn)',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.approvals.ask-controllers',
    'CAPABILITY',
    'approvals.md#approvals-ask-controllers',
    'a call needing approval is asked of every controller with client.approvals, once each',
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.denied-not-run',
    'CAPABILITY',
    'approvals.md#approvals-denied-result',
    'a denied call does not run, its node ends denied, and the turn goes on',
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.resolved',
    'CAPABILITY',
    'approvals.md#approvals-resolved-broadcast',
    'every attached client gets tool/approvalResolved, exactly once per approval',
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.node-awaiting',
    'CAPABILITY',
    'approvals.md#approvals-node-awaiting',
    "the call's node is announced awaiting_approval before tool/approvalRequest",
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.requires-action',
    'CAPABILITY',
    'approvals.md#approvals-requires-action',
    'session/state requires_action comes before the first tool/approvalRequest of a pending approval',
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.back-to-running',
    'CAPABILITY',
    'approvals.md#approvals-back-to-running',
    'session/state running follows tool/approvalResolved when the turn goes on',
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.decision-fields',
    'CAPABILITY',
    'approvals.md#approvals-resolved-decision-fields',
    "tool/approvalResolved carries decision and decidedBy when a client's answer decided, and omits them otherwise",
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.node-outcome',
    'CAPABILITY',
    'approvals.md#outcomes',
    "a tool node's approval, when present, is the outcome of its permission check",
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.grant-stored',
    'CAPABILITY',
    'approvals.md#approvals-grant-stored',
    'after allowForSession a later call of the tool runs without asking, outcome not_required',
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.cancelled',
    'CAPABILITY',
    'approvals.md#approvals-cancelled',
    'chat/cancel while an approval is pending resolves it cancelled; the node and the turn end cancelled',
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.cancel-request',
    'CAPABILITY',
    'approvals.md#approvals-cancel-others',
    "a resolved approval's unanswered tool/approvalRequest is cancelled with $/cancelRequest",
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.first-valid-wins',
    'CAPABILITY',
    'approvals.md#approvals-first-valid-wins',
    'of two controllers, the first valid answer decides; the later one is ignored',
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.resend-on-attach',
    'CAPABILITY',
    'sessions.md#sessions-attach-resend-approvals',
    'a controller attaching while an approval is pending gets its tool/approvalRequest after the attach response',
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.observer-not-asked',
    'CAPABILITY',
    'sessions.md#sessions-observer-no-approvals',
    'an observer (even with client.approvals) is never sent tool/approvalRequest',
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.garbage-not-approval',
    'CAPABILITY',
    'approvals.md#approvals-garbage-not-approval',
    'an answer {decision: "yes"} is never approval: the call does not run',
    'daemon.clientTools',
  ),
  d(
    'daemon.approvals.all-invalid-rejected',
    'CAPABILITY',
    'approvals.md#approvals-all-invalid-rejected',
    'when the only controller asked answers with an error, the approval resolves rejected at once',
    'daemon.clientTools',
  ),
  d(
    'daemon.client-tools.category-gated',
    'CAPABILITY',
    'client-tools.md#client-tools-category-trusted',
    'a client tool is gated by its declared category: read runs in default mode without asking, write is asked as write',
    'daemon.clientTools',
  ),
  d(
    'daemon.client-tools.result-to-model',
    'CAPABILITY',
    'client-tools.md#tool-execute',
    "the tool/execute result's content becomes the call's result (the node's resultPreview)",
    'daemon.clientTools',
  ),
  d(
    'daemon.client-tools.round-trip',
    'CAPABILITY',
    'client-tools.md#client-tools-gate-first',
    'an allowed client-tool call is run through tool/execute to its client, after the approval',
    'daemon.clientTools',
  ),

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

const byId = new Map(CHECKS.map((def) => [def.id, def]));

export function findCheck(id: string): CheckDef | undefined {
  return byId.get(id);
}

export function getCheck(id: string): CheckDef {
  const def = byId.get(id);
  if (!def) throw new Error(`unknown check id ${id}`);
  return def;
}
