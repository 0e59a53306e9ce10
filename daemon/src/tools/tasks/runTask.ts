/**
 * run_task (category execute): runs a named task of the workspace — a
 * `package.json` script or a Makefile target — exactly as run_command runs a
 * command line (sandbox, scrubbed environment, timeout, output live in its
 * tree node). The model names the task instead of writing the command, so
 * the approval the user sees says which task, and a grant covers that task.
 */
import { z } from 'zod';
import { defineTool, type Tool } from '../tool.js';
import { CommandTimeout, runCommandTool, type RunCommandOptions } from '../workspace/runCommand.js';
import type { Workspace } from '../workspace/workspace.js';
import { shellQuote, workspaceTasks, type WorkspaceTask } from './workspaceTasks.js';

export const RUN_TASK = 'run_task';
/** Tasks named in an unknown-task error; the rest are counted. */
const LISTED_TASKS = 40;

export function runTaskTool(workspace: Workspace, options: RunCommandOptions = {}): Tool {
  const command = runCommandTool(workspace, options);
  return defineTool({
    name: RUN_TASK,
    description:
      "Runs a named task of the workspace: a package.json script (with the project's package manager) or a Makefile target, " +
      'and returns its exit code and output like run_command. Prefer it to run_command for the project’s own build, test and lint tasks. ' +
      'Call it with a name that is not a task (e.g. "?") to get the list of tasks.',
    input: z.object({
      name: z.string().min(1).describe('The task: a package.json script name or a Makefile target'),
      args: z.array(z.string()).max(32).default([]).describe('Extra arguments passed to the task'),
      timeout_ms: CommandTimeout,
    }),
    category: 'execute',
    parallelSafe: false,
    // A session grant covers the same task, whatever its arguments.
    grantKey: ({ name }) => name,
    execute: async ({ name, args, timeout_ms }, ctx) => {
      const { tasks, problems } = workspaceTasks(workspace.root);
      const task = tasks.find((candidate) => candidate.name === name);
      if (task === undefined) return { content: unknownTask(name, tasks, problems), isError: true };
      const line = [task.command, ...commandArgs(task, args)].join(' ');
      const output = await command.execute({ command: line, cwd: '.', timeout_ms }, ctx);
      const text = typeof output === 'string' ? output : output.content;
      const result = `${task.source} task ${task.name}: ${line}\n${text}`;
      return typeof output === 'string' ? result : { ...output, content: result };
    },
  }) as Tool;
}

/** npm-style runners need `--` before arguments meant for the script. */
function commandArgs(task: WorkspaceTask, args: readonly string[]): string[] {
  if (args.length === 0) return [];
  const quoted = args.map(shellQuote);
  return task.source === 'package.json' && !task.command.startsWith('yarn ')
    ? ['--', ...quoted]
    : quoted;
}

function unknownTask(name: string, tasks: readonly WorkspaceTask[], problems: string[]): string {
  const head =
    tasks.length === 0
      ? `No task named ${name}: this workspace declares none (no package.json scripts, no Makefile targets).`
      : `No task named ${name}. The tasks of this workspace:`;
  const listed = tasks
    .slice(0, LISTED_TASKS)
    .map((task) => `- ${task.name} (${task.source}): ${task.detail.slice(0, 120)}`);
  const more = tasks.length > LISTED_TASKS ? [`… and ${tasks.length - LISTED_TASKS} more`] : [];
  return [head, ...listed, ...more, ...problems].join('\n');
}
