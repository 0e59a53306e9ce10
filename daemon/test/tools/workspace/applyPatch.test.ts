/**
 * apply_patch: a unified diff applied all or nothing, through the same
 * confinement, stale-write guard and permission gate as write_file.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { Tool } from '../../../src/tools/tool.js';
import {
  createWorkspaceTools,
  openWorkspace,
  type Workspace,
} from '../../../src/tools/workspace/index.js';
import { tempDir } from '../../permissions/helpers.js';
import { callThroughLoop, MODES } from '../toolLoop.js';
import { toolContext } from '../toolContext.js';

/** A git-style patch of one file, as `git diff` writes it. */
function filePatch(path: string, before: string, after: string): string {
  return createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, '', '', { context: 3 })
    .split('\n')
    .filter((line) => !line.startsWith('====') && !line.startsWith('Index:'))
    .join('\n');
}

const lines = (from: number, to: number, tag = 'line'): string =>
  Array.from({ length: to - from + 1 }, (_, i) => `${tag} ${from + i}\n`).join('');

const A_BEFORE = lines(1, 40);
const A_AFTER = A_BEFORE.replace('line 3\n', 'line three\n').replace(
  'line 30\n',
  'line 30\ninserted after 30\n',
);
const B_BEFORE = 'export const b = 1;\nexport function f() {\n  return b;\n}\n';
const B_AFTER = 'export const b = 2;\nexport function f() {\n  return b * 2;\n}\n';
const C_AFTER = '# New file\n\nwith two paragraphs\n';

describe('apply_patch', function () {
  this.timeout(20_000);
  let ws: string;
  let workspace: Workspace;
  let tools: Map<string, Tool>;

  const call = async (name: string, args: object) => {
    const tool = tools.get(name)!;
    const out = await tool.execute(tool.input.parse(args), toolContext());
    return typeof out === 'string'
      ? { content: out, isError: false }
      : { content: out.content, isError: out.isError === true };
  };
  const read = (path: string): string => readFileSync(join(ws, path), 'utf8');
  const threeFilePatch = (): string =>
    [
      filePatch('src/a.txt', A_BEFORE, A_AFTER),
      filePatch('src/b.ts', B_BEFORE, B_AFTER),
      createTwoFilesPatch('/dev/null', 'b/docs/c.md', '', C_AFTER, '', ''),
    ].join('\n');

  beforeEach(() => {
    ws = tempDir();
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src/a.txt'), A_BEFORE);
    writeFileSync(join(ws, 'src/b.ts'), B_BEFORE);
    workspace = openWorkspace(ws, { watch: false });
    tools = new Map(createWorkspaceTools(workspace).map((tool) => [tool.name, tool]));
  });
  afterEach(async () => {
    await workspace.guard.close();
  });

  it('applies a 3-file patch (two hunks, a second file, a new file): the bytes are exactly the new content', async () => {
    const result = await call('apply_patch', { patch: threeFilePatch() });
    assert.equal(result.isError, false, result.content);
    assert.equal(read('src/a.txt'), A_AFTER);
    assert.equal(read('src/b.ts'), B_AFTER);
    assert.equal(read('docs/c.md'), C_AFTER);
    assert.equal(
      result.content,
      [
        'Applied the patch to 3 file(s):',
        '- modified src/a.txt (+2 -1)',
        '- modified src/b.ts (+2 -2)',
        '- created docs/c.md (+3 -0)',
      ].join('\n'),
    );
  });

  it('deletes and renames files as git headers say; a deleted file can be written again', async () => {
    writeFileSync(join(ws, 'gone.txt'), 'bye\nnow\n');
    await call('read_file', { path: 'gone.txt' });
    const patch = [
      'diff --git a/gone.txt b/gone.txt',
      'deleted file mode 100644',
      '--- a/gone.txt',
      '+++ /dev/null',
      '@@ -1,2 +0,0 @@',
      '-bye',
      '-now',
      'diff --git a/src/b.ts b/src/renamed.ts',
      'similarity index 80%',
      'rename from src/b.ts',
      'rename to src/renamed.ts',
      '--- a/src/b.ts',
      '+++ b/src/renamed.ts',
      '@@ -1,2 +1,2 @@',
      '-export const b = 1;',
      '+export const b = 2;',
      ' export function f() {',
      '',
    ].join('\n');
    const result = await call('apply_patch', { patch });
    assert.equal(result.isError, false, result.content);
    assert.equal(existsSync(join(ws, 'gone.txt')), false);
    assert.equal(existsSync(join(ws, 'src/b.ts')), false);
    assert.equal(read('src/renamed.ts'), B_BEFORE.replace('b = 1', 'b = 2'));
    // The agent deleted it itself: writing it again is no stale write.
    const again = await call('write_file', { path: 'gone.txt', content: 'back\n' });
    assert.equal(again.content, 'Created gone.txt (5 bytes).');
  });

  it('reports a failing hunk (file, header, expected and found lines) and writes nothing', async () => {
    // The model's idea of src/a.txt is out of date around line 30.
    const wrong = filePatch(
      'src/a.txt',
      A_BEFORE.replace('line 29\n', 'line twenty-nine\n'),
      A_AFTER,
    );
    const patch = [
      filePatch('src/b.ts', B_BEFORE, B_AFTER),
      wrong,
      createTwoFilesPatch('/dev/null', 'b/docs/c.md', '', C_AFTER, '', ''),
    ].join('\n');
    const result = await call('apply_patch', { patch });
    assert.equal(result.isError, true);
    assert.match(result.content, /^The patch was not applied; nothing was changed\.\n/);
    assert.match(result.content, /src\/a\.txt: hunk 2 of 2 does not apply: @@ -26,8 \+26,9 @@\n/);
    assert.match(
      result.content,
      /expected \(context and removed lines\):\n {4}\|line 26\n {4}\|line 27\n {4}\|line 28\n {4}\|line twenty-nine\n/,
    );
    assert.match(
      result.content,
      /found at line 26:\n {4}\|line 26\n {4}\|line 27\n {4}\|line 28\n {4}\|line 29\n/,
    );
    assert.match(
      result.content,
      /first difference at line 29: expected "line twenty-nine", found "line 29"$/,
    );
    assert.doesNotMatch(result.content, /hunk 1 of 2/, 'the first hunk applies');
    assert.equal(read('src/a.txt'), A_BEFORE);
    assert.equal(read('src/b.ts'), B_BEFORE);
    assert.equal(existsSync(join(ws, 'docs')), false);
  });

  it('refuses a file changed on disk since the agent read it, and writes nothing', async () => {
    assert.equal((await call('read_file', { path: 'src/b.ts' })).isError, false);
    writeFileSync(join(ws, 'src/b.ts'), B_BEFORE + '// edited by someone else\n');
    const result = await call('apply_patch', { patch: threeFilePatch() });
    assert.equal(result.isError, true);
    assert.match(
      result.content,
      /refused: src\/b\.ts changed on disk after you last read it \(someone else edited it\)\. Read src\/b\.ts again/,
    );
    assert.equal(read('src/a.txt'), A_BEFORE);
    assert.equal(existsSync(join(ws, 'docs/c.md')), false);
  });

  it('refuses paths that leave the workspace (.., absolute, a symbolic link), writing nothing', async () => {
    const outside = tempDir('arbor-outside-');
    writeFileSync(join(outside, 'secret.txt'), 'keep\n');
    symlinkSync(outside, join(ws, 'link'));
    const escapes = [
      createTwoFilesPatch('/dev/null', 'b/../escaped.txt', '', 'x\n', '', ''),
      createTwoFilesPatch(
        `${outside}/secret.txt`,
        `${outside}/secret.txt`,
        'keep\n',
        'owned\n',
        '',
        '',
      ),
      filePatch('link/secret.txt', 'keep\n', 'owned\n'),
    ];
    for (const escape of escapes) {
      const result = await call('apply_patch', {
        patch: `${filePatch('src/b.ts', B_BEFORE, B_AFTER)}\n${escape}`,
      });
      assert.equal(result.isError, true, escape);
      assert.match(result.content, /refused: ".*" resolves outside the workspace/, escape);
      assert.equal(read('src/b.ts'), B_BEFORE, 'the other file is untouched');
    }
    assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'keep\n');
    assert.equal(existsSync(join(ws, '..', 'escaped.txt')), false);
  });

  it('refuses what it cannot read as a patch, saying what a patch looks like', async () => {
    const result = await call('apply_patch', { patch: 'please change b to 2' });
    assert.equal(result.isError, true);
    assert.match(result.content, /^the patch changes no file; give a unified diff/);
  });

  describe('through the loop: category write', () => {
    for (const mode of MODES) {
      it(`${mode}: ${mode === 'plan' ? 'blocked, nothing written' : mode === 'default' ? 'asks with the patch, then applies it' : 'applies without asking'}`, async () => {
        const patch = threeFilePatch();
        const run = await callThroughLoop(
          createWorkspaceTools(workspace),
          'apply_patch',
          { patch },
          {
            mode,
            answer: 'allow',
            workspaceRoot: ws,
          },
        );
        if (mode === 'plan') {
          assert.equal(run.node.status, 'blocked');
          assert.equal(read('src/a.txt'), A_BEFORE);
          assert.equal(existsSync(join(ws, 'docs')), false);
          return;
        }
        assert.equal(run.asked.length, mode === 'default' ? 1 : 0);
        if (mode === 'default') {
          assert.equal(run.asked[0]!.category, 'write');
          assert.deepEqual(run.asked[0]!.args, { patch }, 'the approval shows the patch');
        }
        assert.equal(run.node.status, 'done', run.toolResult.content);
        assert.equal(read('src/a.txt'), A_AFTER);
        assert.equal(read('docs/c.md'), C_AFTER);
      });
    }

    it('auto: a patch that touches .git/ asks all the same', async () => {
      mkdirSync(join(ws, '.git'));
      const patch = [
        filePatch('src/b.ts', B_BEFORE, B_AFTER),
        createTwoFilesPatch('/dev/null', 'b/.git/hooks/pre-commit', '', 'echo hi\n', '', ''),
      ].join('\n');
      const run = await callThroughLoop(
        createWorkspaceTools(workspace),
        'apply_patch',
        { patch },
        {
          mode: 'auto',
          answer: 'deny',
          workspaceRoot: ws,
        },
      );
      assert.equal(run.asked.length, 1);
      assert.equal(run.node.status, 'denied');
      assert.equal(read('src/b.ts'), B_BEFORE);
    });
  });
});
