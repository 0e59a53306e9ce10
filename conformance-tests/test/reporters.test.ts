/** Report formats: JUnit XML read back by a strict XML parser, the Markdown summary, baselines. */
import assert from 'node:assert/strict';
import { formatBaseline, parseBaseline } from '../src/checks/baseline.js';
import { CHECKS, type CheckDef } from '../src/checks/registry.js';
import { decide, summarize, type Report } from '../src/checks/report.js';
import type { CheckResult, Status } from '../src/checks/results.js';
import { formatJunit, formatMarkdown, formatPretty } from '../src/reporters/index.js';
import { all, parseXml } from './xml.js';

function daemonCheck(tier: CheckDef['tier'], skip = 0): CheckDef {
  const def = CHECKS.filter((c) => c.role === 'daemon' && c.tier === tier)[skip];
  assert.ok(def, `the registry has a daemon ${tier} check`);
  return def;
}

function result(def: CheckDef, status: Status, messages: string[] = []): CheckResult {
  return {
    id: def.id,
    tier: def.tier,
    role: def.role,
    spec: `spec/${def.spec}`,
    title: def.title,
    status,
    messages,
    scenarios: ['some-scenario'],
  };
}

function report(
  checks: CheckResult[],
  { baseline = [] as string[], harnessErrors = [] as string[], strict = false } = {},
): Report {
  return {
    tool: 'arbor-conformance',
    role: 'daemon',
    target: 'stdio: my-daemon --stdio',
    protocolVersion: 1,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1234,
    summary: summarize(checks),
    verdict: decide(checks, harnessErrors, baseline, strict),
    checks,
    scenarios: [],
  };
}

// A message as a broken daemon might cause it: markup, an entity, a CDATA end, controls, a lone surrogate.
const HOSTILE = 'got <frame a="1" b=\'2\'> & ]]> \u0000\u0007\u001b[31m \ud800 end';

describe('JUnit report', () => {
  const mustA = daemonCheck('MUST', 0);
  const mustB = daemonCheck('MUST', 1);
  const mustC = daemonCheck('MUST', 2);
  const mustD = daemonCheck('MUST', 3);
  const should = daemonCheck('SHOULD');

  it('is well-formed XML with one testcase per check and counts that match', () => {
    const r = report([
      result(mustA, 'PASS'),
      result(mustB, 'FAIL', [HOSTILE, 'second message']),
      result(mustC, 'SKIPPED', ['needs --socket']),
      result(should, 'FAIL', ['a warning']),
    ]);
    const doc = parseXml(formatJunit(r));
    assert.equal(doc.name, 'testsuites');
    const [suite] = all(doc, 'testsuite');
    const cases = all(doc, 'testcase');
    assert.deepEqual(
      cases.map((c) => c.attributes.name),
      [mustA.id, mustB.id, mustC.id, should.id],
    );
    for (const el of [doc, suite!]) {
      assert.equal(el.attributes.tests, '4');
      assert.equal(el.attributes.failures, '1');
      assert.equal(el.attributes.skipped, '1');
      assert.equal(el.attributes.errors, '0');
    }
    const failure = all(cases[1]!, 'failure')[0]!;
    // Markup survives as text; characters XML cannot carry become U+FFFD.
    assert.equal(
      failure.attributes.message,
      'got <frame a="1" b=\'2\'> & ]]> \ufffd\ufffd\ufffd[31m \ufffd end',
    );
    assert.match(failure.text, /second message/);
    assert.match(failure.text, new RegExp(`\\(spec/${mustB.spec.replace('.', '\\.')}\\)`));
    assert.equal(all(cases[2]!, 'skipped')[0]!.attributes.message, 'needs --socket');
    // A SHOULD failure does not fail the run without --strict: not a <failure> either.
    assert.equal(all(cases[3]!, 'failure').length, 0);
    assert.match(all(cases[3]!, 'system-out')[0]!.text, /^WARNING: .*a warning/s);
  });

  it('agrees with the verdict: SHOULD fails under --strict, baselined failures skip, stale entries fail', () => {
    const strict = parseXml(
      formatJunit(report([result(should, 'FAIL', ['late'])], { strict: true })),
    );
    assert.equal(all(strict, 'failure').length, 1);

    const doc = parseXml(
      formatJunit(
        report([result(mustA, 'FAIL', ['known']), result(mustB, 'PASS')], {
          baseline: [mustA.id, mustB.id, 'daemon.gone.away'],
        }),
      ),
    );
    const byName = new Map(all(doc, 'testcase').map((c) => [c.attributes.name, c]));
    assert.match(
      all(byName.get(mustA.id)!, 'skipped')[0]!.attributes.message!,
      /^expected failure \(baseline\): known/,
    );
    assert.match(
      all(byName.get(mustB.id)!, 'failure')[0]!.attributes.message!,
      /stale baseline entry: this check passes now/,
    );
    assert.match(
      all(byName.get('baseline: daemon.gone.away')!, 'failure')[0]!.attributes.message!,
      /daemon\.gone\.away no such check/,
    );
    assert.equal(doc.attributes.failures, '2');
  });

  it('reports harness errors as <error>', () => {
    const doc = parseXml(
      formatJunit(report([result(mustD, 'PASS')], { harnessErrors: ['the suite sent <junk>'] })),
    );
    const errors = all(doc, 'error');
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.attributes.message, 'the suite sent <junk>');
    assert.equal(doc.attributes.errors, '1');
  });
});

describe('Markdown summary', () => {
  const mustA = daemonCheck('MUST', 0);
  const mustB = daemonCheck('MUST', 1);
  const should = daemonCheck('SHOULD');

  it('leads with the verdict and counts, lists failures with their messages, escapes markup', () => {
    const md = formatMarkdown(
      report([
        result(mustA, 'PASS'),
        result(mustB, 'FAIL', ['a | b <script>x</script>\nnext line']),
        result(should, 'FAIL', ['slow']),
      ]),
    );
    const lines = md.split('\n');
    assert.equal(lines[0], '## arbor-conformance daemon: FAIL');
    assert.ok(lines.includes('| 1 | 1 | 1 | 0 | 0 |'), md);
    const failures = md.slice(md.indexOf('### Failures'), md.indexOf('### Warnings'));
    assert.match(failures, new RegExp(`\`${mustB.id.replace(/\./g, '\\.')}\``));
    assert.ok(failures.includes('a \\| b \\<script\\>x\\</script\\> next line'), failures);
    assert.doesNotMatch(md, /<script>/);
    assert.match(
      md.slice(md.indexOf('### Warnings'), md.indexOf('<details>')),
      /- `[^`]+` \(SHOULD[^\n]*\n {2}- slow\n/,
    );
  });

  it('names stale baseline entries and says PASS when all is well', () => {
    const stale = formatMarkdown(report([result(mustA, 'PASS')], { baseline: [mustA.id] }));
    assert.match(stale, /### Stale baseline entries[^\n]*\n\n- `[^`]+`: passes now/);
    const clean = formatMarkdown(report([result(mustA, 'PASS')]));
    assert.match(clean, /^## arbor-conformance daemon: PASS\n/);
    assert.doesNotMatch(clean, /### /);
  });
});

describe('baselines', () => {
  const mustA = daemonCheck('MUST', 0);
  const mustB = daemonCheck('MUST', 1);
  const clientCheck = CHECKS.find((c) => c.role === 'client')!;

  it('reads "- id" lists, comments and JSON arrays, and refuses anything else', () => {
    assert.deepEqual(
      parseBaseline(
        '# c\nexpected:\n- daemon.jsonrpc.parse-error  # why\n\n- "client.tree.rebuild"\n',
      ),
      ['daemon.jsonrpc.parse-error', 'client.tree.rebuild'],
    );
    assert.deepEqual(parseBaseline('["daemon.jsonrpc.parse-error"]'), [
      'daemon.jsonrpc.parse-error',
    ]);
    assert.throws(() => parseBaseline('daemon.jsonrpc.parse-error\n'), /expected "- <check-id>"/);
    assert.throws(() => parseBaseline('[1]'), /array of check ids/);
    assert.throws(() => parseBaseline('[oops'), /must parse/);
  });

  it('a written baseline reads back as the failing checks', () => {
    const checks = [result(mustA, 'FAIL', ['x']), result(mustB, 'PASS')];
    assert.deepEqual(parseBaseline(formatBaseline(checks, 'daemon, test')), [mustA.id]);
  });

  it('an entry goes stale when its check passes, no longer exists, or is not judged by this role', () => {
    const v = report([result(mustA, 'FAIL'), result(mustB, 'PASS')], {
      baseline: [mustA.id, mustB.id, 'daemon.renamed.check', clientCheck.id],
    }).verdict;
    assert.equal(v.exitCode, 1);
    assert.deepEqual(v.failed, []);
    assert.deepEqual(v.stale, [
      { id: mustB.id, reason: 'passes now' },
      { id: 'daemon.renamed.check', reason: 'no such check' },
      { id: clientCheck.id, reason: 'is a client check, not judged in this run' },
    ]);
    const pretty = formatPretty(report([result(mustB, 'PASS')], { baseline: [mustB.id] }));
    assert.match(pretty, new RegExp(`^STALE +MUST +${mustB.id.replace(/\./g, '\\.')}`, 'm'));
    assert.match(pretty, /verdict: FAIL/);
  });

  it('a baselined failure does not fail the run', () => {
    const v = report([result(mustA, 'FAIL')], { baseline: [mustA.id] }).verdict;
    assert.deepEqual(v, { exitCode: 0, failed: [], stale: [], harnessErrors: [] });
  });
});
