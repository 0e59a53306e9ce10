/**
 * Permission rules (protocol 1.1, approvals.md#permission-rules): allow, ask
 * and deny rules by tool and argument pattern, which the permission gate
 * applies before its mode × category table.
 */
import { z } from 'zod';
import { message } from './base.js';

export const PermissionRuleText = z
  .string()
  .min(1)
  .max(1000)
  .describe(
    'A rule as the user writes it: a tool name (`*` matches any run of characters, e.g. `mcp__github__*`), optionally followed by a specifier in parentheses: a command (`run_command(npm test:*)`: `:*` matches any continuation), a path glob relative to the workspace (`write_file(src/**)`), or a domain (`web_fetch(domain:example.com)`)',
  );

export const RuleEffect = z
  .enum(['allow', 'ask', 'deny'])
  .describe('allow: run without asking; ask: always ask; deny: never run');
export type RuleEffect = z.infer<typeof RuleEffect>;

export const RuleSource = z
  .enum(['user', 'workspace', 'remembered'])
  .describe(
    "user: the daemon's configuration; workspace: the workspace's .arbor/settings.json; remembered: saved by an `allowAlways` answer for this workspace",
  );
export type RuleSource = z.infer<typeof RuleSource>;

export const DecidingRule = message({
  effect: RuleEffect,
  rule: PermissionRuleText,
  source: RuleSource,
}).describe('The permission rule that decided a tool call');
export type DecidingRule = z.infer<typeof DecidingRule>;

export const PermissionRuleInfo = message({
  effect: RuleEffect,
  rule: PermissionRuleText,
  source: RuleSource,
  ignored: z
    .string()
    .max(500)
    .optional()
    .describe(
      'Present when the rule is not applied, saying why (e.g. an untrusted workspace file)',
    ),
}).describe('A permission rule in force for a session');
export type PermissionRuleInfo = z.infer<typeof PermissionRuleInfo>;
