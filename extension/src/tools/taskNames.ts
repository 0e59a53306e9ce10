/**
 * The parts of run_vscode_task that need no VS Code: finding a task by the
 * name the model gave, the list of names when none matches, the result line.
 */

/** What run_vscode_task knows of a `vscode.Task`. */
export interface TaskInfo {
  /** `task.name`: the label of a tasks.json task, the script of an npm task. */
  readonly name: string;
  /** `task.source`: `Workspace` for tasks.json, else the contributing provider (`npm`, `tsc`, …). */
  readonly source: string;
  /** `task.definition.type`: `shell`, `process`, `npm`, … */
  readonly type: string;
  /** The workspace folder of a folder-scoped task. */
  readonly folder?: string | undefined;
}

/** The source tasks.json tasks have: preferred when an extension contributes a task of the same name. */
export const WORKSPACE_SOURCE = 'Workspace';
export const MAX_LISTED_TASKS = 50;

export type TaskMatch<T> = { task: T } | { error: string };

/** `"<source>: <name>"`, the label VS Code's "Run Task" picker shows for contributed tasks. */
export function qualifiedName(task: TaskInfo): string {
  return `${task.source}: ${task.name}`;
}

/**
 * Finds the task `wanted` names: `task.name`, `"<source>: <name>"` or (several
 * workspace folders) `"<folder>: <name>"`. Of several
 * tasks with that name, the tasks.json one wins; a tie that remains is an error
 * naming the candidates.
 */
export function findTask<T extends TaskInfo>(tasks: readonly T[], wanted: string): TaskMatch<T> {
  const name = wanted.trim();
  let candidates = tasks.filter(
    (t) =>
      qualifiedName(t) === name || (t.folder !== undefined && `${t.folder}: ${t.name}` === name),
  );
  if (candidates.length === 0) candidates = tasks.filter((t) => t.name === name);
  if (candidates.length > 1) {
    const workspace = candidates.filter((t) => t.source === WORKSPACE_SOURCE);
    if (workspace.length > 0) candidates = workspace;
  }
  if (candidates.length === 1) return { task: candidates[0]! };
  if (candidates.length === 0) return { error: noSuchTask(tasks, name) };
  return {
    error: `Several tasks are named "${name}": ${candidates
      .map((t) => qualifiedName(t) + (t.folder ? ` in folder "${t.folder}"` : ''))
      .join(', ')}. Name one as "<source>: <name>" or "<folder>: <name>".`,
  };
}

/** The error for an unknown name: the available tasks, sorted, at most MAX_LISTED_TASKS. */
export function noSuchTask(tasks: readonly TaskInfo[], name: string): string {
  if (tasks.length === 0) return `No VS Code task named "${name}": this workspace has none.`;
  const lines = [...new Set(tasks.map((t) => `- ${t.name} (${t.source})`))].sort((a, b) =>
    a.localeCompare(b),
  );
  const shown = lines.slice(0, MAX_LISTED_TASKS);
  const more = lines.length - shown.length;
  return [
    `No VS Code task named "${name}". The available tasks (name, then source):`,
    ...shown,
    ...(more > 0 ? [`… and ${more} more`] : []),
  ].join('\n');
}

/** `"build" (shell)`, or `"build" (shell, folder "app")` when the folder is worth naming. */
export function describeTask(task: TaskInfo): string {
  const where = task.folder ? `, folder "${task.folder}"` : '';
  return `"${task.name}" (${task.type}${where})`;
}

export type TaskOutcome =
  | { kind: 'ended'; exitCode: number | undefined }
  | { kind: 'background' }
  | { kind: 'cancelled' }
  | { kind: 'timedOut'; minutes: number };

const OUTPUT = "Its output is in VS Code's terminal panel.";

/** The tool result for how a task ended; an error unless it ended with 0 (or without a process) or runs in the background. */
export function taskResult(
  task: TaskInfo,
  outcome: TaskOutcome,
  hasProblemMatchers: boolean,
): { content: string; isError: boolean } {
  const label = `Task ${describeTask(task)}`;
  const problems = hasProblemMatchers ? ' The problems it reports are in get_diagnostics.' : '';
  switch (outcome.kind) {
    case 'ended': {
      const how =
        outcome.exitCode === undefined ? 'ended' : `ended with exit code ${outcome.exitCode}`;
      return {
        content: `${label} ${how}. ${OUTPUT}${problems}`,
        isError: outcome.exitCode !== undefined && outcome.exitCode !== 0,
      };
    }
    case 'background':
      return {
        content: `${label} started in the background (a watch task); it keeps running. ${OUTPUT}${problems}`,
        isError: false,
      };
    case 'cancelled':
      return { content: `Cancelled: ${label} was terminated.`, isError: true };
    case 'timedOut':
      return {
        content: `${label} did not end within ${outcome.minutes} minutes and was terminated. ${OUTPUT}`,
        isError: true,
      };
  }
}
