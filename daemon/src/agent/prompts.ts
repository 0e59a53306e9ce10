/** System prompts of the root loop and of subtask loops. */
import { FINISH_SUBTASK, RUN_SUBTASK } from './subtaskTools.js';

const MEMORY_LINE =
  'The turn has a shared memory (memory_list, memory_read, memory_write); each finished subtask stores its result there as task:<id>.';

export function rootSystemPrompt(options: { canSpawn: boolean; hasTools: boolean }): string {
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
    MEMORY_LINE,
    'When you are done, answer the user in plain text without calling tools.',
  );
  return lines.join('\n');
}

export function subtaskSystemPrompt(options: {
  title: string;
  canSpawn: boolean;
  structured: boolean;
}): string {
  const lines = [
    `You are a subtask of a larger agent turn: "${options.title}".`,
    'Your instructions are in the user message; nothing else of the conversation is visible to you. Do the work with the tools you have.',
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
