/**
 * No false positives: a client that sends what the spec allows, though not
 * what the reference client sends by default, passes the whole client suite.
 * Each variant of the reference client (`--variant <name>`) is one such
 * legitimate variation; a check that flags it is a bug of the suite.
 */
import assert from 'node:assert/strict';
import { timeouts } from '../src/harness/connection.js';
import { runClientSuite, type SuiteResult } from '../src/suite.js';
import { CLIENT, pool } from './helpers.js';

/** variant → the transport it runs over (both, where the variation is about the bytes). */
const VARIANTS: Record<string, 'stdio' | 'socket'> = {
  'version-in-initialization-options': 'socket',
  'no-version': 'stdio',
  'string-ids': 'socket',
  'reused-ids': 'stdio',
  'extra-headers': 'stdio',
  meta: 'socket',
  'unknown-fields': 'socket',
  'byte-writes': 'stdio',
  'coalesced-writes': 'socket',
  'exit-without-shutdown': 'stdio',
};

const command = (variant: string): string =>
  `"${process.execPath}" "${CLIENT}" --variant ${variant}`;

const failures = (result: SuiteResult): string[] =>
  result.report.checks
    .filter((c) => c.status === 'FAIL')
    .map((c) => `${c.id}: ${c.messages.join(' | ')}`);

describe('legitimate client variations pass the client suite', function () {
  this.timeout(300_000);
  const results = new Map<string, SuiteResult>();
  let requestMs = timeouts.requestMs;
  before(async () => {
    requestMs = timeouts.requestMs;
    timeouts.requestMs = 8000; // several clients share the machine
    const entries = Object.entries(VARIANTS);
    const runs = await pool(entries, 3, ([variant, transport]) =>
      runClientSuite({ command: command(variant), transport }, { concurrency: 8 }),
    );
    entries.forEach(([variant], i) => results.set(variant, runs[i]!));
  });
  after(() => {
    timeouts.requestMs = requestMs;
  });

  for (const [variant, transport] of Object.entries(VARIANTS)) {
    it(`--variant ${variant} (${transport}) fails no check`, () => {
      const result = results.get(variant)!;
      assert.deepEqual(failures(result), []);
      assert.deepEqual(result.report.verdict.harnessErrors, []);
      assert.equal(result.report.verdict.exitCode, 0);
    });
  }

  it('the variations are really sent: protocolVersion only under initializationOptions', () => {
    const run = results.get('version-in-initialization-options')!;
    const initialize = run.output.runs
      .find((r) => r.id === 'client-initialize')!
      .transcript.entries.find((e) => e.direction === 'impl→harness' && e.kind === 'frame');
    const params = (JSON.parse(initialize!.text) as { params: Record<string, unknown> }).params;
    assert.equal(params.protocolVersion, undefined);
    assert.deepEqual((params.initializationOptions as Record<string, unknown>).protocolVersion, 1);
  });
});
