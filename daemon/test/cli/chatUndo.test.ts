/**
 * What a turn changed, and undoing it, in `arbor chat` (checkpoints.md):
 * against the real daemon on the scripted provider, the changed files are
 * listed after the turn, /diff prints the turn's diff, and /undo puts the
 * files back after a y/N — asking again before overwriting a file changed
 * since.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptInput } from '@arbor/protocol';
import { createStyle, stripAnsi } from '../../src/cli/chat/terminalStyle.js';
import {
  colorDiff,
  formatTurnChanges,
  parseTurnCommand,
} from '../../src/cli/chat/checkpointCommands.js';
import { HAS_SCRIPT, SGR, runChat, tempDir, writeScript } from './chatProcess.js';

const WRITES: ScriptInput = {
  version: 1,
  conversations: {
    'Write the notes': [
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'notes/new.txt', content: 'one\ntwo\n' } },
          { name: 'write_file', arguments: { path: 'io.py', content: 'open(p, "utf-8")\n' } },
        ],
      },
      { text: 'Wrote them.' },
    ],
    'Change io again': [
      { toolCalls: [{ name: 'write_file', arguments: { path: 'io.py', content: 'third\n' } }] },
      { text: 'Changed again.' },
    ],
    '*': [{ text: 'Nothing to change.' }],
  },
};

function workspace(): { dir: string; script: string } {
  const dir = tempDir();
  writeFileSync(join(dir, 'io.py'), 'open(p)\n');
  return { dir, script: writeScript(dir, WRITES) };
}

function chatArgs(dir: string, script: string, ...more: string[]): string[] {
  const session = more.includes('--session') ? [] : ['--workspace', dir];
  return [
    '--provider',
    'scripted',
    '--script',
    script,
    '--data-dir',
    `${dir}/data`,
    ...session,
    '--mode',
    'auto',
    ...more,
  ];
}

describe('arbor chat: changed files, /diff and /undo', function () {
  this.timeout(30_000);

  it('lists the files a turn changed after it', async () => {
    const { dir, script } = workspace();
    const run = runChat(chatArgs(dir, script, 'Write the notes'));
    run.child.stdin!.end();
    const { code, output, stderr } = await run.exit;
    assert.equal(code, 0, stderr);
    assert.match(output, /^Changed 2 files:$/m);
    assert.match(output, /^ {2}M io\.py \+1 −1$/m);
    assert.match(output, /^ {2}A notes\/new\.txt \+2 −0$/m);
  });

  it('/diff prints the last changed turn’s diff; /undo asks, then puts the files back', async () => {
    const { dir, script } = workspace();
    const run = runChat(chatArgs(dir, script));
    run.child.stdin!.end('Write the notes\nSay nothing\n/diff\n/undo\ny\n/undo\n');
    const { code, output, stderr } = await run.exit;
    assert.equal(code, 0, stderr);
    // The turn that said nothing changed nothing: /diff and /undo go to the one before.
    assert.match(output, /^changes of “Write the notes”:$/m);
    assert.match(output, /^diff --git a\/io\.py b\/io\.py$/m);
    assert.match(output, /^-open\(p\)$/m);
    assert.match(output, /^\+open\(p, "utf-8"\)$/m);
    assert.ok(!SGR.test(output), 'no colour through a pipe');
    assert.match(output, /^Restore the files to before “Write the notes”\?$/m);
    assert.match(output, /^Restore\? \[y\/N\] y$/m);
    assert.match(output, /^restored 2 files$/m);
    assert.equal(readFileSync(join(dir, 'io.py'), 'utf8'), 'open(p)\n');
    assert.ok(!existsSync(join(dir, 'notes', 'new.txt')), 'the added file is gone');
    // Undone turns are not undone twice.
    assert.match(output, /^no turn of this session changed files$/m);
  });

  it('/undo declined changes nothing; /undo 2 goes back two changed turns', async () => {
    const { dir, script } = workspace();
    const run = runChat(chatArgs(dir, script));
    run.child.stdin!.end('Write the notes\nChange io again\n/undo 2\nn\n/undo 2\nyes\n');
    const { code, output, stderr } = await run.exit;
    assert.equal(code, 0, stderr);
    assert.match(output, /^nothing restored$/m);
    assert.match(
      output,
      /^Restore the files to before “Write the notes” \(and undo 1 later turn\)\?$/m,
    );
    assert.match(output, /^restored 2 files$/m);
    assert.equal(readFileSync(join(dir, 'io.py'), 'utf8'), 'open(p)\n');
    assert.ok(!existsSync(join(dir, 'notes', 'new.txt')));
  });

  it('names the files changed since and overwrites them only when asked to', async () => {
    const { dir, script } = workspace();
    const run = runChat(chatArgs(dir, script));
    run.type('Write the notes\n');
    await run.waitFor(/Changed 2 files/);
    await run.waitFor(/Turn ended/);
    writeFileSync(join(dir, 'io.py'), 'edited by the user\n');
    run.type('/undo\ny\n');
    await run.waitFor(/Overwrite them too\? \[y\/N\] /);
    assert.match(
      run.output(),
      /changed since this session last changed them; nothing was restored:\n {2}io\.py\n/,
    );
    assert.equal(readFileSync(join(dir, 'io.py'), 'utf8'), 'edited by the user\n');
    assert.ok(existsSync(join(dir, 'notes', 'new.txt')), 'a conflict restores nothing');
    run.child.stdin!.end('y\n');
    const { code, output, stderr } = await run.exit;
    assert.equal(code, 0, stderr);
    assert.match(output, /^restored 2 files$/m);
    assert.match(output, /^overwrote changes made since: io\.py$/m);
    assert.equal(readFileSync(join(dir, 'io.py'), 'utf8'), 'open(p)\n');
  });

  it('/undo in a continued session (--session) finds the turns from the store', async () => {
    const { dir, script } = workspace();
    const first = runChat(chatArgs(dir, script, 'Write the notes'));
    first.child.stdin!.end();
    const done = await first.exit;
    assert.equal(done.code, 0, done.stderr);
    const sessionId = /session (\S+)/.exec(done.output)?.[1];
    assert.ok(sessionId, done.output);
    const run = runChat(chatArgs(dir, script, '--session', sessionId));
    run.child.stdin!.end('/undo\ny\n');
    const { code, output, stderr } = await run.exit;
    assert.equal(code, 0, stderr);
    assert.match(output, /^restored 2 files$/m);
    assert.ok(!existsSync(join(dir, 'notes', 'new.txt')));
  });

  (HAS_SCRIPT ? it : it.skip)('colours the diff on a terminal', async () => {
    const { dir, script } = workspace();
    const run = runChat(chatArgs(dir, script), { tty: true });
    await run.waitFor('› ');
    run.type('Write the notes\r');
    await run.waitFor(/Turn ended/);
    run.type('/diff\r');
    await run.waitFor(/open\(p, "utf-8"\)/);
    run.type('/exit\r');
    const { output } = await run.exit;
    const green = '\u001b[32m';
    assert.ok(output.includes(`${green}+open(p, "utf-8")`), JSON.stringify(output.slice(-800)));
    assert.match(stripAnsi(output), /M io\.py \+1 −1/);
  });
});

describe('changed files and diffs, formatted', () => {
  const plain = createStyle(false);

  it('one line per file, then how many more', () => {
    assert.deepEqual(
      formatTurnChanges(
        {
          files: [
            { path: 'src/io.py', status: 'modified', added: 3, removed: 1 },
            { path: 'logo.png', status: 'deleted', added: 0, removed: 0, binary: true },
          ],
          omitted: 4,
          restorable: true,
        },
        plain,
      ),
      ['Changed 6 files:', '  M src/io.py +3 −1', '  D logo.png binary', '  and 4 more'],
    );
    assert.deepEqual(formatTurnChanges(undefined, plain), []);
  });

  it('colours additions, removals and hunks only when the style does', () => {
    const diff = 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n';
    assert.deepEqual(colorDiff(diff, plain), diff.trimEnd().split('\n'));
    const coloured = colorDiff(diff, createStyle(true));
    assert.equal(coloured[4], '\u001b[31m-old\u001b[39m');
    assert.equal(coloured[5], '\u001b[32m+new\u001b[39m');
    assert.equal(coloured[2], '\u001b[1m+++ b/x\u001b[22m', 'a header is not an addition');
  });

  it('reads /undo and /diff with an optional count', () => {
    assert.equal(parseTurnCommand('/undo', '/undo'), 1);
    assert.equal(parseTurnCommand('/undo 3', '/undo'), 3);
    assert.ok(Number.isNaN(parseTurnCommand('/undo x', '/undo')!));
    assert.ok(Number.isNaN(parseTurnCommand('/undo 0', '/undo')!));
    assert.equal(parseTurnCommand('/undone', '/undo'), undefined);
    assert.equal(parseTurnCommand('/diff', '/undo'), undefined);
  });
});
