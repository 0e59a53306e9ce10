/**
 * safeFs.ts, one swap at a time: the path is resolved, then the tree is
 * changed the way a racing process would between check and use, then the
 * operation runs. It must refuse (or act inside the workspace), never reach
 * outside. security.md#security-confined-race.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  isProtectedPath,
  resolveInWorkspace,
  WorkspaceEscapeError,
} from '../../src/tools/workspace/confinement.js';
import { createWorkspaceTools, openWorkspace } from '../../src/tools/workspace/index.js';
import {
  descriptorPath,
  listDirectory,
  PROC_FD,
  withFile,
  writeFileConfined,
} from '../../src/tools/workspace/safeFs.js';
import { TurnMemory } from '../../src/tools/memory.js';
import type { Tool, ToolContext } from '../../src/tools/tool.js';
import { tempDir } from '../permissions/helpers.js';

const CANARY = 'CANARY-OUTSIDE';

function fixture(): { root: string; ws: string; outside: string } {
  const root = tempDir('arbor-safefs-');
  const ws = join(root, 'ws');
  const outside = join(root, 'outside');
  mkdirSync(join(outside, 'sub'), { recursive: true });
  writeFileSync(join(outside, 'f.txt'), CANARY);
  writeFileSync(join(outside, 'sub', 'g.txt'), CANARY);
  mkdirSync(join(ws, 'd', 'sub'), { recursive: true });
  writeFileSync(join(ws, 'd', 'f.txt'), 'inside');
  writeFileSync(join(ws, 'd', 'sub', 'g.txt'), 'inside');
  mkdirSync(join(ws, '.git'));
  writeFileSync(join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  return { root, ws, outside };
}

/** What a racing process does: `d` becomes a link to `outside` after it was resolved. */
function swapForLink(ws: string, name: string, target: string): void {
  renameSync(join(ws, name), join(ws, `${name}.moved`));
  symlinkSync(target, join(ws, name));
}

function outsideState(outside: string): string {
  const files = readdirSync(outside, { recursive: true, withFileTypes: true });
  return JSON.stringify(
    files
      .map((f) => {
        const path = join(f.parentPath, f.name);
        return [path, f.isFile() ? readFileSync(path, 'utf8') : 'dir'];
      })
      .sort(),
  );
}

describe('safeFs: confinement without a window', () => {
  it('reads, lists and writes the resolved path in normal use', () => {
    const { ws } = fixture();
    const file = resolveInWorkspace(ws, 'd/f.txt');
    assert.equal(
      withFile(ws, file.real, 'd/f.txt', (f) => f.read().toString()),
      'inside',
    );
    const dir = resolveInWorkspace(ws, 'd');
    assert.deepEqual(
      listDirectory(ws, dir.real, 'd')
        .map((e) => e.name)
        .sort(),
      ['f.txt', 'sub'],
    );
    const fresh = resolveInWorkspace(ws, 'd/new/deeper/x.txt');
    assert.deepEqual(writeFileConfined(ws, fresh.real, 'd/new/deeper/x.txt', 'x'), {
      created: true,
    });
    assert.deepEqual(writeFileConfined(ws, file.real, 'd/f.txt', 'changed'), { created: false });
    assert.equal(readFileSync(join(ws, 'd', 'f.txt'), 'utf8'), 'changed');
    assert.equal(readFileSync(join(ws, 'd', 'new', 'deeper', 'x.txt'), 'utf8'), 'x');
    // The temporary file is renamed into place, never left behind.
    assert.deepEqual(
      readdirSync(join(ws, 'd')).filter((n) => n.startsWith('.arbor-')),
      [],
    );
  });

  it('a parent swapped for a link after resolving: read, list and write refuse', () => {
    const { ws, outside } = fixture();
    const before = outsideState(outside);
    const file = resolveInWorkspace(ws, 'd/f.txt');
    const sub = resolveInWorkspace(ws, 'd/sub');
    const nested = resolveInWorkspace(ws, 'd/sub/new/x.txt');
    swapForLink(ws, 'd', outside);

    assert.throws(
      () => withFile(ws, file.real, 'd/f.txt', (f) => f.read().toString()),
      (e: Error) => e instanceof WorkspaceEscapeError && /changed while/.test(e.message),
    );
    assert.throws(() => listDirectory(ws, sub.real, 'd/sub'), WorkspaceEscapeError);
    assert.throws(() => writeFileConfined(ws, file.real, 'd/f.txt', 'x'), WorkspaceEscapeError);
    // Missing parents are not created outside either.
    assert.throws(
      () => writeFileConfined(ws, nested.real, 'd/sub/new/x.txt', 'x'),
      WorkspaceEscapeError,
    );
    assert.equal(outsideState(outside), before);
  });

  it('the directory itself swapped for a link: list refuses', () => {
    const { ws, outside } = fixture();
    const dir = resolveInWorkspace(ws, 'd');
    swapForLink(ws, 'd', outside);
    assert.throws(() => listDirectory(ws, dir.real, 'd'), /changed while it was being opened/);
  });

  it('a link put at the last component of a write: refused, nothing written through it', () => {
    const { ws, outside } = fixture();
    const before = outsideState(outside);
    const file = resolveInWorkspace(ws, 'd/f.txt');
    rmSync(join(ws, 'd', 'f.txt'));
    symlinkSync(join(outside, 'f.txt'), join(ws, 'd', 'f.txt'));
    assert.throws(() => writeFileConfined(ws, file.real, 'd/f.txt', 'x'), /changed while/);
    assert.throws(() => withFile(ws, file.real, 'd/f.txt', (f) => f.read()), /changed while/);
    assert.equal(outsideState(outside), before);
    assert.ok(lstatSync(join(ws, 'd', 'f.txt')).isSymbolicLink(), 'the link is left alone');
  });

  it('a hard link to an outside file is replaced, not written through', () => {
    const { ws, outside } = fixture();
    linkSync(join(outside, 'f.txt'), join(ws, 'hard.txt'));
    const file = resolveInWorkspace(ws, 'hard.txt');
    writeFileConfined(ws, file.real, 'hard.txt', 'new content');
    assert.equal(readFileSync(join(outside, 'f.txt'), 'utf8'), CANARY);
    assert.equal(readFileSync(join(ws, 'hard.txt'), 'utf8'), 'new content');
  });

  it('keeps the mode of a file it rewrites', () => {
    const { ws } = fixture();
    const script = join(ws, 'run.sh');
    writeFileSync(script, 'echo 1');
    chmodSync(script, 0o750);
    writeFileConfined(ws, resolveInWorkspace(ws, 'run.sh').real, 'run.sh', 'echo 2');
    assert.equal(statSync(script).mode & 0o777, 0o750);
    assert.equal(readFileSync(script, 'utf8'), 'echo 2');
  });

  it('an unwritable file stays unwritable', function () {
    if (process.getuid?.() === 0) this.skip(); // root writes anything
    const { ws } = fixture();
    const script = join(ws, 'run.sh');
    writeFileSync(script, 'echo 2');
    chmodSync(script, 0o444);
    assert.throws(
      () => writeFileConfined(ws, resolveInWorkspace(ws, 'run.sh').real, 'run.sh', 'echo 3'),
      { code: 'EACCES' },
    );
    assert.equal(readFileSync(script, 'utf8'), 'echo 2');
  });

  it('a write that resolves into .git/ without naming it is refused; naming .git/ writes', () => {
    const { ws } = fixture();
    symlinkSync('.git', join(ws, 'gl'));
    const viaLink = resolveInWorkspace(ws, 'gl/config');
    assert.throws(
      () => writeFileConfined(ws, viaLink.real, 'gl/config', 'x'),
      /leads into \.git\/, a protected path/,
    );
    assert.equal(existsSync(join(ws, '.git', 'config')), false);
    const named = resolveInWorkspace(ws, '.git/config');
    writeFileConfined(ws, named.real, '.git/config', 'x');
    assert.equal(readFileSync(join(ws, '.git', 'config'), 'utf8'), 'x');
  });

  it('the gate classes a path naming .git/ as protected whatever .git is right now', () => {
    const { ws, outside } = fixture();
    swapForLink(ws, '.git', outside);
    assert.equal(isProtectedPath(ws, '.git/config', undefined), true);
    assert.equal(isProtectedPath(ws, 'd/../.GIT/hooks/x', undefined), true);
    assert.equal(isProtectedPath(ws, 'd/f.txt', undefined), false);
  });

  it('/proc check: a descriptor is judged by where it really is, not the path it was opened by', function () {
    if (!PROC_FD) this.skip();
    const { ws, outside } = fixture();
    const fd = openSync(join(ws, 'd', 'f.txt'), 'r');
    try {
      assert.equal(descriptorPath(fd, join(ws, 'd', 'f.txt')), join(ws, 'd', 'f.txt'));
      // The file moved away after it was opened: the kernel knows where it is now.
      renameSync(join(ws, 'd'), join(outside, 'moved'));
      assert.equal(descriptorPath(fd, join(ws, 'd', 'f.txt')), join(outside, 'moved', 'f.txt'));
    } finally {
      closeSync(fd);
    }
    const out = openSync(join(outside, 'f.txt'), 'r');
    try {
      // Opened through a link inside the workspace, it still is outside.
      symlinkSync(outside, join(ws, 'via'));
      closeSync(openSync(join(ws, 'via', 'f.txt'), 'r'));
      assert.equal(descriptorPath(out, join(ws, 'via', 'f.txt')), join(outside, 'f.txt'));
    } finally {
      closeSync(out);
    }
  });

  it('without /proc the dev/ino check refuses a path that no longer names the opened file', () => {
    const { ws } = fixture();
    const path = join(ws, 'd', 'f.txt');
    const fd = openSync(path, 'r');
    try {
      assert.equal(descriptorPath(fd, path, false), path);
      renameSync(path, join(ws, 'd', 'old.txt'));
      writeFileSync(path, 'a different file');
      assert.equal(descriptorPath(fd, path, false), undefined);
    } finally {
      closeSync(fd);
    }
  });

  it('read_file of a FIFO answers at once instead of blocking the turn', async function () {
    const { ws } = fixture();
    try {
      execFileSync('mkfifo', [join(ws, 'pipe')]);
    } catch {
      this.skip();
    }
    const read = createWorkspaceTools(openWorkspace(ws, { watch: false }))[0] as Tool;
    const ctx = {
      signal: new AbortController().signal,
      memory: new TurnMemory(),
      emit: () => undefined,
    } as unknown as ToolContext;
    const out = await read.execute(read.input.parse({ path: 'pipe' }), ctx);
    assert.deepEqual(out, { content: 'pipe is not a regular file', isError: true });
  });
});
