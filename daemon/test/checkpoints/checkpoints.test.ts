/**
 * Workspace checkpoints against real git in temp directories: what a
 * snapshot records, what changes() and diff() report, and that restore
 * brings files back byte for byte while refusing to overwrite other
 * people's edits, to leave the workspace, or to touch `.git` and ignored
 * files.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CheckpointError,
  WorkspaceCheckpoints,
  acquireCheckpoints,
  isUnavailable,
  shadowDirFor,
  type CheckpointsOptions,
} from '../../src/checkpoints/index.js';

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

let scratch: string;
let ws: string;
let dataDir: string;

function write(rel: string, content: string | Buffer): void {
  mkdirSync(join(ws, rel, '..'), { recursive: true });
  writeFileSync(join(ws, rel), content);
}
const read = (rel: string): Buffer => readFileSync(join(ws, rel));
const modeOf = (rel: string): number => statSync(join(ws, rel)).mode & 0o777;

async function open(options: Partial<CheckpointsOptions> = {}): Promise<WorkspaceCheckpoints> {
  const opened = await WorkspaceCheckpoints.open({ workspaceRoot: ws, dataDir, ...options });
  if (isUnavailable(opened)) assert.fail(opened.reason);
  return opened;
}

/** Runs real git in the user's own repository (test setup only). */
function userGit(...args: string[]): string {
  return execFileSync(REAL_GIT, args, {
    cwd: ws,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: scratch,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
}

/** Runs git on the shadow repository, to look at what a snapshot holds. */
function shadowGit(...args: string[]): string {
  return execFileSync(REAL_GIT, [`--git-dir=${shadowDirFor(dataDir, ws)}`, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', HOME: scratch },
  });
}

/** A hash over every file (path, mode, bytes) below `dir`. */
function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const s = statSync(p);
      hash.update(`${p}\0${s.mode}\0`);
      if (s.isDirectory()) walk(p);
      else hash.update(readFileSync(p));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

async function rejectsWith(
  promise: Promise<unknown>,
  code: CheckpointError['code'],
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof CheckpointError, String(error));
    assert.equal(error.code, code, error.message);
    return true;
  });
}

beforeEach(() => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'arbor-ckpt-')));
  ws = join(scratch, 'ws');
  dataDir = join(scratch, 'data');
  mkdirSync(ws);
});

afterEach(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('workspace checkpoints', () => {
  describe('a turn that modifies, creates, deletes and chmods files', () => {
    let ckpt: WorkspaceCheckpoints;
    let before: string;
    let after: string;
    const original = {
      'src/a.ts': 'line 1\nline 2\nline 3\n',
      'src/gone.ts': 'one\ntwo\n',
      'bin/run.sh': '#!/bin/sh\necho hi\n',
      'img.bin': Buffer.from([0, 1, 2, 255, 0, 10]),
    };

    beforeEach(async () => {
      for (const [rel, content] of Object.entries(original)) write(rel, content);
      chmodSync(join(ws, 'bin/run.sh'), 0o644);
      ckpt = await open();
      before = (await ckpt.snapshot('before turn 1')).id;
      // The turn:
      write('src/a.ts', 'line 1\nline two\nline 3\nline 4\n');
      write('src/new.ts', 'export {};\n');
      unlinkSync(join(ws, 'src/gone.ts'));
      chmodSync(join(ws, 'bin/run.sh'), 0o755);
      write('img.bin', Buffer.from([9, 0, 9]));
      after = (await ckpt.snapshot('after turn 1')).id;
    });
    afterEach(() => ckpt.close());

    it('changes() lists each file with its status and line counts', async () => {
      assert.deepEqual(await ckpt.changes(before, after), [
        { path: 'bin/run.sh', status: 'modified', added: 0, removed: 0, modeChanged: true },
        { path: 'img.bin', status: 'modified', added: 0, removed: 0, binary: true },
        { path: 'src/a.ts', status: 'modified', added: 2, removed: 1 },
        { path: 'src/gone.ts', status: 'deleted', added: 0, removed: 2 },
        { path: 'src/new.ts', status: 'added', added: 1, removed: 0 },
      ]);
    });

    it('diff() gives a unified diff, limited to paths, cut at maxBytes', async () => {
      const { patch, truncated } = await ckpt.diff(before, after, { paths: ['src/a.ts'] });
      assert.equal(truncated, false);
      assert.match(patch, /^diff --git a\/src\/a\.ts b\/src\/a\.ts\n/);
      assert.match(patch, /\n-line 2\n\+line two\n line 3\n\+line 4\n$/);
      const cut = await ckpt.diff(before, after, { maxBytes: 60 });
      assert.equal(cut.truncated, true);
      assert.ok(cut.patch.length <= 60 && cut.patch.endsWith('\n'));
    });

    it('restore() brings every path back byte for byte, with its mode', async () => {
      const paths = ['src/a.ts', 'src/new.ts', 'src/gone.ts', 'bin/run.sh', 'img.bin'];
      const result = await ckpt.restore(before, { paths, expected: after });
      assert.deepEqual(result, {
        ok: true,
        restored: paths,
        conflicts: [],
        skipped: [],
        failed: [],
      });
      for (const [rel, content] of Object.entries(original))
        assert.deepEqual(read(rel), Buffer.from(content));
      assert.equal(existsSync(join(ws, 'src/new.ts')), false);
      assert.equal(modeOf('bin/run.sh') & 0o111, 0);
      // And forward again (redo), to the executable script.
      const redo = await ckpt.restore(after, { paths, expected: before });
      assert.equal(redo.ok, true);
      assert.equal(modeOf('bin/run.sh') & 0o100, 0o100);
      assert.equal(read('src/new.ts').toString(), 'export {};\n');
      assert.equal(existsSync(join(ws, 'src/gone.ts')), false);
    });

    it('restore() touches only the paths it is given', async () => {
      await ckpt.restore(before, { paths: ['src/a.ts'], expected: after });
      assert.equal(read('src/a.ts').toString(), original['src/a.ts']);
      assert.equal(read('src/new.ts').toString(), 'export {};\n');
      assert.equal(existsSync(join(ws, 'src/gone.ts')), false);
    });

    it('a file changed since `expected` is a conflict, and then nothing is restored', async () => {
      write('src/a.ts', 'someone else edited this\n');
      const workspace = treeHash(ws);
      const paths = ['src/a.ts', 'src/new.ts', 'src/gone.ts'];
      const result = await ckpt.restore(before, { paths, expected: after });
      assert.deepEqual(result, { ok: false, conflicts: ['src/a.ts'] });
      assert.equal(treeHash(ws), workspace);
    });

    it('a chmod, a new file or a deletion since `expected` is a conflict too', async () => {
      chmodSync(join(ws, 'bin/run.sh'), 0o644);
      write('src/gone.ts', 'recreated by the user\n');
      unlinkSync(join(ws, 'src/new.ts'));
      const result = await ckpt.restore(before, {
        paths: ['bin/run.sh', 'src/gone.ts', 'src/new.ts', 'src/a.ts'],
        expected: after,
      });
      assert.deepEqual(result, {
        ok: false,
        conflicts: ['bin/run.sh', 'src/gone.ts', 'src/new.ts'],
      });
    });

    it('force restores the conflicting paths too, and says which they were', async () => {
      write('src/a.ts', 'someone else edited this\n');
      const result = await ckpt.restore(before, {
        paths: ['src/a.ts', 'src/new.ts'],
        expected: after,
        force: true,
      });
      assert.deepEqual(result, {
        ok: true,
        restored: ['src/a.ts', 'src/new.ts'],
        conflicts: ['src/a.ts'],
        skipped: [],
        failed: [],
      });
      assert.equal(read('src/a.ts').toString(), original['src/a.ts']);
    });

    it('unknown ids and malformed requests are typed errors', async () => {
      await rejectsWith(ckpt.changes(before, 'f'.repeat(40)), 'unknown-checkpoint');
      await rejectsWith(ckpt.changes(before, 'HEAD'), 'unknown-checkpoint');
      await rejectsWith(ckpt.diff('--output=/tmp/x', after), 'unknown-checkpoint');
      await rejectsWith(ckpt.restore(before, { paths: [], expected: after }), 'invalid-request');
      await rejectsWith(ckpt.restore(before, { paths: ['src'], expected: after }), 'unsafe-path');
    });

    it('after close(), calls fail with `closed`', async () => {
      ckpt.close();
      await rejectsWith(ckpt.snapshot('late'), 'closed');
    });
  });

  it('snapshots chain: each is a commit whose parent is the previous one', async () => {
    write('a', '1');
    const ckpt = await open();
    const first = (await ckpt.snapshot('one')).id;
    const second = (await ckpt.snapshot('two')).id;
    assert.equal(shadowGit('rev-parse', `${second}^`).trim(), first);
    assert.equal(
      shadowGit('log', '-1', '--format=%an <%ae>|%s', second).trim(),
      'Arbor checkpoints <checkpoints@arbor.invalid>|two',
    );
    assert.deepEqual(await ckpt.changes(first, second), []);
  });

  it('never lists or touches .gitignored files', async () => {
    write('.gitignore', 'node_modules/\n*.log\n');
    write('node_modules/dep/index.js', 'v1');
    write('debug.log', 'old');
    write('src/x.ts', 'x');
    const ckpt = await open();
    const before = (await ckpt.snapshot('before')).id;
    write('node_modules/dep/index.js', 'v2');
    write('debug.log', 'new');
    write('src/x.ts', 'y');
    const after = (await ckpt.snapshot('after')).id;
    assert.deepEqual(
      (await ckpt.changes(before, after)).map((c) => c.path),
      ['src/x.ts'],
    );
    assert.equal(shadowGit('ls-tree', '-r', '--name-only', after), '.gitignore\nsrc/x.ts\n');
    await ckpt.restore(before, { paths: ['src/x.ts'], expected: after });
    assert.equal(read('node_modules/dep/index.js').toString(), 'v2');
    assert.equal(read('debug.log').toString(), 'new');
  });

  it("leaves the user's own .git alone and never records it", async () => {
    write('tracked.txt', 'v1\n');
    userGit('init', '-q');
    userGit('add', '-A');
    userGit('commit', '-q', '-m', 'user commit');
    const userRepo = treeHash(join(ws, '.git'));
    const ckpt = await open();
    const before = (await ckpt.snapshot('before')).id;
    write('tracked.txt', 'v2\n');
    write('new.txt', 'n\n');
    const after = (await ckpt.snapshot('after')).id;
    await ckpt.restore(before, { paths: ['tracked.txt', 'new.txt'], expected: after });
    assert.equal(treeHash(join(ws, '.git')), userRepo);
    assert.equal(userGit('status', '--porcelain'), '');
    assert.doesNotMatch(shadowGit('ls-tree', '-r', '--name-only', after), /\.git\//);
    await rejectsWith(
      ckpt.restore(before, { paths: ['.git/config'], expected: after }),
      'unsafe-path',
    );
    await rejectsWith(
      ckpt.restore(before, { paths: ['sub/.GIT/HEAD'], expected: after }),
      'unsafe-path',
    );
  });

  it('records a nested repository as its files, not a gitlink, and restores them', async () => {
    write('top.txt', 't');
    write('vendor/lib/lib.c', 'int x;\n');
    write('vendor/lib/.gitignore', 'build/\n');
    write('vendor/lib/build/out.o', 'obj');
    execFileSync(REAL_GIT, ['init', '-q'], { cwd: join(ws, 'vendor/lib') });
    write('vendor/lib/deeper/inner/i.c', 'int i;\n');
    execFileSync(REAL_GIT, ['init', '-q'], { cwd: join(ws, 'vendor/lib/deeper/inner') });
    const nestedRepo = treeHash(join(ws, 'vendor/lib/.git'));
    const ckpt = await open();
    const before = (await ckpt.snapshot('before')).id;
    const tree = shadowGit('ls-tree', '-r', before);
    assert.doesNotMatch(tree, /^160000/m, tree);
    assert.deepEqual(shadowGit('ls-tree', '-r', '--name-only', before).trim().split('\n'), [
      'top.txt',
      'vendor/lib/.gitignore',
      'vendor/lib/deeper/inner/i.c',
      'vendor/lib/lib.c',
    ]);
    write('vendor/lib/lib.c', 'int y;\n');
    write('vendor/lib/added.c', 'new\n');
    const after = (await ckpt.snapshot('after')).id;
    assert.deepEqual(
      (await ckpt.changes(before, after)).map((c) => `${c.status} ${c.path}`),
      ['added vendor/lib/added.c', 'modified vendor/lib/lib.c'],
    );
    const result = await ckpt.restore(before, {
      paths: ['vendor/lib/lib.c', 'vendor/lib/added.c'],
      expected: after,
    });
    assert.equal(result.ok, true);
    assert.equal(read('vendor/lib/lib.c').toString(), 'int x;\n');
    assert.equal(treeHash(join(ws, 'vendor/lib/.git')), nestedRepo);
  });

  it('stores bytes as they are, whatever .gitattributes asks (eol, filters)', async () => {
    write('.gitattributes', '* text eol=lf\n*.dat filter=secret\n');
    const crlf = 'a\r\nb\r\n';
    write('win.txt', crlf);
    write('x.dat', 'raw');
    const ckpt = await open();
    const before = (await ckpt.snapshot('before')).id;
    write('win.txt', 'changed\n');
    const after = (await ckpt.snapshot('after')).id;
    await ckpt.restore(before, { paths: ['win.txt'], expected: after });
    assert.equal(read('win.txt').toString(), crlf);
  });

  it('leaves files over the size cap out, reports them, and never restores them', async () => {
    write('small.txt', 's');
    write('big.bin', Buffer.alloc(2048, 1));
    const ckpt = await open({ maxFileBytes: 1024 });
    const first = await ckpt.snapshot('before');
    assert.deepEqual(first.skipped, ['big.bin']);
    assert.equal(shadowGit('ls-tree', '-r', '--name-only', first.id), 'small.txt\n');
    write('big.bin', Buffer.alloc(10, 2)); // now small: recorded
    write('huge.bin', Buffer.alloc(4096, 3));
    const second = await ckpt.snapshot('after');
    assert.deepEqual(second.skipped, ['huge.bin']);
    assert.deepEqual(await ckpt.changes(first.id, second.id), [
      { path: 'big.bin', status: 'modified', added: 0, removed: 0, tooLarge: true },
      { path: 'huge.bin', status: 'added', added: 0, removed: 0, tooLarge: true },
    ]);
    const result = await ckpt.restore(first.id, {
      paths: ['big.bin', 'huge.bin', 'small.txt'],
      expected: second.id,
    });
    assert.deepEqual(result, {
      ok: true,
      restored: ['small.txt'],
      conflicts: [],
      skipped: ['big.bin', 'huge.bin'],
      failed: [],
    });
    assert.equal(read('huge.bin').length, 4096);
    // A tracked file that grows past the cap is dropped from the next snapshot, not kept stale.
    write('big.bin', Buffer.alloc(5000, 4));
    const third = await ckpt.snapshot('grew');
    assert.deepEqual(third.skipped, ['big.bin', 'huge.bin']);
    assert.equal(shadowGit('ls-tree', '-r', '--name-only', third.id), 'small.txt\n');
  });

  describe('confinement', () => {
    let outside: string;
    beforeEach(() => {
      outside = join(scratch, 'outside');
      mkdirSync(outside);
      writeFileSync(join(outside, 'x.txt'), 'outside\n');
    });

    it('a path whose directory was swapped for a link to outside fails alone; nothing is written outside', async () => {
      write('sub/x.txt', 'inside\n');
      write('top.txt', 'v1\n');
      const ckpt = await open();
      const before = (await ckpt.snapshot('before')).id;
      rmSync(join(ws, 'sub'), { recursive: true });
      write('top.txt', 'v2\n');
      const after = (await ckpt.snapshot('after')).id;
      symlinkSync(outside, join(ws, 'sub'));
      for (const force of [false, true]) {
        const result = await ckpt.restore(before, {
          paths: ['sub/x.txt', 'top.txt'],
          expected: after,
          force,
        });
        assert.equal(result.ok, true);
        assert.ok(result.ok);
        assert.deepEqual(result.restored, ['top.txt']);
        assert.deepEqual(
          result.failed.map((f) => f.path),
          ['sub/x.txt'],
        );
      }
      assert.equal(read('top.txt').toString(), 'v1\n');
      assert.equal(readFileSync(join(outside, 'x.txt'), 'utf8'), 'outside\n');
      assert.deepEqual(readdirSync(outside), ['x.txt']);
    });

    it('refuses "..", absolute paths and NUL bytes', async () => {
      write('a', '1');
      const ckpt = await open();
      const id = (await ckpt.snapshot('s')).id;
      for (const path of [
        '../outside/x.txt',
        'a/../../outside/x.txt',
        join(outside, 'x.txt'),
        'a\0b',
      ]) {
        await rejectsWith(ckpt.restore(id, { paths: [path], expected: id }), 'unsafe-path');
      }
    });

    it('follows a directory link that stays inside the workspace', async () => {
      write('real/f.txt', 'v1\n');
      symlinkSync('real', join(ws, 'alias'));
      const ckpt = await open();
      const before = (await ckpt.snapshot('before')).id;
      write('real/f.txt', 'v2\n');
      const after = (await ckpt.snapshot('after')).id;
      const result = await ckpt.restore(before, { paths: ['real/f.txt'], expected: after });
      assert.equal(result.ok, true);
      assert.equal(read('alias/f.txt').toString(), 'v1\n');
    });
  });

  it("git runs with an environment of its own: no secret from the daemon's", async () => {
    process.env.ARBOR_TEST_API_KEY = 'sk-test-secret-123';
    const dump = join(scratch, 'git-env.txt');
    const wrapper = join(scratch, 'fake-git');
    writeFileSync(
      wrapper,
      `#!/bin/sh\nenv >> '${dump}'\necho ---- >> '${dump}'\nexec '${REAL_GIT}' "$@"\n`,
      { mode: 0o755 },
    );
    try {
      write('a.txt', 'a');
      const ckpt = await open({ gitPath: wrapper });
      const before = (await ckpt.snapshot('before')).id;
      write('a.txt', 'b');
      const after = (await ckpt.snapshot('after')).id;
      await ckpt.changes(before, after);
      await ckpt.restore(before, { paths: ['a.txt'], expected: after });
    } finally {
      delete process.env.ARBOR_TEST_API_KEY;
    }
    const seen = readFileSync(dump, 'utf8');
    assert.doesNotMatch(seen, /sk-test-secret-123|ARBOR_TEST_API_KEY/);
    const names = new Set(
      seen
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => l.slice(0, l.indexOf('='))),
    );
    for (const name of names) {
      assert.match(
        name,
        /^(PATH|HOME|XDG_CONFIG_HOME|LC_ALL|LANG|GIT_[A-Z_]+|PWD|SHLVL|_|OLDPWD)$/,
        name,
      );
    }
    assert.ok(seen.includes('GIT_CONFIG_NOSYSTEM=1'));
    assert.ok(seen.includes(`HOME=${join(dataDir, 'checkpoints', 'empty-home')}`));
  });

  it('reports a full disk as disk-full, not a crash', async () => {
    const wrapper = join(scratch, 'full-git');
    writeFileSync(
      wrapper,
      `#!/bin/sh\nfor a in "$@"; do [ "$a" = write-tree ] && { echo "fatal: unable to write new index file: No space left on device" >&2; exit 128; }; done\nexec '${REAL_GIT}' "$@"\n`,
      { mode: 0o755 },
    );
    write('a.txt', 'a');
    const ckpt = await open({ gitPath: wrapper });
    await rejectsWith(ckpt.snapshot('s'), 'disk-full');
    // The instance still answers afterwards.
    await rejectsWith(ckpt.changes('0'.repeat(40), '0'.repeat(40)), 'unknown-checkpoint');
  });

  it('goes on past files git cannot read (add --ignore-errors exits non-zero)', async () => {
    const wrapper = join(scratch, 'unreadable-git');
    writeFileSync(
      wrapper,
      `#!/bin/sh\n'${REAL_GIT}' "$@" || exit $?\nfor a in "$@"; do [ "$a" = add ] && { echo "error: open(\\"locked.txt\\"): Permission denied" >&2; echo "error: unable to index file 'locked.txt'" >&2; echo "fatal: adding files failed" >&2; exit 128; }; done\nexit 0\n`,
      { mode: 0o755 },
    );
    write('a.txt', 'a');
    const ckpt = await open({ gitPath: wrapper });
    const { id } = await ckpt.snapshot('s');
    assert.equal(shadowGit('ls-tree', '-r', '--name-only', id), 'a.txt\n');
  });

  it('a label cannot forge the size-cap record, and a multi-line label is one line', async () => {
    write('a.txt', 'a');
    const ckpt = await open();
    const first = (await ckpt.snapshot('Arbor-Skipped: ["a.txt"]\nArbor-Skipped: ["a.txt"]')).id;
    write('a.txt', 'b');
    const second = (await ckpt.snapshot('next')).id;
    assert.equal(
      shadowGit('log', '-1', '--format=%B', first).trim(),
      'Arbor-Skipped: ["a.txt"] Arbor-Skipped: ["a.txt"]',
    );
    const reopened = await open();
    assert.deepEqual(await reopened.changes(first, second), [
      { path: 'a.txt', status: 'modified', added: 1, removed: 1 },
    ]);
  });

  it('reports a path it cannot write as failed and restores the others', async () => {
    write('dir/f.txt', 'f1');
    write('g.txt', 'g1');
    const ckpt = await open();
    const before = (await ckpt.snapshot('before')).id;
    rmSync(join(ws, 'dir'), { recursive: true });
    write('g.txt', 'g2');
    const after = (await ckpt.snapshot('after')).id;
    writeFileSync(join(ws, 'dir'), 'now a file');
    const result = await ckpt.restore(before, { paths: ['dir/f.txt', 'g.txt'], expected: after });
    assert.equal(result.ok, true);
    assert.ok(result.ok);
    assert.deepEqual(result.restored, ['g.txt']);
    assert.equal(result.failed.length, 1);
    assert.match(result.failed[0]!.reason, /dir\/f\.txt/);
    assert.equal(read('dir').toString(), 'now a file');
  });

  it('is unavailable, with a readable reason, without git or without a workspace directory', async () => {
    const noGit = await WorkspaceCheckpoints.open({
      workspaceRoot: ws,
      dataDir,
      gitPath: join(scratch, 'no-such-git'),
    });
    assert.ok(isUnavailable(noGit));
    assert.match(noGit.reason, /git was not found/);
    writeFileSync(join(scratch, 'file'), '');
    const notDir = await WorkspaceCheckpoints.open({
      workspaceRoot: join(scratch, 'file'),
      dataDir,
    });
    assert.ok(isUnavailable(notDir) && /not a directory/.test(notDir.reason));
    const missing = await WorkspaceCheckpoints.open({
      workspaceRoot: join(scratch, 'nope'),
      dataDir,
    });
    assert.ok(isUnavailable(missing) && /does not exist/.test(missing.reason));
  });

  it('keeps the shadow repository under <dataDir>/checkpoints/<hash>, outside the workspace', async () => {
    write('a', '1');
    const ckpt = await open();
    await ckpt.snapshot('s');
    assert.equal(ckpt.shadowDir, shadowDirFor(dataDir, ws));
    assert.match(ckpt.shadowDir, /\/checkpoints\/[0-9a-f]{16}$/);
    assert.ok(existsSync(join(ckpt.shadowDir, 'index')));
    assert.equal(existsSync(join(ws, '.git')), false);
  });

  it('does not snapshot a data directory that lies inside the workspace', async () => {
    write('a', '1');
    dataDir = join(ws, '.arbor');
    const ckpt = await open();
    const { id } = await ckpt.snapshot('s');
    assert.equal(shadowGit('ls-tree', '-r', '--name-only', id), 'a\n');
  });

  describe('sharing one workspace between sessions', () => {
    it('acquire gives every session the same instance; the last release closes it', async () => {
      write('a', '1');
      const one = await acquireCheckpoints(ws, dataDir);
      const two = await acquireCheckpoints(join(ws, '.'), dataDir);
      assert.ok(!isUnavailable(one) && !isUnavailable(two));
      assert.equal(one.checkpoints, two.checkpoints);
      // Concurrent snapshots queue: each one's parent is the one before it.
      const ids = await Promise.all([1, 2, 3, 4].map((i) => one.checkpoints.snapshot(`s${i}`)));
      for (let i = 1; i < ids.length; i++) {
        assert.equal(shadowGit('rev-parse', `${ids[i]!.id}^`).trim(), ids[i - 1]!.id);
      }
      one.release();
      one.release(); // twice is once
      await two.checkpoints.snapshot('still open');
      two.release();
      await rejectsWith(two.checkpoints.snapshot('closed'), 'closed');
      const three = await acquireCheckpoints(ws, dataDir);
      assert.ok(!isUnavailable(three));
      assert.notEqual(three.checkpoints, one.checkpoints);
      three.release();
    });

    it('an unavailable workspace is not kept', async () => {
      const lease = await acquireCheckpoints(join(scratch, 'missing'), dataDir);
      assert.ok(isUnavailable(lease));
    });
  });

  it('a second snapshot of a 5,000-file tree with one change rehashes just that file', async function () {
    this.timeout(120_000);
    for (let d = 0; d < 50; d++) {
      mkdirSync(join(ws, `d${d}`));
      for (let f = 0; f < 100; f++)
        writeFileSync(join(ws, `d${d}`, `f${f}.ts`), `export const v = ${d * 100 + f};\n`);
    }
    const ckpt = await open();
    let t = performance.now();
    const first = (await ckpt.snapshot('first')).id;
    const firstMs = performance.now() - t;
    write('d7/f7.ts', 'changed\n');
    t = performance.now();
    const second = (await ckpt.snapshot('second')).id;
    const secondMs = performance.now() - t;
    console.log(
      `      first snapshot ${firstMs.toFixed(0)} ms, second (one change) ${secondMs.toFixed(0)} ms`,
    );
    assert.deepEqual(await ckpt.changes(first, second), [
      { path: 'd7/f7.ts', status: 'modified', added: 1, removed: 1 },
    ]);
    assert.equal(shadowGit('ls-tree', '-r', '--name-only', second).split('\n').length - 1, 5000);
  });
});
