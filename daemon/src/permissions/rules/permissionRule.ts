/**
 * One permission rule, parsed and compiled: `Tool` or `Tool(specifier)`
 * (approvals.md#permission-rules). A rule that cannot be read is an error
 * naming it, never a rule that silently matches nothing.
 */
import type { DecidingRule, RuleEffect, RuleSource } from '@arbor/protocol';
import { globToRegExp } from '../../tools/workspace/pathPatterns.js';
import { commandWords, withoutAssignments, type CommandWords } from './commandWords.js';
import { subjectKind, subjectKinds, type RuleSubject } from './ruleSubjects.js';

type Specifier =
  | { kind: 'command'; words: readonly string[]; prefix: boolean }
  | { kind: 'path'; pattern: RegExp }
  | { kind: 'domain'; pattern: RegExp };

export class PermissionRule {
  private constructor(
    readonly effect: RuleEffect,
    readonly source: RuleSource,
    readonly text: string,
    private readonly tool: RegExp,
    private readonly specifier: Specifier | undefined,
  ) {}

  /** Throws a RuleSyntaxError saying what is wrong with `text`. */
  static parse(text: string, effect: RuleEffect, source: RuleSource): PermissionRule {
    const trimmed = text.trim();
    const match = /^([A-Za-z0-9_*-]+)(?:\((.*)\))?$/s.exec(trimmed);
    if (match === null) {
      throw new RuleSyntaxError(
        text,
        'a rule is a tool name (letters, digits, _ - and * as a wildcard), optionally followed by a specifier in parentheses, e.g. run_command(npm test:*)',
      );
    }
    const [, toolPattern, specifierText] = match as unknown as [string, string, string | undefined];
    const tool = new RegExp(`^${toolPattern.split('*').map(escapeRegExp).join('.*')}$`);
    if (specifierText === undefined) {
      return new PermissionRule(effect, source, trimmed, tool, undefined);
    }
    const kind = subjectKind(toolPattern);
    if (kind === undefined) {
      const takers = subjectKinds().map(([name]) => name);
      throw new RuleSyntaxError(
        text,
        `${toolPattern} takes no specifier in parentheses; only ${takers.join(', ')} do`,
      );
    }
    const spec = specifierText.trim();
    if (spec === '') throw new RuleSyntaxError(text, 'the specifier in parentheses is empty');
    return new PermissionRule(effect, source, trimmed, tool, compileSpecifier(text, kind, spec));
  }

  get deciding(): DecidingRule {
    return { effect: this.effect, rule: this.text, source: this.source };
  }

  namesTool(tool: string): boolean {
    return this.tool.test(tool);
  }

  /** Whether the rule covers the whole call: every simple command, every path. */
  coversAll(tool: string, subject: RuleSubject | undefined, segment?: readonly string[]): boolean {
    if (!this.tool.test(tool)) return false;
    const spec = this.specifier;
    if (spec === undefined) return true;
    if (subject === undefined || subject.kind !== spec.kind) return false;
    switch (spec.kind) {
      case 'command':
        return segment !== undefined && wordsMatch(spec, segment);
      case 'path':
        return (
          subject.kind === 'path' &&
          subject.paths.length > 0 &&
          subject.paths.every(
            (p) =>
              p.lexical !== undefined &&
              p.real !== undefined &&
              pathMatches(spec.pattern, p.lexical) &&
              pathMatches(spec.pattern, p.real),
          )
        );
      case 'domain':
        return subject.kind === 'domain' && spec.pattern.test(subject.host);
    }
  }

  /** Whether the rule touches any part of the call: a command anywhere in the line, any path. */
  touchesAny(tool: string, subject: RuleSubject | undefined, words?: CommandWords): boolean {
    if (!this.tool.test(tool)) return false;
    const spec = this.specifier;
    if (spec === undefined) return true;
    if (subject === undefined || subject.kind !== spec.kind) return false;
    switch (spec.kind) {
      case 'command': {
        const { segments, opaque } =
          words ?? commandWords((subject as { command: string }).command);
        return segments.some((segment) => {
          // What the shell may run from a line it hides things in: every word onwards.
          const starts = opaque ? segment.map((_, i) => segment.slice(i)) : [segment];
          return starts.some(
            (start) => wordsMatch(spec, start) || wordsMatch(spec, withoutAssignments(start)),
          );
        });
      }
      case 'path':
        return (
          subject.kind === 'path' &&
          subject.paths.some(
            (p) =>
              (p.lexical !== undefined && pathMatches(spec.pattern, p.lexical)) ||
              (p.real !== undefined && pathMatches(spec.pattern, p.real)),
          )
        );
      case 'domain':
        return subject.kind === 'domain' && spec.pattern.test(subject.host);
    }
  }
}

export class RuleSyntaxError extends Error {
  constructor(
    readonly rule: string,
    why: string,
  ) {
    super(`${JSON.stringify(rule)}: ${why}`);
    this.name = 'RuleSyntaxError';
  }
}

function compileSpecifier(text: string, kind: Specifier['kind'], spec: string): Specifier {
  switch (kind) {
    case 'command': {
      const prefix = spec.endsWith(':*');
      const body = prefix ? spec.slice(0, -2) : spec;
      const parsed = commandWords(body);
      if (parsed.opaque || parsed.segments.length !== 1) {
        throw new RuleSyntaxError(
          text,
          'a command specifier is one simple command (no &&, |, ;, redirections or substitutions), optionally ending in :* to match any continuation',
        );
      }
      return { kind, words: parsed.segments[0]!, prefix };
    }
    case 'path': {
      let glob = spec.replace(/^\.\//, '').replace(/^\//, '');
      if (glob.endsWith('/')) glob += '**';
      if (glob === '' || glob.split('/').includes('..')) {
        throw new RuleSyntaxError(text, 'a path specifier is a glob relative to the workspace');
      }
      // Like .gitignore: a pattern without a slash matches the name at any depth.
      if (!glob.includes('/')) glob = `**/${glob}`;
      return { kind, pattern: globToRegExp(glob, { anchored: true }) };
    }
    case 'domain': {
      const host = /^domain:([A-Za-z0-9*.-]+)$/.exec(spec)?.[1]?.toLowerCase();
      if (host === undefined) {
        throw new RuleSyntaxError(
          text,
          'a web_fetch specifier is domain:<host>, e.g. domain:docs.python.org or domain:*.example.com',
        );
      }
      // `*.example.com` covers subdomains only; `example.com` that host only.
      const source = host.split('*').map(escapeRegExp).join('[a-z0-9.-]*');
      return { kind, pattern: new RegExp(`^${source}$`) };
    }
  }
}

function wordsMatch(spec: { words: readonly string[]; prefix: boolean }, words: readonly string[]) {
  if (spec.prefix ? words.length < spec.words.length : words.length !== spec.words.length) {
    return false;
  }
  return spec.words.every((word, i) => words[i] === word);
}

/** A directory matches what is inside it too: `src/**` and `src` both cover `src/a.ts`. */
function pathMatches(pattern: RegExp, path: string): boolean {
  if (pattern.test(path)) return true;
  const parts = path.split('/');
  for (let i = parts.length - 1; i > 0; i--) {
    if (pattern.test(parts.slice(0, i).join('/'))) return true;
  }
  return false;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
