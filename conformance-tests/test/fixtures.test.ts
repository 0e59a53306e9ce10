/**
 * The suite proves itself: the reference fixtures pass, and every broken
 * fixture fails exactly the check its one defect violates, and nothing else.
 */
import assert from 'node:assert/strict';
import { getCheck } from '../src/checks/registry.js';
import { timeouts } from '../src/harness/connection.js';
import { streamBounds } from '../src/scenarios/daemon/bounds.js';
import {
  runClientSuite,
  runDaemonSuite,
  type SuiteOptions,
  type SuiteResult,
} from '../src/suite.js';
import { clientCommand, daemonCommand, listeningDaemon, pool } from './helpers.js';

const failing = (result: SuiteResult): string[] =>
  result.report.checks.filter((c) => c.status === 'FAIL').map((c) => c.id);
const explain = (result: SuiteResult): string =>
  JSON.stringify(
    {
      failing: result.report.checks
        .filter((c) => c.status === 'FAIL')
        .map((c) => ({ id: c.id, messages: c.messages })),
      harnessErrors: result.report.verdict.harnessErrors,
    },
    null,
    2,
  );

/** defect → the one check it must fail; `stdio` defects need a process per connection. */
const DAEMON_DEFECTS: Record<string, { check: string; mode: 'stdio' | 'socket' }> = {
  'batch-success': { check: 'daemon.jsonrpc.batch-rejected', mode: 'socket' },
  'stdout-leak': { check: 'daemon.wire.stdout-frames-only', mode: 'stdio' },
  'seq-repeat': { check: 'daemon.events.seq-increasing', mode: 'socket' },
  'seq-gap': { check: 'daemon.events.seq-no-gaps', mode: 'socket' },
  'accept-before-initialize': { check: 'daemon.lifecycle.not-initialized', mode: 'socket' },
  'initialize-twice': { check: 'daemon.lifecycle.initialize-once', mode: 'socket' },
  'unknown-method-success': { check: 'daemon.jsonrpc.unknown-method', mode: 'socket' },
  'parse-error-code': { check: 'daemon.jsonrpc.parse-error', mode: 'socket' },
  'oversize-accepted': { check: 'daemon.transport.oversize-error', mode: 'socket' },
  'no-max-size': { check: 'daemon.transport.max-size-advertised', mode: 'socket' },
  'observer-can-chat': { check: 'daemon.sessions.observer-cannot-control', mode: 'socket' },
  'no-stop-reason': { check: 'daemon.turns.idle-ends-turn', mode: 'socket' },
  'child-before-parent': { check: 'daemon.tree.parent-before-child', mode: 'socket' },
  'final-status-changes': { check: 'daemon.tree.final-status', mode: 'socket' },
  'progress-not-cleared': { check: 'daemon.tree.progress-running', mode: 'socket' },
  'output-on-turn': { check: 'daemon.tree.output-tool', mode: 'socket' },
  'load-drops-plan': { check: 'daemon.sessions.load-plan', mode: 'socket' },
  'load-newest-first': { check: 'daemon.sessions.load-order', mode: 'socket' },
  'replay-retention-short': { check: 'daemon.sessions.replay-retention', mode: 'socket' },
  'replay-snapshot-no-approvals': { check: 'daemon.sessions.replay-snapshot', mode: 'socket' },
  'mode-read-at-turn-start': { check: 'daemon.approvals.switch-auto', mode: 'socket' },
  'detach-keeps-approval-request': { check: 'daemon.sessions.detach-approvals', mode: 'socket' },
  'disconnect-rejects-approvals': {
    check: 'daemon.sessions.disconnect-pending-requests',
    mode: 'socket',
  },
  'load-tree-failed-calls-dropped': { check: 'daemon.sessions.load-tree', mode: 'socket' },
  'cancel-drops-partial-text': { check: 'daemon.sessions.load-partial', mode: 'socket' },
  'context-summed': { check: 'daemon.cost.context-last-call', mode: 'socket' },
  'compaction-usage-missing': { check: 'daemon.tree.compaction-node', mode: 'socket' },
  'compaction-to-v1': { check: 'daemon.versioning.new-values-gated', mode: 'socket' },
  'exit-code-after-shutdown': { check: 'daemon.lifecycle.exit-code', mode: 'stdio' },
  'serve-after-shutdown': { check: 'daemon.lifecycle.after-shutdown', mode: 'socket' },
  'initialized-twice-closes': { check: 'daemon.lifecycle.initialized-once', mode: 'socket' },
  'settrace-after-shutdown': {
    check: 'daemon.lifecycle.after-shutdown-notifications',
    mode: 'socket',
  },
  'requests-after-shutdown': {
    check: 'daemon.lifecycle.no-requests-after-shutdown',
    mode: 'socket',
  },
  'logtrace-token': { check: 'daemon.lifecycle.logtrace-no-secrets', mode: 'socket' },
  'answer-notification': { check: 'daemon.jsonrpc.unknown-notification-ignored', mode: 'socket' },
  'no-budget-notification': { check: 'daemon.budget.exceeded-notified', mode: 'socket' },
  'approval-without-capability': { check: 'daemon.wire.capability-negotiated', mode: 'socket' },
  'missing-response': { check: 'daemon.wire.response-per-request', mode: 'socket' },
  'invalid-session-info': { check: 'daemon.wire.schema-valid', mode: 'socket' },
  'no-token-check': { check: 'daemon.transport.socket-token', mode: 'socket' },
  'no-fan-out': { check: 'daemon.sessions.events-to-all-attached', mode: 'socket' },
  'echo-version': { check: 'daemon.version.newer-client', mode: 'socket' },
  'accept-bad-root': { check: 'daemon.sessions.invalid-workspace-root', mode: 'socket' },
  'ignore-script-budgets': { check: 'daemon.testing.set-budgets', mode: 'socket' },
  'cancel-drops-response': { check: 'daemon.jsonrpc.cancel-still-responds', mode: 'socket' },
  'no-awaiting-node': { check: 'daemon.approvals.node-awaiting', mode: 'socket' },
  'no-requires-action': { check: 'daemon.approvals.requires-action', mode: 'socket' },
  'no-back-to-running': { check: 'daemon.approvals.back-to-running', mode: 'socket' },
  'no-decided-by': { check: 'daemon.approvals.decision-fields', mode: 'socket' },
  'node-approval-wrong': { check: 'daemon.approvals.node-outcome', mode: 'socket' },
  'grant-ignored': { check: 'daemon.approvals.grant-stored', mode: 'socket' },
  'forgets-always': { check: 'daemon.approvals.allow-always-saved', mode: 'socket' },
  'always-to-v1': { check: 'daemon.versioning.new-values-gated', mode: 'socket' },
  'cancel-rejects-approval': { check: 'daemon.approvals.cancelled', mode: 'socket' },
  'no-approval-cancel-request': { check: 'daemon.approvals.cancel-request', mode: 'socket' },
  'later-answer-wins': { check: 'daemon.approvals.first-valid-wins', mode: 'socket' },
  'no-resend-on-attach': { check: 'daemon.approvals.resend-on-attach', mode: 'socket' },
  'asks-observers': { check: 'daemon.approvals.observer-not-asked', mode: 'socket' },
  'garbage-approves': { check: 'daemon.approvals.garbage-not-approval', mode: 'socket' },
  'error-answer-times-out': { check: 'daemon.approvals.all-invalid-rejected', mode: 'socket' },
  'runs-denied-tool': { check: 'daemon.approvals.denied-not-run', mode: 'socket' },
  'resolved-twice': { check: 'daemon.approvals.resolved', mode: 'socket' },
  'asks-first-controller-only': { check: 'daemon.approvals.ask-controllers', mode: 'socket' },
  'client-tool-category-ignored': { check: 'daemon.client-tools.category-gated', mode: 'socket' },
  'client-tool-result-dropped': { check: 'daemon.client-tools.result-to-model', mode: 'socket' },
  'client-tool-shadows-builtin': { check: 'daemon.client-tools.builtin-wins', mode: 'socket' },
  'tools-of-first-controller': { check: 'daemon.client-tools.sender-tools', mode: 'socket' },
  'client-gone-ends-turn': { check: 'daemon.client-tools.disconnect-error', mode: 'socket' },
  'client-gone-reroutes': { check: 'daemon.client-tools.unavailable', mode: 'socket' },
  'client-result-untruncated': { check: 'daemon.budget.truncation-marker', mode: 'socket' },
  'subtask-ungated': { check: 'daemon.approvals.one-gate', mode: 'socket' },
  'always-ask-auto-runs': { check: 'daemon.approvals.always-ask', mode: 'socket' },
  'protected-write-unasked': { check: 'daemon.approvals.protected-paths', mode: 'socket' },
  'null-params-rejected': { check: 'daemon.jsonrpc.null-params', mode: 'socket' },
  'empty-array-rejected': { check: 'daemon.jsonrpc.empty-array-object', mode: 'socket' },
  'shutdown-params-strict': { check: 'daemon.lifecycle.shutdown-params', mode: 'socket' },
  'ignores-initialization-options': {
    check: 'daemon.lifecycle.initialization-options',
    mode: 'socket',
  },
  'request-before-initialized': {
    check: 'daemon.lifecycle.quiet-before-initialized',
    mode: 'socket',
  },
  'accept-any-model': { check: 'daemon.sessions.invalid-model', mode: 'socket' },
  'delete-drops-turn-end': { check: 'daemon.sessions.delete-cancels-turn', mode: 'socket' },
  'no-deleted-notification': { check: 'daemon.sessions.delete-notifies', mode: 'socket' },
  'delete-answers-first': { check: 'daemon.sessions.delete-answer-last', mode: 'socket' },
  'delete-keeps-session': { check: 'daemon.sessions.delete-detaches', mode: 'socket' },
  'shutdown-leaves-turn': { check: 'daemon.lifecycle.shutdown-stdio-turns', mode: 'stdio' },
  'ignores-initialize-trace': { check: 'daemon.lifecycle.initialize-trace', mode: 'socket' },
  'duplicate-id-processed': { check: 'daemon.jsonrpc.duplicate-id', mode: 'socket' },
  'deep-body-processed': { check: 'daemon.jsonrpc.max-depth', mode: 'socket' },
  'token-type-invalid-params': { check: 'daemon.transport.socket-token', mode: 'socket' },
  'preauth-large-frame-kept-open': {
    check: 'daemon.transport.preauth-frame-limit',
    mode: 'socket',
  },
  'no-auth-deadline': { check: 'daemon.transport.preauth-deadline', mode: 'socket' },
  'no-slow-consumer-limit': { check: 'daemon.sessions.slow-consumer-detached', mode: 'socket' },
  'detached-keeps-streaming': { check: 'daemon.sessions.detached-resume', mode: 'socket' },
  // The protocol core: framing, lifecycle, trace, sessions and attach, errors.
  'unknown-header-rejected': { check: 'daemon.transport.unknown-headers', mode: 'socket' },
  'split-header-dropped': { check: 'daemon.transport.reassembly', mode: 'socket' },
  'answers-stray-response': { check: 'daemon.transport.unknown-response-ignored', mode: 'socket' },
  'bad-header-kept-open': { check: 'daemon.transport.bad-header-close', mode: 'socket' },
  'eof-exit-zero': { check: 'daemon.transport.stdin-eof', mode: 'stdio' },
  'socket-mode-open': { check: 'daemon.transport.unix-socket-mode', mode: 'socket' },
  'exit-needs-initialize': { check: 'daemon.lifecycle.exit-any-state', mode: 'stdio' },
  'exit-keeps-socket-open': { check: 'daemon.lifecycle.exit-socket', mode: 'socket' },
  'stdio-token-checked': { check: 'daemon.lifecycle.token-stdio', mode: 'stdio' },
  'failed-initialize-counts': { check: 'daemon.lifecycle.failed-initialize-retry', mode: 'socket' },
  'early-settrace-applied': { check: 'daemon.lifecycle.early-notifications', mode: 'socket' },
  'logtrace-verbose-always': { check: 'daemon.lifecycle.logtrace-off', mode: 'socket' },
  'shutdown-keeps-attached': { check: 'daemon.lifecycle.shutdown-detach', mode: 'socket' },
  'cancel-when-not-attached': { check: 'daemon.sessions.not-attached', mode: 'socket' },
  'reattach-keeps-role': { check: 'daemon.sessions.reattach', mode: 'socket' },
  'list-no-cursor': { check: 'daemon.sessions.list-order', mode: 'socket' },
  'mode-update-others-only': { check: 'daemon.sessions.mode-update', mode: 'socket' },
  'unknown-mode-default': { check: 'daemon.version.invalid-enum-request', mode: 'socket' },
  'session-before-params': { check: 'daemon.errors.precedence', mode: 'socket' },
  'error-echoes-body': { check: 'daemon.errors.message-safe', mode: 'socket' },
  'replay-before-response': { check: 'daemon.sessions.replay-events', mode: 'socket' },
  'no-mid-turn-snapshot': { check: 'daemon.sessions.attach-mid-turn', mode: 'socket' },
  'detach-cancels-turn': { check: 'daemon.sessions.detach', mode: 'socket' },
  'disconnect-cancels-turns': { check: 'daemon.sessions.disconnect-continues', mode: 'socket' },
  'set-model-no-update': { check: 'daemon.sessions.set-model-update', mode: 'socket' },
  'set-model-not-stored': { check: 'daemon.sessions.set-model-stored', mode: 'socket' },
  'text-not-joined': { check: 'daemon.turns.text-joined', mode: 'stdio' },
  'preview-untruncated': { check: 'daemon.wire.schema-valid', mode: 'stdio' },
  'turn-usage-off-by-one': { check: 'daemon.tree.turn-usage', mode: 'stdio' },
  'chunk-before-node': { check: 'daemon.turns.chunk-node-announced', mode: 'stdio' },
  'chunk-splits-surrogates': { check: 'daemon.turns.chunk-code-points', mode: 'stdio' },
  'servers-without-session': { check: 'daemon.tools.servers-session-only', mode: 'stdio' },
  'servers-duplicated': { check: 'daemon.tools.servers-origin', mode: 'stdio' },
  'length-in-chars': { check: 'daemon.wire.frames', mode: 'stdio' },
  'reuses-ids': { check: 'daemon.wire.ids-unique', mode: 'stdio' },
  'set-model-observer': { check: 'daemon.sessions.set-model-refused', mode: 'socket' },
  'strict-members': { check: 'daemon.version.unknown-members-accepted', mode: 'socket' },
  'load-attaches': { check: 'daemon.sessions.list-load-no-attach', mode: 'socket' },
  // The agent: turn ends, cancellation, unanswered approvals, tools/list, the scripted provider.
  'leaves-tool-running': { check: 'daemon.tree.all-final-at-end', mode: 'socket' },
  'turn-node-done-always': { check: 'daemon.tree.turn-node-status', mode: 'socket' },
  'cost-twice': { check: 'daemon.cost.once-before-idle', mode: 'socket' },
  'load-parts-nodes-first': { check: 'daemon.sessions.load-parts', mode: 'socket' },
  'load-cost-stale': { check: 'daemon.sessions.load-cost', mode: 'socket' },
  'cost-calls-one': { check: 'daemon.cost.sums', mode: 'socket' },
  'repeats-running': { check: 'daemon.turns.state-changes-only', mode: 'socket' },
  'cancel-tool-node-error': { check: 'daemon.turns.cancel-nodes', mode: 'socket' },
  'no-execute-cancel': { check: 'daemon.client-tools.cancel-sent', mode: 'socket' },
  'no-controller-approves': { check: 'daemon.approvals.no-controller', mode: 'socket' },
  'timeout-approves': { check: 'daemon.approvals.timeout', mode: 'socket' },
  'auto-asks': { check: 'daemon.approvals.matrix', mode: 'socket' },
  'blocked-as-denied': { check: 'daemon.approvals.blocked', mode: 'socket' },
  'switch-auto-keeps-pending': { check: 'daemon.approvals.switch-auto', mode: 'socket' },
  'switch-plan-denies': { check: 'daemon.approvals.switch-plan', mode: 'socket' },
  'client-args-unvalidated': { check: 'daemon.client-tools.validate-args', mode: 'socket' },
  'execute-error-ends-turn': { check: 'daemon.client-tools.error-result', mode: 'socket' },
  'duplicate-client-tools-accepted': { check: 'daemon.client-tools.unique-names', mode: 'socket' },
  'cancel-ignores-turn-id': { check: 'daemon.turns.cancel-no-turn', mode: 'socket' },
  'node-depth-changes': { check: 'daemon.tree.fixed-fields', mode: 'socket' },
  'grant-turn-only': { check: 'daemon.approvals.grant-scope', mode: 'socket' },
  'tool-calls-first-only': { check: 'daemon.testing.tool-calls', mode: 'socket' },
  'send-budgets-raise': { check: 'daemon.budget.send-lowers', mode: 'socket' },
  'tools-list-unadvertised': { check: 'daemon.tools.capability', mode: 'socket' },
  'commands-unadvertised': { check: 'daemon.commands.capability', mode: 'socket' },
  'send-accepts-long-text': { check: 'daemon.turns.send-errors', mode: 'socket' },
  'tools-list-builtin-permission': { check: 'daemon.tools.builtins', mode: 'socket' },
  'tools-list-duplicates': { check: 'daemon.tools.unique-names', mode: 'socket' },
  'tools-list-unknown-session-empty': { check: 'daemon.tools.unknown-session', mode: 'socket' },
  'tools-list-schema-summarized': { check: 'daemon.tools.client-tools', mode: 'socket' },
  'tools-list-permission-ignores-mode': { check: 'daemon.tools.permission', mode: 'socket' },
  'tools-list-emits': { check: 'daemon.tools.no-effect', mode: 'socket' },
  'runs-client-tools-in-thread': { check: 'daemon.tools.listed-callable', mode: 'socket' },
  'delay-after-first-delta': { check: 'daemon.testing.delay', mode: 'socket' },
  'script-shortest-key': { check: 'daemon.testing.key-match', mode: 'socket' },
  'script-shared-cursor': { check: 'daemon.testing.own-cursor', mode: 'socket' },
  'no-key-answers': { check: 'daemon.testing.no-key', mode: 'socket' },
  'exhausted-ends-turn': { check: 'daemon.testing.exhausted', mode: 'socket' },
  'error-message-dropped': { check: 'daemon.testing.error', mode: 'socket' },
  'text-reply-continues': { check: 'daemon.testing.end', mode: 'socket' },
  'set-script-running-turn': { check: 'daemon.testing.set-session', mode: 'socket' },
  'default-script-ignored': { check: 'daemon.testing.set-default', mode: 'socket' },
  'idle-twice-on-error': { check: 'daemon.turns.one-idle', mode: 'socket' },
  'running-only-after-answer': { check: 'daemon.turns.requires-action', mode: 'socket' },
  'error-drops-partial': { check: 'daemon.turns.partial-kept', mode: 'socket' },
  'text-held-to-end': { check: 'daemon.turns.chunk-coalesce-bound', mode: 'socket' },
  'subtask-text-in-caller': { check: 'daemon.turns.chunk-one-node', mode: 'socket' },
  'unadvertised-tools-list-invalid': {
    check: 'daemon.versioning.capability-not-negotiated',
    mode: 'socket',
  },
  'usage-default-tokens': { check: 'daemon.testing.usage', mode: 'socket' },
  'set-script-any-version': { check: 'daemon.testing.set-invalid', mode: 'socket' },
  'usage-while-running': { check: 'daemon.wire.schema-valid', mode: 'socket' },
  'max-tokens-runs-tools': { check: 'daemon.turns.max-tokens-ends-turn', mode: 'socket' },
  'max-tokens-to-v1': { check: 'daemon.versioning.new-values-gated', mode: 'socket' },
  'answers-invalid-response': { check: 'daemon.jsonrpc.invalid-response', mode: 'socket' },
  'turn-in-progress-bad-data': { check: 'daemon.wire.schema-valid', mode: 'socket' },
  'cancel-request-no-id': { check: 'daemon.wire.schema-valid', mode: 'socket' },
  'subtask-history-in-message': { check: 'daemon.subtasks.fresh-context', mode: 'socket' },
  'subtask-tools-ignored': { check: 'daemon.subtasks.tools-subset', mode: 'socket' },
  'subtask-no-depth-limit': { check: 'daemon.subtasks.depth', mode: 'socket' },
  'subtask-text-dropped': { check: 'daemon.subtasks.text-result', mode: 'socket' },
  'structured-goes-on': { check: 'daemon.subtasks.structured-result', mode: 'socket' },
  'task-memory-by-title': { check: 'daemon.subtasks.memory', mode: 'socket' },
  'finish-offered-everywhere': { check: 'daemon.subtasks.finish-offered', mode: 'socket' },
  'schema-unchecked': { check: 'daemon.subtasks.invalid-schema', mode: 'socket' },
  'finish-errors-unlisted': { check: 'daemon.subtasks.finish-validates', mode: 'socket' },
  'retries-two': { check: 'daemon.subtasks.retries', mode: 'socket' },
  'answer-ends-structured': { check: 'daemon.subtasks.answer-without-finish', mode: 'socket' },
  'last-call-all-tools': { check: 'daemon.subtasks.finish-last-call', mode: 'socket' },
  'finish-gated': { check: 'daemon.subtasks.finish-not-gated', mode: 'socket' },
  'budget-per-loop': { check: 'daemon.budget.one-per-turn', mode: 'socket' },
  'tool-budget-after-call': { check: 'daemon.budget.checked-before', mode: 'socket' },
  'truncation-no-marker': { check: 'daemon.budget.truncation-marker', mode: 'socket' },
  'truncation-ends-turn': { check: 'daemon.budget.truncation-continues', mode: 'socket' },
  'iterations-end-budget': { check: 'daemon.budget.non-ending', mode: 'socket' },
  'advertised-tool-calls-ignored': { check: 'daemon.budget.advertised', mode: 'socket' },
  'last-call-runs-tools': { check: 'daemon.testing.no-tools-call', mode: 'socket' },
  'budget-drops-partial': { check: 'daemon.budget.partial-kept', mode: 'socket' },
  // Questions (protocol 1.1).
  'question-asks-first-controller-only': {
    check: 'daemon.questions.ask-controllers',
    mode: 'socket',
  },
  'question-asks-observers': { check: 'daemon.questions.observer-not-asked', mode: 'socket' },
  'question-no-awaiting-node': { check: 'daemon.questions.node-awaiting', mode: 'socket' },
  'question-no-requires-action': {
    check: 'daemon.questions.requires-action-first',
    mode: 'socket',
  },
  'question-no-back-to-running': { check: 'daemon.questions.back-to-running', mode: 'socket' },
  'question-resolved-twice': { check: 'daemon.questions.resolved', mode: 'socket' },
  'question-answer-fields-missing': { check: 'daemon.questions.answer-fields', mode: 'socket' },
  'question-answer-dropped': { check: 'daemon.questions.tool-result', mode: 'socket' },
  'question-takes-invalid-answer': {
    check: 'daemon.questions.invalid-answer-not-taken',
    mode: 'socket',
  },
  'question-later-answer-wins': { check: 'daemon.questions.first-valid-wins', mode: 'socket' },
  'question-no-cancel-others': { check: 'daemon.questions.cancel-others', mode: 'socket' },
  'question-not-cancelled': { check: 'daemon.questions.cancelled-with-turn', mode: 'socket' },
  'question-not-resent': { check: 'daemon.questions.resend-on-attach', mode: 'socket' },
  'question-snapshot-missing': { check: 'daemon.questions.snapshot', mode: 'socket' },
  'question-no-controller-requires-action': {
    check: 'daemon.questions.no-controller',
    mode: 'socket',
  },
  'question-timeout-unanswered': { check: 'daemon.questions.timeout', mode: 'socket' },
  // Agent profiles (protocol 1.1).
  'agents-unadvertised': { check: 'daemon.agents.capability', mode: 'stdio' },
  'parallel-cap-ignored': { check: 'daemon.agents.parallel-cap', mode: 'stdio' },
  'parallel-entries-joined': { check: 'daemon.agents.parallel-entries', mode: 'stdio' },
  'parallel-tool-names-run': { check: 'daemon.agents.parallel-tool-names', mode: 'stdio' },
  'parallel-schema-text-ok': { check: 'daemon.agents.parallel-schema', mode: 'stdio' },
  'parallel-jobs-sequential': { check: 'daemon.agents.parallel-concurrent', mode: 'stdio' },
  'planner-usage-missing': { check: 'daemon.agents.planner-node', mode: 'stdio' },
  'planner-calls-under-turn': { check: 'daemon.agents.planner-children', mode: 'stdio' },
  'planner-plan-in-progress': { check: 'daemon.agents.planner-plan', mode: 'stdio' },
  'planner-failed-clears-plan': { check: 'daemon.agents.planner-plan', mode: 'stdio' },
  'agents-list-skips-workspace': { check: 'daemon.agents.list', mode: 'stdio' },
  'agents-list-invalid-listed': { check: 'daemon.agents.list-invalid', mode: 'stdio' },
  'agents-list-unsorted': { check: 'daemon.agents.list', mode: 'stdio' },
  'agents-list-bad-root-empty': { check: 'daemon.agents.list-workspace-root', mode: 'stdio' },
  'agents-load-drops-agent': { check: 'daemon.agents.new', mode: 'stdio' },
  'agents-new-unknown-accepted': { check: 'daemon.agents.new-invalid', mode: 'stdio' },
  'agents-hitl-unasked': { check: 'daemon.agents.hitl', mode: 'stdio' },
  // Slash commands (protocol 1.1).
  'commands-list-empty': { check: 'daemon.commands.list', mode: 'stdio' },
  'commands-list-unknown-session-empty': {
    check: 'daemon.commands.list-unknown-session',
    mode: 'stdio',
  },
  'commands-not-expanded': { check: 'daemon.commands.expand', mode: 'stdio' },
  'commands-stores-expansion': { check: 'daemon.commands.expand-stored', mode: 'stdio' },
  'commands-unknown-refused': { check: 'daemon.commands.unknown', mode: 'stdio' },
  'commands-changed-never': { check: 'daemon.commands.changed', mode: 'stdio' },
  // Checkpoints (protocol 1.1).
  'checkpoint-no-changes': { check: 'daemon.checkpoints.turn-changes', mode: 'socket' },
  'checkpoint-changes-on-tool-node': { check: 'daemon.checkpoints.turn-changes', mode: 'socket' },
  'checkpoint-changes-not-stored': { check: 'daemon.checkpoints.changes-stored', mode: 'socket' },
  'checkpoint-restore-leaves-created': {
    check: 'daemon.checkpoints.restore-files',
    mode: 'socket',
  },
  'checkpoint-restore-ignores-conflict': {
    check: 'daemon.checkpoints.restore-conflict',
    mode: 'socket',
  },
  'checkpoint-restore-during-turn': { check: 'daemon.checkpoints.restore-busy', mode: 'socket' },
  'checkpoint-restore-by-observer': {
    check: 'daemon.checkpoints.restore-controller',
    mode: 'socket',
  },
  'checkpoint-restore-unknown-turn-ok': {
    check: 'daemon.checkpoints.restore-unknown-turn',
    mode: 'socket',
  },
  'checkpoint-restore-follows-symlink': {
    check: 'daemon.checkpoints.restore-confined',
    mode: 'socket',
  },
  'checkpoint-diff-unknown-turn-ok': { check: 'daemon.checkpoints.diff', mode: 'socket' },
  'checkpoint-diff-ignores-path': { check: 'daemon.checkpoints.diff', mode: 'socket' },
  'secrets-in-tree-updates': { check: 'daemon.security.no-secrets-on-wire', mode: 'socket' },
  'redaction-marker-wrong': { check: 'daemon.security.redact-known-secrets', mode: 'socket' },
  'model-keeps-credentials': {
    check: 'daemon.security.model-credentials-stripped',
    mode: 'socket',
  },
  'confinement-lexical': { check: 'daemon.security.workspace-confined', mode: 'socket' },
  'git-write-through-link': {
    check: 'daemon.security.protected-paths-resolved',
    mode: 'socket',
  },
  'unsandboxed-unsaid': { check: 'daemon.security.command-sandbox', mode: 'socket' },
  'command-env-kept': { check: 'daemon.security.command-env-scrubbed', mode: 'stdio' },
  'snapshot-children-first': { check: 'daemon.tree.snapshot-flat', mode: 'socket' },
  'snapshot-drops-duration': { check: 'daemon.tree.snapshot-equals-stream', mode: 'socket' },
  'completed-at-missing': { check: 'daemon.tree.completed-at', mode: 'stdio' },
  'approval-id-missing': { check: 'daemon.tree.approval-id', mode: 'stdio' },
  'injected-args-passed': { check: 'daemon.agents.injected-args', mode: 'stdio' },
  'instructions-chars-bytes': { check: 'daemon.tree.turn-instructions', mode: 'stdio' },
  'omitted-unlisted': { check: 'daemon.agents.omitted-listed', mode: 'stdio' },
  'results-replayed': { check: 'daemon.agents.results-not-kept', mode: 'stdio' },
};

const CLIENT_DEFECTS: Record<string, string> = {
  'wrong-version': 'client.lifecycle.protocol-version',
  'no-initialized': 'client.lifecycle.initialized',
  'unknown-request-success': 'client.jsonrpc.unknown-request',
  'crash-on-unknown-notification': 'client.jsonrpc.unknown-notification-ignored',
  'crash-on-malformed': 'client.transport.robust',
  'ignores-policy': 'client.approvals.valid-decision',
  'no-cancel-answer': 'client.approvals.cancelled',
  'unknown-outcome-approves': 'client.approvals.unknown-outcome',
  'answers-invalid-response': 'client.transport.invalid-response',
  'open-enum-dropped': 'client.versioning.open-enums',
  'unknown-kind-dropped': 'client.versioning.open-enums',
  'tree-replace': 'client.tree.rebuild',
  'ignore-seq-gap': 'client.events.seq-gap-reattach',
  'ignore-version': 'client.version.unsupported-stops',
  'budget-ends-turn': 'client.budget.not-turn-end',
  'apply-duplicates': 'client.events.duplicate-ignored',
  'crash-on-dollar-notification': 'client.jsonrpc.unknown-notification-ignored',
  'no-token': 'client.lifecycle.token',
  'talks-after-shutdown': 'client.lifecycle.after-shutdown',
  'tools-without-capability': 'client.client-tools.declared-capability',
  'attach-as-observer': 'client.driver.session',
  'ignores-message': 'client.driver.message',
  'header-per-read': 'client.transport.reassembly',
  'strict-headers': 'client.transport.header-fields',
  'small-max-frame': 'client.transport.accepts-large',
  'crash-on-unknown-response': 'client.transport.unknown-response-ignored',
  'meta-rejected': 'client.versioning.unknown-fields-ignored',
  'runs-undeclared-tool': 'client.client-tools.unknown-tool',
  'no-tool-cancel-answer': 'client.client-tools.cancel-answer',
  'double-prompt': 'client.approvals.dedupe',
  'resolved-keeps-prompt': 'client.approvals.resolved-closes',
  'answer-ends-approval': 'client.approvals.resolved-ends',
  'always-unoffered': 'client.approvals.always-only-offered',
  'state-any-session': 'client.conformance.unknown-session',
  'state-lags': 'client.conformance.state-after-applied',
  'first-upsert-wins': 'client.tree.apply-in-order',
  'orphan-applied': 'client.tree.unknown-parent-reattach',
  'snapshot-merged': 'client.sessions.snapshot-replaces-tree',
  'update-resets-absent': 'client.sessions.update-applies',
  'global-seq': 'client.events.seq-per-session',
  'plan-not-counted': 'client.plan.seq-counted',
  'new-turn-no-gap-check': 'client.driver.gap-new-turn',
  'final-node-ends-turn': 'client.turns.cancelled-tree',
  'snapshot-any-version': 'client.tree.snapshot-version',
  'crash-on-unknown-error': 'client.errors.unknown-code',
  'ignores-endpoint': 'client.driver.connect',
  'length-in-chars': 'client.wire.frames',
  'reuses-ids': 'client.wire.ids-unique',
  'ignores-max': 'client.transport.respects-max',
  'plan-merged': 'client.plan.whole-list',
  'parses-stderr': 'client.transport.stderr-ignored',
  'plan-per-turn': 'client.plan.session-scoped',
  'progress-kept': 'client.tree.progress-cleared',
  'own-arbor-code': 'client.errors.arbor-range',
  'question-ignores-answer': 'client.questions.valid-answer',
  'calls-unadvertised-tools-list': 'client.wire.capability-negotiated',
  'question-answers-twice-shown': 'client.questions.dedupe',
  'question-keeps-resolved': 'client.questions.closed-on-resolved',
  'question-ignores-cancel': 'client.questions.cancelled',
};

async function daemonRun(
  defect: string | undefined,
  mode: 'stdio' | 'socket',
  options: SuiteOptions = {},
): Promise<SuiteResult> {
  if (mode === 'stdio')
    return runDaemonSuite(
      { kind: 'stdio', command: daemonCommand(defect) },
      { concurrency: 6, ...options },
    );
  const daemon = await listeningDaemon(defect);
  try {
    return await runDaemonSuite(daemon.target, { concurrency: 8, ...options });
  } finally {
    await daemon.stop();
  }
}

// Broken fixtures that never answer would each cost the default 5 s.
before(() => {
  timeouts.requestMs = 1500;
});
after(() => {
  timeouts.requestMs = 5000;
});

/**
 * The slow-consumer scenario streams 6 MiB instead of 32: well past the
 * reference daemon's limit of 2 MiB, and cheap enough for every socket run.
 */
function streamLess(): void {
  const bytes = streamBounds.slowConsumerBytes;
  before(() => {
    streamBounds.slowConsumerBytes = 6 * 1024 * 1024;
  });
  after(() => {
    streamBounds.slowConsumerBytes = bytes;
  });
}

describe('the reference fixtures', () => {
  streamLess();
  it('the reference daemon passes every check on stdio (socket-only checks skipped)', async () => {
    const result = await daemonRun(undefined, 'stdio');
    assert.deepEqual(failing(result), [], explain(result));
    assert.equal(result.report.verdict.exitCode, 0, explain(result));
    const skipped = result.report.checks
      .filter((c) => c.status === 'SKIPPED')
      .map((c) => c.id)
      .sort();
    assert.deepEqual(skipped, [
      'daemon.approvals.first-valid-wins',
      'daemon.approvals.observer-not-asked',
      'daemon.approvals.resend-on-attach',
      'daemon.client-tools.disconnect-error',
      'daemon.client-tools.sender-tools',
      'daemon.client-tools.unavailable',
      'daemon.lifecycle.exit-socket',
      'daemon.lifecycle.logtrace-no-secrets',
      'daemon.lifecycle.no-requests-after-shutdown',
      'daemon.lifecycle.shutdown-detach',
      'daemon.questions.first-valid-wins',
      'daemon.questions.observer-not-asked',
      'daemon.questions.resend-on-attach',
      'daemon.questions.snapshot',
      'daemon.security.no-secrets-on-wire',
      'daemon.security.redact-known-secrets',
      'daemon.sessions.detach-approvals',
      'daemon.sessions.detached-resume',
      'daemon.sessions.disconnect-continues',
      'daemon.sessions.disconnect-pending-requests',
      'daemon.sessions.events-to-all-attached',
      'daemon.sessions.list-load-no-attach',
      'daemon.sessions.slow-consumer-detached',
      'daemon.transport.preauth-deadline',
      'daemon.transport.preauth-frame-limit',
      'daemon.transport.socket-token',
      'daemon.transport.unix-socket-mode',
      // The reference daemon advertises tools: only its defect fixture reaches this one.
      'daemon.versioning.capability-not-negotiated',
    ]);
  });

  it('the reference daemon passes every check on a socket (stdio-only checks skipped)', async () => {
    const result = await daemonRun(undefined, 'socket');
    assert.deepEqual(failing(result), [], explain(result));
    const skipped = result.report.checks
      .filter((c) => c.status === 'SKIPPED')
      .map((c) => c.id)
      .sort();
    assert.deepEqual(skipped, [
      'daemon.lifecycle.exit-code',
      'daemon.lifecycle.shutdown-stdio-turns',
      'daemon.lifecycle.token-stdio',
      'daemon.security.command-env-scrubbed',
      'daemon.transport.stdin-eof',
      'daemon.versioning.capability-not-negotiated',
      'daemon.wire.stdout-frames-only',
    ]);
  });

  for (const transport of ['stdio', 'socket'] as const) {
    it(`the reference client passes every client check over ${transport}`, async () => {
      const result = await runClientSuite(
        { command: clientCommand(), transport },
        { concurrency: 8 },
      );
      assert.deepEqual(failing(result), [], explain(result));
      assert.equal(result.report.verdict.exitCode, 0, explain(result));
      const skipped = result.report.checks.filter((c) => c.status === 'SKIPPED').map((c) => c.id);
      // A token is presented only on a socket (lifecycle.md#token); only a stdio daemon has a stderr.
      assert.deepEqual(
        skipped,
        transport === 'stdio' ? ['client.lifecycle.token'] : ['client.transport.stderr-ignored'],
      );
    });
  }
});

/**
 * A broken fixture runs only the scenarios that can judge its check (those that
 * list it; all of them for an always-on `*.wire.*` check): every check judged
 * there must pass but that one. The reference fixtures above run everything,
 * which is what shows that no scenario fails a correct implementation. A check
 * no scenario judges fails its test: the run throws, and `it` rethrows.
 */
const settle = (run: Promise<SuiteResult>): Promise<SuiteResult | Error> =>
  run.catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
const resultOf = (results: Map<string, SuiteResult | Error>, defect: string): SuiteResult => {
  const result = results.get(defect);
  if (result instanceof Error) throw result;
  assert.ok(result, `no run for --defect ${defect}`);
  return result;
};

describe('each broken daemon fails exactly its check', function () {
  // A run of the scenarios judging its check per defect, six at a time.
  this.timeout(Object.keys(DAEMON_DEFECTS).length * 10_000);
  streamLess();
  // Few scenarios per run make an unanswered request cheap, while on a loaded machine a
  // daemon spawned per stdio connection can take longer than 1.5 s to answer initialize.
  before(() => {
    timeouts.requestMs = 5000;
  });
  after(() => {
    timeouts.requestMs = 1500;
  });
  const results = new Map<string, SuiteResult | Error>();
  before(async () => {
    const entries = Object.entries(DAEMON_DEFECTS);
    const runs = await pool(entries, 6, ([defect, { check, mode }]) =>
      settle(daemonRun(defect, mode, { checks: [check] })),
    );
    entries.forEach(([defect], i) => results.set(defect, runs[i]!));
  });
  for (const [defect, { check }] of Object.entries(DAEMON_DEFECTS)) {
    it(`--defect ${defect} fails only ${check}`, () => {
      const result = resultOf(results, defect);
      assert.deepEqual(failing(result), [check], explain(result));
      assert.deepEqual(result.report.verdict.harnessErrors, []);
      // A SHOULD failure alone is a warning: it fails a run only with --strict.
      assert.equal(result.report.verdict.exitCode, getCheck(check).tier === 'SHOULD' ? 0 : 1);
    });
  }
});

/** Client defects only a stdio daemon can show; the others run over a socket. */
const STDIO_CLIENT_DEFECTS = new Set(['parses-stderr']);

describe('each broken client fails exactly its check', function () {
  this.timeout(600_000);
  // Forty clients of thirty scenarios each share the machine: answers take longer than 1.5 s.
  before(() => {
    timeouts.requestMs = 8000;
  });
  after(() => {
    timeouts.requestMs = 1500;
  });
  const results = new Map<string, SuiteResult | Error>();
  before(async () => {
    const entries = Object.entries(CLIENT_DEFECTS);
    const runs = await pool(entries, 3, ([defect, check]) =>
      settle(
        runClientSuite(
          {
            command: clientCommand(defect),
            transport: STDIO_CLIENT_DEFECTS.has(defect) ? 'stdio' : 'socket',
          },
          { concurrency: 8, checks: [check] },
        ),
      ),
    );
    entries.forEach(([defect], i) => results.set(defect, runs[i]!));
  });
  for (const [defect, check] of Object.entries(CLIENT_DEFECTS)) {
    it(`--defect ${defect} fails only ${check}`, () => {
      const result = resultOf(results, defect);
      assert.deepEqual(failing(result), [check], explain(result));
      assert.deepEqual(result.report.verdict.harnessErrors, []);
    });
  }
});
