/**
 * run_vscode_task: runs a task of `vscode.tasks` (tasks.json and the tasks
 * extensions contribute) as the user's "Run Task" would, and waits for it to end.
 */
import * as vscode from 'vscode';
import type { ToolExecuteResult } from '@arbor/protocol';
import { findTask, taskResult, type TaskInfo, type TaskOutcome } from './taskNames.js';

/** The cancellation the daemon's `tool/execute` brings (vscode-jsonrpc's token, or a test's). */
export interface ToolToken {
  readonly isCancellationRequested: boolean;
  readonly onCancellationRequested?: (listener: () => void) => { dispose(): unknown };
}

/** How long a task that does not end is waited for before it is terminated. */
export const TASK_WAIT_MINUTES = 30;
/** A task without a process (CustomExecution) ends with onDidEndTask only; a process task's exit code may follow it. */
const PROCESS_END_GRACE_MS = 500;

type Described = TaskInfo & { readonly task: vscode.Task };

function describe(task: vscode.Task, severalFolders: boolean): Described {
  const scope = task.scope;
  const folder =
    severalFolders && scope !== undefined && typeof scope === 'object' ? scope.name : undefined;
  return {
    task,
    name: task.name,
    source: task.source,
    type: typeof task.definition.type === 'string' ? task.definition.type : 'task',
    folder,
  };
}

function scopeKey(task: vscode.Task): string {
  const scope = task.scope;
  return scope !== undefined && typeof scope === 'object' ? scope.uri.toString() : String(scope);
}

function sameTask(a: vscode.Task, b: vscode.Task): boolean {
  return a.name === b.name && a.source === b.source && scopeKey(a) === scopeKey(b);
}

export async function runVscodeTask(
  args: Record<string, unknown>,
  token: ToolToken,
  waitMinutes = TASK_WAIT_MINUTES,
): Promise<ToolExecuteResult> {
  const wanted = typeof args['name'] === 'string' ? args['name'].trim() : '';
  if (!wanted) return { content: 'run_vscode_task needs the name of a task.', isError: true };
  const severalFolders = (vscode.workspace.workspaceFolders ?? []).length > 1;
  const tasks = (await vscode.tasks.fetchTasks()).map((t) => describe(t, severalFolders));
  const found = findTask(tasks, wanted);
  if ('error' in found) return { content: found.error, isError: true };
  const { task } = found.task;
  const hasMatchers = task.problemMatchers.length > 0;
  const result = (outcome: TaskOutcome): ToolExecuteResult =>
    taskResult(found.task, outcome, hasMatchers);

  if (vscode.tasks.taskExecutions.some((e) => sameTask(e.task, task))) {
    return task.isBackground
      ? result({ kind: 'background' })
      : {
          content: `Task "${found.task.name}" is already running; wait for it to end, or ask the user to stop it.`,
          isError: true,
        };
  }
  if (token.isCancellationRequested) return result({ kind: 'cancelled' });

  // Listen before starting: a quick task can end before executeTask resolves.
  const disposables: { dispose(): unknown }[] = [];
  let execution: vscode.TaskExecution | undefined;
  const ended: { execution: vscode.TaskExecution; exitCode?: number | undefined }[] = [];
  let notify: () => void = () => undefined;
  const ours = (e: vscode.TaskExecution): boolean =>
    execution !== undefined && (e === execution || sameTask(e.task, execution.task));
  disposables.push(
    vscode.tasks.onDidEndTaskProcess((e) => {
      ended.push({ execution: e.execution, exitCode: e.exitCode });
      notify();
    }),
    vscode.tasks.onDidEndTask((e) => {
      ended.push({ execution: e.execution });
      notify();
    }),
  );
  try {
    execution = await vscode.tasks.executeTask(task);
    if (task.isBackground) return result({ kind: 'background' });
    const started = execution;
    const outcome = await new Promise<TaskOutcome>((resolve) => {
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      const check = (): void => {
        const mine = ended.filter((e) => ours(e.execution));
        const processEnd = mine.find((e) => 'exitCode' in e);
        if (processEnd) return resolve({ kind: 'ended', exitCode: processEnd.exitCode });
        if (mine.length > 0 && graceTimer === undefined) {
          graceTimer = setTimeout(
            () => resolve({ kind: 'ended', exitCode: undefined }),
            PROCESS_END_GRACE_MS,
          );
        }
      };
      notify = check;
      check();
      const cancel = token.onCancellationRequested?.(() => {
        started.terminate();
        resolve({ kind: 'cancelled' });
      });
      if (cancel) disposables.push(cancel);
      const poll = setInterval(() => {
        // Tokens without onCancellationRequested are polled.
        if (token.isCancellationRequested) {
          started.terminate();
          resolve({ kind: 'cancelled' });
        }
      }, 500);
      const limit = setTimeout(() => {
        started.terminate();
        resolve({ kind: 'timedOut', minutes: waitMinutes });
      }, waitMinutes * 60_000);
      disposables.push({
        dispose: () => {
          clearInterval(poll);
          clearTimeout(limit);
          if (graceTimer !== undefined) clearTimeout(graceTimer);
        },
      });
    });
    return result(outcome);
  } finally {
    for (const d of disposables) d.dispose();
  }
}
