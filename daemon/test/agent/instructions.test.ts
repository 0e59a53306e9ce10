/**
 * Workspace instructions (agent/instructions/): the root's AGENTS.md and
 * .arbor/instructions.md in every loop's system prompt, a nested AGENTS.md
 * given with the result of a write under its directory, each listed on the
 * turn node — bounded, re-read when changed, never read through a link out
 * of the workspace.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExecutionTreeNode } from '@arbor/protocol';
import { z } from 'zod';
import { MAX_INSTRUCTIONS_CHARS } from '../../src/agent/instructions/instructionsFile.js';
import { defineTool, type Tool } from '../../src/tools/tool.js';
import { tempDir } from '../permissions/helpers.js';
import { TURN_ID, nodes, runTurn, script, toolMessages, type TurnRun } from './harness.js';

/** A write tool that says which file it wrote (nothing is written). */
const scribble = defineTool({
  name: 'scribble',
  description: 'writes a file',
  input: z.object({ path: z.string() }),
  category: 'write',
  targetPath: ({ path }) => path,
  execute: ({ path }) => `wrote ${path}`,
}) as Tool;

function workspace(files: Record<string, string>): string {
  const ws = tempDir();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(ws, path, '..'), { recursive: true });
    writeFileSync(join(ws, path), text);
  }
  return ws;
}

function turnNode(run: TurnRun): ExecutionTreeNode {
  return run.result.tree.nodes.find((n) => n.id === TURN_ID)!;
}

const answer = script({ hello: [{ text: 'ok' }] });

describe('workspace instructions', () => {
  it('AGENTS.md and .arbor/instructions.md reach the root and subtask system prompts; the turn node lists them', async () => {
    const ws = workspace({
      'AGENTS.md': 'Run npm test before you finish.',
      '.arbor/instructions.md': 'Write British English.',
    });
    const run = await runTurn(
      script({
        hello: [
          {
            toolCalls: [
              { name: 'run_subtask', arguments: { title: 'Look', instructions: 'look around' } },
            ],
          },
          { text: 'done' },
        ],
        'look around': [{ text: 'seen' }],
      }),
      { workspaceRoot: ws },
    );
    assert.equal(run.result.stopReason, 'end_turn');
    const root = run.provider.requests[0]!;
    const child = run.provider.requests.find((r) => r.messages[0]?.content === 'look around')!;
    for (const request of [root, child]) {
      assert.match(request.system, /Run npm test before you finish\./);
      assert.match(request.system, /Write British English\./);
    }
    assert.deepEqual(turnNode(run).instructions, [
      { path: 'AGENTS.md', chars: 'Run npm test before you finish.'.length },
      { path: '.arbor/instructions.md', chars: 'Write British English.'.length },
    ]);
    ExecutionTreeNode.parse(turnNode(run));

    const none = await runTurn(answer, { workspaceRoot: tempDir() });
    assert.equal(turnNode(none).instructions, undefined);
    assert.doesNotMatch(none.provider.requests[0]!.system, /npm test/);
  });

  it('a changed AGENTS.md is what the next turn gets', async () => {
    const ws = workspace({ 'AGENTS.md': 'Use tabs.' });
    const first = await runTurn(answer, { workspaceRoot: ws });
    assert.match(first.provider.requests[0]!.system, /Use tabs\./);
    writeFileSync(join(ws, 'AGENTS.md'), 'Use four spaces, never tabs.');
    const second = await runTurn(answer, { workspaceRoot: ws });
    assert.match(second.provider.requests[0]!.system, /Use four spaces, never tabs\./);
    assert.doesNotMatch(second.provider.requests[0]!.system, /Use tabs\./);
    assert.equal(turnNode(second).instructions![0]!.chars, 'Use four spaces, never tabs.'.length);
  });

  it('the nearest nested AGENTS.md comes with the first write under its directory, once per turn', async () => {
    const ws = workspace({
      'AGENTS.md': 'Root rules.',
      'packages/api/AGENTS.md': 'API rules: every handler validates its input.',
      'packages/api/src/AGENTS.md': 'Source rules: no default exports.',
      'packages/api/src/deep/keep.txt': '',
      'packages/web/AGENTS.md': 'Web rules.',
    });
    const write = (path: string): object => ({
      toolCalls: [{ name: 'scribble', arguments: { path } }],
    });
    const run = await runTurn(
      script({
        hello: [
          write('packages/api/src/deep/a.ts'),
          write('packages/api/b.ts'),
          write('packages/api/src/c.ts'),
          write('top.ts'),
          { text: 'done' },
        ],
      }),
      { workspaceRoot: ws, tools: [scribble] },
    );
    assert.equal(run.result.stopReason, 'end_turn');
    const results = toolMessages(run.provider.requests.at(-1)!).map((m) => m.content);
    assert.equal(results.length, 4);
    // Nearest wins: src/AGENTS.md for a file under src/deep, not packages/api's.
    assert.match(results[0]!, /^wrote packages\/api\/src\/deep\/a\.ts/);
    assert.match(results[0]!, /Source rules: no default exports\./);
    assert.match(results[0]!, /packages\/api\/src\/AGENTS\.md/);
    assert.doesNotMatch(results[0]!, /API rules|Web rules/);
    assert.match(results[1]!, /API rules: every handler validates its input\./);
    // Given once per turn; a write at the root adds nothing (its AGENTS.md is in the prompt).
    assert.equal(results[2], 'wrote packages/api/src/c.ts');
    assert.equal(results[3], 'wrote top.ts');
    assert.doesNotMatch(run.provider.requests[0]!.system, /API rules|Source rules/);
    assert.deepEqual(
      turnNode(run).instructions!.map((file) => file.path),
      ['AGENTS.md', 'packages/api/src/AGENTS.md', 'packages/api/AGENTS.md'],
    );
  });

  it('a file over the limit is cut, with a note to the model and truncated on the node', async () => {
    const ws = workspace({ 'AGENTS.md': `${'é'.repeat(MAX_INSTRUCTIONS_CHARS)}TAIL-MARKER` });
    const run = await runTurn(answer, { workspaceRoot: ws });
    const { system } = run.provider.requests[0]!;
    assert.doesNotMatch(system, /TAIL-MARKER/);
    assert.match(system, /AGENTS\.md is longer than 32000 characters: only its start is given/);
    assert.deepEqual(turnNode(run).instructions, [
      { path: 'AGENTS.md', chars: MAX_INSTRUCTIONS_CHARS, truncated: true },
    ]);
  });

  it('an AGENTS.md that links out of the workspace is not read', async () => {
    const outside = workspace({ 'secret.md': 'OUTSIDE-SECRET instructions' });
    const ws = tempDir();
    symlinkSync(join(outside, 'secret.md'), join(ws, 'AGENTS.md'));
    mkdirSync(join(ws, 'sub'));
    symlinkSync(join(outside, 'secret.md'), join(ws, 'sub/AGENTS.md'));
    const run = await runTurn(
      script({
        hello: [
          { toolCalls: [{ name: 'scribble', arguments: { path: 'sub/x.ts' } }] },
          { text: 'done' },
        ],
      }),
      { workspaceRoot: ws, tools: [scribble] },
    );
    for (const request of run.provider.requests) {
      assert.doesNotMatch(JSON.stringify(request), /OUTSIDE-SECRET/);
    }
    assert.equal(turnNode(run).instructions, undefined);
    assert.equal(nodes(run).find((n) => n.name === 'scribble')!.status, 'done');

    // A link that stays inside the workspace is followed like the file itself.
    const inside = workspace({ 'docs/agents.md': 'Inside rules.' });
    symlinkSync(join(inside, 'docs/agents.md'), join(inside, 'AGENTS.md'));
    const linked = await runTurn(answer, { workspaceRoot: inside });
    assert.match(linked.provider.requests[0]!.system, /Inside rules\./);
  });
});
