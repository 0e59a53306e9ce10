/**
 * The suite proves itself: the reference fixtures pass, and every broken
 * fixture fails exactly the check its one defect violates, and nothing else.
 */
import assert from 'node:assert/strict';
import { getCheck } from '../src/checks/registry.js';
import { timeouts } from '../src/harness/connection.js';
import { streamBounds } from '../src/scenarios/daemon/bounds.js';
import { runClientSuite, runDaemonSuite, type SuiteResult } from '../src/suite.js';
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
  'exit-code-after-shutdown': { check: 'daemon.lifecycle.exit-code', mode: 'stdio' },
  'serve-after-shutdown': { check: 'daemon.lifecycle.after-shutdown', mode: 'socket' },
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
  'tree-replace': 'client.tree.rebuild',
  'ignore-seq-gap': 'client.events.seq-gap-reattach',
  'ignore-version': 'client.version.unsupported-stops',
  'budget-ends-turn': 'client.budget.not-turn-end',
  'apply-duplicates': 'client.events.duplicate-ignored',
};

async function daemonRun(
  defect: string | undefined,
  mode: 'stdio' | 'socket',
): Promise<SuiteResult> {
  if (mode === 'stdio')
    return runDaemonSuite({ kind: 'stdio', command: daemonCommand(defect) }, { concurrency: 6 });
  const daemon = await listeningDaemon(defect);
  try {
    return await runDaemonSuite(daemon.target, { concurrency: 8 });
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
      'daemon.sessions.detached-resume',
      'daemon.sessions.events-to-all-attached',
      'daemon.sessions.slow-consumer-detached',
      'daemon.transport.preauth-deadline',
      'daemon.transport.preauth-frame-limit',
      'daemon.transport.socket-token',
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
      assert.deepEqual(skipped, []);
    });
  }
});

describe('each broken daemon fails exactly its check', function () {
  this.timeout(120_000);
  streamLess();
  const results = new Map<string, SuiteResult>();
  before(async () => {
    const entries = Object.entries(DAEMON_DEFECTS);
    const runs = await pool(entries, 6, ([defect, { mode }]) => daemonRun(defect, mode));
    entries.forEach(([defect], i) => results.set(defect, runs[i]!));
  });
  for (const [defect, { check }] of Object.entries(DAEMON_DEFECTS)) {
    it(`--defect ${defect} fails only ${check}`, () => {
      const result = results.get(defect)!;
      assert.deepEqual(failing(result), [check], explain(result));
      assert.deepEqual(result.report.verdict.harnessErrors, []);
      // A SHOULD failure alone is a warning: it fails a run only with --strict.
      assert.equal(result.report.verdict.exitCode, getCheck(check).tier === 'SHOULD' ? 0 : 1);
    });
  }
});

describe('each broken client fails exactly its check', function () {
  this.timeout(120_000);
  const results = new Map<string, SuiteResult>();
  before(async () => {
    const entries = Object.keys(CLIENT_DEFECTS);
    const runs = await pool(entries, 3, (defect) =>
      runClientSuite({ command: clientCommand(defect), transport: 'socket' }, { concurrency: 8 }),
    );
    entries.forEach((defect, i) => results.set(defect, runs[i]!));
  });
  for (const [defect, check] of Object.entries(CLIENT_DEFECTS)) {
    it(`--defect ${defect} fails only ${check}`, () => {
      const result = results.get(defect)!;
      assert.deepEqual(failing(result), [check], explain(result));
      assert.deepEqual(result.report.verdict.harnessErrors, []);
    });
  }
});
