/**
 * Where rules are written: `permissions` in the daemon's config file (the
 * user's rules) and in a workspace's `.arbor/settings.json`. One schema for
 * both; daemon/schema/workspace-settings.schema.json is generated from it.
 * Schemas only: the config loads this module at startup.
 */
import { z } from 'zod';
import { HookLists } from '../../hooks/hookConfig.js';

const RuleList = z.array(z.string().min(1).max(1000)).max(500);

export const RuleLists = z
  .object({
    allow: RuleList.optional().describe('Calls that run without asking (in default mode)'),
    ask: RuleList.optional().describe('Calls that always ask, even in auto mode'),
    deny: RuleList.optional().describe('Calls that never run; deny wins over ask and allow'),
  })
  .strict()
  .describe(
    'Permission rules: `tool` or `tool(specifier)`, e.g. run_command(npm test:*), write_file(src/**), web_fetch(domain:docs.python.org), mcp__github__*',
  );
export type RuleLists = z.infer<typeof RuleLists>;

/** The config file's `permissions`: the user's rules, and whether workspace files may allow. */
export const UserPermissions = RuleLists.extend({
  trustWorkspaceAllow: z
    .boolean()
    .optional()
    .describe(
      "Apply the allow rules of workspaces' .arbor/settings.json too (default false: a workspace file may only ask and deny)",
    ),
}).strict();
export type UserPermissions = z.infer<typeof UserPermissions>;

export const WorkspaceSettings = z
  .object({
    $schema: z.string().optional(),
    permissions: RuleLists.optional(),
    // Applied only when the config sets hooks.workspaceFile (hooks/workspaceHooks.ts).
    hooks: HookLists.optional(),
  })
  .strict()
  .describe("A workspace's .arbor/settings.json");
export type WorkspaceSettings = z.infer<typeof WorkspaceSettings>;
