/** `npm start`'s demo turn: runs to the end on a copy, and never touches the checked-in sample. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { stripAnsi } from '../../src/cli/chat/terminalStyle.js';
import { HAS_SCRIPT } from './chatProcess.js';
import { fileURLToPath } from 'node:url';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));
const SAMPLE = join(EXAMPLES, 'sample-workspace');

function digest(dir: string): string {
  const hash = createHash('sha256');
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      hash.update(relative(dir, path));
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(readFileSync(path));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

describe('npm start (the demo turn)', function () {
  this.timeout(30_000);

  it('runs the scripted review on a temp copy of the sample workspace, in auto mode without a terminal', async () => {
    const before = digest(SAMPLE);
    const child = spawn(process.execPath, [join(EXAMPLES, 'run-demo.mjs')], { stdio: 'pipe' });
    child.stdin.end();
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, `${out}\n${err}`);

    const copy = /Workspace: a copy of examples\/sample-workspace at (\S+)/.exec(err)?.[1];
    assert.ok(copy, `the demo says where the copy is:\n${err}`);
    assert.ok(!copy.startsWith(EXAMPLES), 'the copy is outside the repository');
    assert.ok(existsSync(join(copy, 'src', 'convert.js')));
    assert.match(err, /mode auto|auto mode/);
    assert.match(out, /mode auto/);

    for (const title of ['Survey the code', 'Survey the tests', 'Rate the risk']) {
      assert.match(out, new RegExp(`^ {2}✓ ${title} \\(subtask\\)`, 'm'));
    }
    assert.match(out, /Summary: thermo converts correctly/);
    assert.match(out, /Turn ended: end_turn/);
    if (!out.includes('Unknown tool "write_file"')) {
      assert.ok(existsSync(join(copy, 'REVIEW.md')), 'auto mode lets the write happen in the copy');
    }
    assert.equal(digest(SAMPLE), before, 'examples/sample-workspace is unchanged');
    assert.ok(!existsSync(join(SAMPLE, 'REVIEW.md')));
  });

  (HAS_SCRIPT ? it : it.skip)(
    'asks for the write on a terminal and writes REVIEW.md in the copy after "a"',
    async () => {
      const before = digest(SAMPLE);
      const command = `stty cols 120 rows 50; exec '${process.execPath}' '${join(EXAMPLES, 'run-demo.mjs')}'`;
      const child = spawn('script', ['-qfec', command, '/dev/null'], {
        stdio: 'pipe',
        env: { ...process.env, TERM: 'xterm-256color' },
      });
      let out = '';
      let asked = false;
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        if (!asked && /needs approval/.test(out)) {
          asked = true;
          child.stdin.write('a');
        }
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      const text = stripAnsi(out);
      assert.ok(asked, `the write asked for approval:\n${text}`);
      assert.equal(code, 0, text);
      const copy = /Workspace: a copy of examples\/sample-workspace at (\S+)/.exec(text)?.[1];
      assert.ok(
        copy && existsSync(join(copy, 'REVIEW.md')),
        'the allowed write happened in the copy',
      );
      assert.match(text, /write_file: allowed/);
      assert.equal(digest(SAMPLE), before, 'examples/sample-workspace is unchanged');
    },
  );
});
