/**
 * Baselines: the check ids an implementation is known to fail. A baselined
 * failure does not fail a run; an entry that went stale (the check passes now,
 * or no longer exists) does, so a baseline can only shrink and never rot.
 */
import type { CheckResult } from './results.js';

export class BaselineError extends Error {}

/**
 * One check id per line as a YAML-style list (`- id`, `#` comments, one `key:`
 * line), or a JSON array of ids. A hand-written reader instead of a YAML
 * dependency: the format is a flat list and nothing more is accepted. Ids are
 * not looked up here: an id the suite does not know is a stale entry, judged
 * with the run (decide() in report.ts), not a usage error.
 */
export function parseBaseline(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new BaselineError(`a JSON baseline must parse: ${(error as Error).message}`);
    }
    if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string'))
      throw new BaselineError('a JSON baseline must be an array of check ids');
    return parsed;
  }
  const ids: string[] = [];
  for (const [n, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '' || /^[\w-]+:$/.test(line)) continue; // blank, comment, or a list's key line
    const match = /^-\s+["']?([\w.-]+)["']?$/.exec(line);
    if (!match)
      throw new BaselineError(
        `baseline line ${n + 1}: expected "- <check-id>", got ${JSON.stringify(raw)}`,
      );
    ids.push(match[1]!);
  }
  return ids;
}

/** A baseline of every check that failed, in the format parseBaseline reads. */
export function formatBaseline(checks: readonly CheckResult[], about: string): string {
  const failed = checks.filter((c) => c.status === 'FAIL');
  return [
    `# arbor-conformance baseline: checks expected to fail (${about}).`,
    '# A baselined failure does not fail the run; an entry whose check passes, or no',
    '# longer exists, does: delete it then. Use with --baseline <this file>.',
    ...failed.map((c) => `- ${c.id}  # ${c.tier} ${c.spec}`),
    '',
  ].join('\n');
}
