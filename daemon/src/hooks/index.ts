/** User lifecycle hooks: UserPromptSubmit, PreToolUse, PostToolUse, Stop, SessionStart. */
export { HookRunner, TurnHooks, MAX_STOP_CONTINUES } from './hookRunner.js';
export { HookLists, UserHooks, DEFAULT_HOOK_TIMEOUT_MS } from './hookConfig.js';
