/**
 * JUnit XML, the report format every CI understands: one testcase per check.
 * Written by hand rather than with an XML builder: the document is four element
 * types deep, and what a builder would add is escaping, done below, including
 * the replacement of characters XML 1.0 cannot carry at all (a daemon's garbage
 * quoted in a message), where builders throw. test/reporters.test.ts reads the
 * output back with a strict XML parser.
 *
 * The verdict decides, not the raw status: a SHOULD failure without --strict is
 * a passing testcase with the warning in <system-out>; a baselined failure is
 * <skipped>; a stale baseline entry is a <failure>, so the CI's test view and the
 * exit code always agree.
 */
import type { Report } from '../checks/report.js';
import type { CheckResult } from '../checks/results.js';
import { outcomeOf, staleWithoutCheck } from './outcome.js';

// Everything outside XML 1.0's Char production (C0 controls but tab/LF/CR, lone surrogates, U+FFFE/F).
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const ENTITIES: Record<string, string> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  '"': '&quot;',
  "'": '&apos;',
  '\n': '&#10;',
  '\r': '&#13;',
  '\t': '&#9;',
};

/** Escaped for element content. */
export function xmlText(s: string): string {
  return s.replace(NOT_XML_CHAR, '\uFFFD').replace(/[<>&]/g, (ch) => ENTITIES[ch]!);
}

/** Escaped for a double-quoted attribute; line breaks kept as character references. */
export function xmlAttr(s: string): string {
  return s.replace(NOT_XML_CHAR, '\uFFFD').replace(/[<>&"'\n\r\t]/g, (ch) => ENTITIES[ch]!);
}

interface Case {
  name: string;
  classname: string;
  /** Already-rendered child elements. */
  body: string[];
}

function caseFor(c: CheckResult, report: Report): Case {
  const about = `${c.title} [${c.tier}] (${c.spec})`;
  const messages = c.messages.join('\n');
  const name = c.id;
  const classname = `arbor-conformance.${c.id.slice(0, c.id.lastIndexOf('.'))}`;
  switch (outcomeOf(c, report)) {
    case 'fail':
      return {
        name,
        classname,
        body: [
          `<failure message="${xmlAttr(c.messages[0] ?? c.title)}" type="${c.tier}">${xmlText(`${about}\n${messages}`)}</failure>`,
        ],
      };
    case 'stale':
      return {
        name,
        classname,
        body: [
          `<failure message="stale baseline entry: this check passes now; remove it from the baseline" type="baseline">${xmlText(about)}</failure>`,
        ],
      };
    case 'xfail':
      return {
        name,
        classname,
        body: [
          `<skipped message="${xmlAttr(`expected failure (baseline): ${c.messages[0] ?? ''}`)}"/>`,
        ],
      };
    case 'skip':
      return { name, classname, body: [`<skipped message="${xmlAttr(messages)}"/>`] };
    case 'warn':
      return {
        name,
        classname,
        body: [`<system-out>${xmlText(`WARNING: ${about} not met\n${messages}`)}</system-out>`],
      };
    case 'pass':
      return { name, classname, body: [] };
  }
}

export function formatJunit(report: Report): string {
  const cases = report.checks.map((c) => caseFor(c, report));
  for (const s of staleWithoutCheck(report))
    cases.push({
      name: `baseline: ${s.id}`,
      classname: 'arbor-conformance.baseline',
      body: [
        `<failure message="${xmlAttr(`stale baseline entry: ${s.id} ${s.reason}; remove it from the baseline`)}" type="baseline"/>`,
      ],
    });
  const errors = report.verdict.harnessErrors;
  if (errors.length > 0)
    cases.push({
      name: 'harness',
      classname: 'arbor-conformance.harness',
      body: errors.map(
        (e) =>
          `<error message="${xmlAttr(e.split('\n')[0] ?? e)}" type="harness">${xmlText(e)}</error>`,
      ),
    });
  const count = (tag: string): number =>
    cases.filter((k) => k.body.some((b) => b.startsWith(`<${tag}`))).length;
  const totals = `tests="${cases.length}" failures="${count('failure')}" errors="${count('error')}" skipped="${count('skipped')}"`;
  const suiteName = xmlAttr(`arbor-conformance ${report.role}: ${report.target}`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="arbor-conformance" ${totals} time="${(report.durationMs / 1000).toFixed(3)}">`,
    `  <testsuite name="${suiteName}" ${totals} time="${(report.durationMs / 1000).toFixed(3)}" timestamp="${xmlAttr(report.startedAt)}">`,
    `    <properties><property name="protocolVersion" value="${report.protocolVersion}"/></properties>`,
    ...cases.map((k) => {
      const open = `    <testcase name="${xmlAttr(k.name)}" classname="${xmlAttr(k.classname)}"`;
      return k.body.length === 0 ? `${open}/>` : `${open}>${k.body.join('')}</testcase>`;
    }),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
