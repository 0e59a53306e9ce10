/** System prompts of the root loop and of subtask loops. */
import type { PermissionMode } from '@arbor/protocol';
import { FINISH_SUBTASK, RUN_SUBTASK } from './subtaskTools.js';

/**
 * The session's permission mode, told to the model at the start of each loop
 * so it plans accordingly. The gate is what enforces it: the mode may change
 * while the turn runs, and the gate reads it at every call.
 */
const MODE_LINES: Record<PermissionMode, string> = {
  plan: 'The session is in plan mode: only tools that read run; tools that write files, run commands or reach outside the workspace are blocked. Investigate, then propose a plan for the user instead of making changes.',
  default:
    'Tools that only read run at once; tools that write files, run commands or reach outside the workspace ask the user first. If the user denies a call, do not retry the same call.',
  auto: 'Tools run without asking the user, except the ones the user marked to always ask.',
};

const MEMORY_LINE =
  'The turn has a shared memory (memory_list, memory_read, memory_write); each finished subtask stores its result there as task:<id>.';

export function rootSystemPrompt(options: {
  canSpawn: boolean;
  hasTools: boolean;
  permissionMode: PermissionMode;
  /** Lines naming the session's skills (commands/skillsPrompt.ts); the model reads them on demand. */
  skills?: readonly string[];
}): string {
  const lines = ['You are Arbor, a coding agent working in the user’s workspace.'];
  if (!options.hasTools) {
    lines.push('Answer the user directly.');
    return lines.join('\n');
  }
  lines.push(
    'Decide the shape of your work: answer directly when you can, call a tool when you need one, and call several tools in one turn when they are independent (they run concurrently).',
  );
  if (options.canSpawn) {
    lines.push(
      `For larger work, decompose with ${RUN_SUBTASK}: each subtask starts fresh with only its instructions, so make them self-contained. For independent work, emit several ${RUN_SUBTASK} calls in one turn — they run concurrently.`,
      'Siblings spawned in the same turn cannot see each other’s results. If one subtask depends on another, run them in separate turns: wait for the first result, then spawn the next.',
    );
  }
  lines.push(
    MODE_LINES[options.permissionMode],
    MEMORY_LINE,
    ...(options.skills ?? []),
    'When you are done, answer the user in plain text without calling tools.',
  );
  return lines.join('\n');
}

export function subtaskSystemPrompt(options: {
  title: string;
  canSpawn: boolean;
  structured: boolean;
  permissionMode: PermissionMode;
}): string {
  const lines = [
    `You are a subtask of a larger agent turn: "${options.title}".`,
    'Your instructions are in the user message; nothing else of the conversation is visible to you. Do the work with the tools you have.',
    MODE_LINES[options.permissionMode],
    MEMORY_LINE,
  ];
  if (options.canSpawn) {
    lines.push(
      `You may decompose further with ${RUN_SUBTASK}; sibling subtasks run concurrently and cannot see each other’s results.`,
    );
  }
  lines.push(
    options.structured
      ? `You must end by calling ${FINISH_SUBTASK} with a result that matches its input schema. If it reports a validation error, correct the payload and call it again.`
      : 'When you are done, reply with your result in plain text without calling tools; that text is what the parent sees.',
  );
  return lines.join('\n');
}
