/**
 * run_task through the real loop and permission gate: a package.json script
 * runs with the project's package manager, arguments reach it quoted, an
 * unknown name lists the tasks, and it is gated as execute (plan blocks it,
 * default asks, naming the task).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTaskTool } from '../../../src/tools/tasks/runTask.js';
import { workspaceTasks } from '../../../src/tools/tasks/workspaceTasks.js';
import { openWorkspace } from '../../../src/tools/workspace/index.js';
import { callThroughLoop } from '../toolLoop.js';

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'arbor-tasks-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

const PACKAGE = JSON.stringify({
  name: 'demo',
  scripts: { greet: "node -e \"console.log('hello', process.argv.slice(1).join('|'))\" --" },
});

describe('run_task', function () {
  this.timeout(60_000);
  const sandbox = {
    mode: 'off' as const,
    network: false,
    allowEnv: [],
    dataDir: mkdtempSync(join(tmpdir(), 'arbor-data-')),
  };

  it('runs a package.json script with its arguments, quoted, and says which task it ran', async () => {
    const root = project({ 'package.json': PACKAGE });
    const tool = runTaskTool(openWorkspace(root), { sandbox });
    const run = await callThroughLoop(
      [tool],
      'run_task',
      { name: 'greet', args: ['two words', "it's"] },
      { mode: 'auto', workspaceRoot: root },
    );
    assert.equal(run.toolResult.isError, false, run.toolResult.content);
    assert.match(
      run.toolResult.content,
      /^package\.json task greet: npm run greet -- 'two words' 'it'\\''s'\nexit code 0\n/,
    );
    assert.match(run.toolResult.content, /hello two words\|it's/);
  });

  it('an unknown name lists the tasks, from package.json and the Makefile', async () => {
    const root = project({
      'package.json': PACKAGE,
      Makefile:
        '.PHONY: build\nbuild:\n\tcc -o app main.c\n%.o: %.c\n\tcc -c $<\nVAR := x\ngreet:\n\techo make\n',
    });
    const tool = runTaskTool(openWorkspace(root), { sandbox });
    const run = await callThroughLoop(
      [tool],
      'run_task',
      { name: '?' },
      { mode: 'auto', workspaceRoot: root },
    );
    assert.equal(run.toolResult.isError, true);
    assert.equal(
      run.toolResult.content,
      [
        'No task named ?. The tasks of this workspace:',
        "- greet (package.json): node -e \"console.log('hello', process.argv.slice(1).join('|'))\" --",
        '- build (Makefile): cc -o app main.c',
        '- make:greet (Makefile): echo make',
      ].join('\n'),
    );
  });

  it('uses the package manager the lockfile names', () => {
    const root = project({ 'package.json': PACKAGE, 'pnpm-lock.yaml': '' });
    assert.equal(workspaceTasks(root).tasks[0]!.command, 'pnpm run greet');
  });

  it('is an execute tool: plan mode blocks it, default mode asks and the request names the task', async () => {
    const root = project({ 'package.json': PACKAGE });
    const tool = runTaskTool(openWorkspace(root), { sandbox });
    const planned = await callThroughLoop(
      [tool],
      'run_task',
      { name: 'greet' },
      { mode: 'plan', workspaceRoot: root },
    );
    assert.equal(planned.node.status, 'blocked');
    const asked = await callThroughLoop(
      [tool],
      'run_task',
      { name: 'greet' },
      { mode: 'default', workspaceRoot: root, answer: 'deny' },
    );
    assert.equal(asked.asked.length, 1);
    assert.equal(asked.asked[0]!.category, 'execute');
    assert.deepEqual(asked.asked[0]!.args, { name: 'greet', args: [], timeout_ms: 120_000 });
    assert.equal(asked.node.status, 'denied');
  });
});
