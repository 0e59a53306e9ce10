/**
 * Where hooks are written: `hooks` in the daemon's config file (the user's)
 * and in a workspace's `.arbor/settings.json` (applied only when the config
 * sets `hooks.workspaceFile`: a cloned repository must not run commands on
 * the first message). Schemas only: the config loads this module at startup.
 */
import { z } from 'zod';

/** How long a hook may run before its process group is killed (default). */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

const Command = z
  .string()
  .min(1)
  .max(4000)
  .describe(
    'Shell command (/bin/sh -c) run in the workspace root, sandboxed like run_command; the event comes as JSON on stdin',
  );
const TimeoutMs = z
  .number()
  .int()
  .min(1)
  .max(600_000)
  .optional()
  .describe(
    `Killed (with its process group) after this many ms (default ${DEFAULT_HOOK_TIMEOUT_MS})`,
  );

/** A hook of PreToolUse / PostToolUse: it may name the tools it is for. */
const ToolHook = z
  .object({
    matcher: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe(
        'Tool names it runs for: `*` matches any characters, `|` separates alternatives, e.g. "run_command|write_file", "mcp__github__*"; absent: every tool',
      ),
    command: Command,
    timeoutMs: TimeoutMs,
  })
  .strict();

/** A hook of the other events: there is no tool to match. */
const TurnHook = z.object({ command: Command, timeoutMs: TimeoutMs }).strict();

const MAX_HOOKS_PER_EVENT = 20;

export const HookLists = z
  .object({
    UserPromptSubmit: z
      .array(TurnHook)
      .max(MAX_HOOKS_PER_EVENT)
      .optional()
      .describe(
        'Before the turn\'s first model call: "deny" ends the turn, "context" reaches the model',
      ),
    PreToolUse: z
      .array(ToolHook)
      .max(MAX_HOOKS_PER_EVENT)
      .optional()
      .describe(
        'Before the permission gate: "allow" / "ask" / "deny", or "args" to rewrite the call',
      ),
    PostToolUse: z
      .array(ToolHook)
      .max(MAX_HOOKS_PER_EVENT)
      .optional()
      .describe(
        'After a call ran: "context" (or a deny "reason") is added to the result the model sees',
      ),
    Stop: z
      .array(TurnHook)
      .max(MAX_HOOKS_PER_EVENT)
      .optional()
      .describe(
        'When the model answers: "deny" with a "reason" makes it go on (at most 3 times a turn)',
      ),
    SessionStart: z
      .array(TurnHook)
      .max(MAX_HOOKS_PER_EVENT)
      .optional()
      .describe('At a session\'s first turn in this daemon: "context" reaches the model'),
  })
  .strict()
  .describe(
    'Lifecycle hooks: commands run at UserPromptSubmit, PreToolUse, PostToolUse, Stop, SessionStart',
  );
export type HookLists = z.infer<typeof HookLists>;

export type HookEvent = keyof HookLists;
export type HookCommand = z.infer<typeof ToolHook>;

/** The config file's `hooks`: the user's hooks, and whether workspace files may add theirs. */
export const UserHooks = HookLists.extend({
  workspaceFile: z
    .boolean()
    .optional()
    .describe(
      "Also run the hooks of a workspace's .arbor/settings.json (default false: a file that came with a cloned repository could run any command as you)",
    ),
}).strict();
export type UserHooks = z.infer<typeof UserHooks>;

/**
 * A hook's answer on stdout (empty stdout: no opinion). Keys it does not
 * know are ignored, as are keys its event does not use.
 */
export const HookAnswer = z.object({
  /** block: Claude Code's word for deny. */
  decision: z.enum(['allow', 'ask', 'deny', 'block']).optional(),
  reason: z.string().optional(),
  args: z.record(z.string(), z.unknown()).optional(),
  context: z.string().optional(),
});
export type HookAnswer = z.infer<typeof HookAnswer>;
