/** run_vscode_task without VS Code: finding a task by name, the list of names, the result line. */
import assert from 'node:assert/strict';
import {
  MAX_LISTED_TASKS,
  describeTask,
  findTask,
  taskResult,
  type TaskInfo,
} from '../../src/tools/taskNames.js';

const shell = (name: string, extra: Partial<TaskInfo> = {}): TaskInfo => ({
  name,
  source: 'Workspace',
  type: 'shell',
  ...extra,
});
const npm = (name: string): TaskInfo => ({ name, source: 'npm', type: 'npm' });

describe('run_vscode_task finds tasks', () => {
  const tasks = [shell('build'), npm('build'), npm('test'), shell('lint', { folder: 'app' })];

  it('by name, preferring the tasks.json task', () => {
    assert.deepEqual(findTask(tasks, 'build'), { task: tasks[0] });
    assert.deepEqual(findTask(tasks, ' test '), { task: tasks[2] });
  });
  it('by "<source>: <name>" and "<folder>: <name>"', () => {
    assert.deepEqual(findTask(tasks, 'npm: build'), { task: tasks[1] });
    assert.deepEqual(findTask(tasks, 'Workspace: build'), { task: tasks[0] });
    assert.deepEqual(findTask(tasks, 'app: lint'), { task: tasks[3] });
  });
  it('refuses a tie it cannot break', () => {
    const tie = [npm('x'), { name: 'x', source: 'gulp', type: 'gulp' }];
    const found = findTask(tie, 'x');
    assert.ok('error' in found);
    assert.match(found.error, /Several tasks are named "x": npm: x, gulp: x/);
  });
  it('lists the available names, sorted and bounded, for an unknown one', () => {
    const found = findTask(tasks, 'deploy');
    assert.ok('error' in found);
    assert.deepEqual(found.error.split('\n'), [
      'No VS Code task named "deploy". The available tasks (name, then source):',
      '- build (npm)',
      '- build (Workspace)',
      '- lint (Workspace)',
      '- test (npm)',
    ]);
    const many = Array.from({ length: 60 }, (_, i) => shell(`t${String(i).padStart(2, '0')}`));
    const lines = (findTask(many, 'x') as { error: string }).error.split('\n');
    assert.equal(lines.length, 1 + MAX_LISTED_TASKS + 1);
    assert.equal(lines[1], '- t00 (Workspace)');
    assert.equal(lines.at(-1), '… and 10 more');
    assert.match((findTask([], 'x') as { error: string }).error, /has none/);
  });
});

describe('run_vscode_task results', () => {
  it('name the task, its type and its folder', () => {
    assert.equal(describeTask(shell('build')), '"build" (shell)');
    assert.equal(describeTask(shell('build', { folder: 'app' })), '"build" (shell, folder "app")');
  });
  it('are errors for a non-zero exit code, a cancellation and a timeout', () => {
    const ok = taskResult(shell('build'), { kind: 'ended', exitCode: 0 }, false);
    assert.deepEqual(ok, {
      content:
        'Task "build" (shell) ended with exit code 0. Its output is in VS Code\'s terminal panel.',
      isError: false,
    });
    assert.equal(taskResult(shell('b'), { kind: 'ended', exitCode: 2 }, false).isError, true);
    assert.equal(
      taskResult(shell('b'), { kind: 'ended', exitCode: undefined }, false).isError,
      false,
    );
    assert.match(
      taskResult(shell('w'), { kind: 'background' }, true).content,
      /started in the background.*get_diagnostics/,
    );
    assert.equal(taskResult(shell('b'), { kind: 'cancelled' }, false).isError, true);
    const late = taskResult(shell('b'), { kind: 'timedOut', minutes: 30 }, false);
    assert.equal(late.isError, true);
    assert.match(late.content, /within 30 minutes/);
  });
});
