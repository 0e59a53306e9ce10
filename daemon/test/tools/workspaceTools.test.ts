/** The workspace tools as the model uses them: results a user would notice. */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Methods } from '@arbor/protocol';
import type { Tool, ToolContext } from '../../src/tools/tool.js';
import {
  createWorkspaceTools,
  openWorkspace,
  type Workspace,
} from '../../src/tools/workspace/index.js';
import { MAX_READ_BYTES } from '../../src/tools/workspace/fileTools.js';
import { tempDir, until } from '../permissions/helpers.js';
import { toolContext } from './toolContext.js';

interface Emitted {
  method: string;
  params: unknown;
}

function context(signal = new AbortController().signal, emitted: Emitted[] = []): ToolContext {
  return toolContext({
    signal,
    emit: (descriptor, params) => emitted.push({ method: descriptor.method, params }),
  });
}

function toolbox(workspace: Workspace) {
  const tools = new Map(createWorkspaceTools(workspace).map((t) => [t.name, t]));
  return async (name: string, args: unknown, ctx = context()) => {
    const tool = tools.get(name) as Tool;
    const out = await tool.execute(tool.input.parse(args), ctx);
    return typeof out === 'string'
      ? { content: out, isError: false }
      : { content: out.content, isError: out.isError === true };
  };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A sleep length no other process uses, to find that process by its command line. */
function uniqueSleep(): string {
  return `30.${process.pid}${Math.floor(Math.random() * 1e6)}`;
}

/** Pids (of this host) of the processes whose command line is exactly `argv`. */
function pidsOf(argv: string[]): number[] {
  const wanted = argv.join('\0') + '\0';
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/cmdline`, 'utf8') === wanted;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

describe('workspace tools', function () {
  this.timeout(20_000);
  let ws: string;
  let workspace: Workspace;
  let call: ReturnType<typeof toolbox>;

  beforeEach(() => {
    ws = tempDir();
    workspace = openWorkspace(ws, { watch: true });
    call = toolbox(workspace);
  });
  afterEach(async () => {
    await workspace.guard.close();
  });

  describe('read_file', () => {
    it('reads whole files and line ranges', async () => {
      writeFileSync(join(ws, 'f.txt'), 'one\ntwo\nthree\nfour');
      assert.equal((await call('read_file', { path: 'f.txt' })).content, 'one\ntwo\nthree\nfour');
      const range = await call('read_file', { path: 'f.txt', offset: 2, limit: 2 });
      assert.match(range.content, /^two\nthree\n\[lines 2-3 of 4/);
      assert.equal((await call('read_file', { path: 'f.txt', offset: 9 })).isError, true);
    });

    it('caps what one call returns and says how to read on', async () => {
      const line = 'x'.repeat(99);
      writeFileSync(join(ws, 'big.txt'), Array.from({ length: 5000 }, () => line).join('\n'));
      const result = await call('read_file', { path: 'big.txt' });
      assert.ok(Buffer.byteLength(result.content) < MAX_READ_BYTES + 200);
      assert.match(result.content, /\[lines 1-\d+ of 5000; pass offset and limit/);
    });

    it('refuses directories, missing and binary files with clear errors', async () => {
      mkdirSync(join(ws, 'd'));
      writeFileSync(join(ws, 'bin'), Buffer.from([1, 0, 2]));
      assert.match((await call('read_file', { path: 'd' })).content, /directory/);
      assert.match((await call('read_file', { path: 'nope' })).content, /not found/);
      assert.match((await call('read_file', { path: 'bin' })).content, /binary/);
    });
  });

  it('list_dir marks directories', async () => {
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'a.txt'), '');
    assert.equal((await call('list_dir', { path: '.' })).content, 'a.txt\nsrc/');
  });

  describe('glob and grep', () => {
    beforeEach(() => {
      mkdirSync(join(ws, 'src', 'deep'), { recursive: true });
      mkdirSync(join(ws, 'node_modules', 'pkg'), { recursive: true });
      mkdirSync(join(ws, 'dist'));
      writeFileSync(join(ws, '.gitignore'), 'dist/\n*.log\n!keep.log\n');
      writeFileSync(
        join(ws, 'src', 'a.ts'),
        'const alpha = 1;\nconst beta = 2;\nconst gamma = 3;\n',
      );
      writeFileSync(join(ws, 'src', 'deep', 'b.ts'), 'export const beta = "b";\n');
      writeFileSync(join(ws, 'src', 'c.js'), 'beta\n');
      writeFileSync(join(ws, 'dist', 'a.ts'), 'beta\n');
      writeFileSync(join(ws, 'node_modules', 'pkg', 'i.ts'), 'beta\n');
      writeFileSync(join(ws, 'debug.log'), 'beta\n');
      writeFileSync(join(ws, 'keep.log'), 'beta\n');
    });

    it('glob matches ** across directories and skips ignored files', async () => {
      assert.equal((await call('glob', { pattern: '**/*.ts' })).content, 'src/a.ts\nsrc/deep/b.ts');
      assert.equal((await call('glob', { pattern: '*.log' })).content, 'keep.log');
      assert.equal(
        (await call('glob', { pattern: '*.{ts,js}', path: 'src' })).content,
        'src/a.ts\nsrc/c.js',
      );
      const all = (await call('glob', { pattern: '**/*.ts', include_ignored: true })).content;
      assert.match(all, /dist\/a\.ts/);
      assert.match(all, /node_modules\/pkg\/i\.ts/);
    });

    it('grep finds regex matches with context, honouring .gitignore', async () => {
      const result = await call('grep', { pattern: 'be+ta', context: 1 });
      assert.equal(
        result.content,
        [
          'keep.log:1:beta',
          'src/a.ts-1-const alpha = 1;',
          'src/a.ts:2:const beta = 2;',
          'src/a.ts-3-const gamma = 3;',
          'src/c.js:1:beta',
          'src/deep/b.ts:1:export const beta = "b";',
        ].join('\n'),
      );
      assert.equal(
        (await call('grep', { pattern: 'beta', include: '*.ts' })).content.split('\n').length,
        2,
      );
      assert.match((await call('grep', { pattern: '(' })).content, /invalid regular expression/);
      assert.equal((await call('grep', { pattern: 'zeta' })).content, 'No matches.');
    });
  });

  describe('write_file and edit_file', () => {
    it('write_file creates parents and overwrites', async () => {
      await call('write_file', { path: 'new/dir/f.txt', content: 'hello' });
      assert.equal(readFileSync(join(ws, 'new/dir/f.txt'), 'utf8'), 'hello');
    });

    it('edit_file replaces one exact match, refuses absent and ambiguous ones', async () => {
      writeFileSync(join(ws, 'e.txt'), 'a b a c');
      assert.match(
        (await call('edit_file', { path: 'e.txt', old: 'zz', new: 'y' })).content,
        /not found/,
      );
      const ambiguous = await call('edit_file', { path: 'e.txt', old: 'a', new: 'y' });
      assert.equal(ambiguous.isError, true);
      assert.match(ambiguous.content, /occurs 2 times/);
      assert.equal(readFileSync(join(ws, 'e.txt'), 'utf8'), 'a b a c');
      await call('edit_file', { path: 'e.txt', old: 'b', new: '$&$1' });
      assert.equal(
        readFileSync(join(ws, 'e.txt'), 'utf8'),
        'a $&$1 a c',
        'replacement taken literally',
      );
      await call('edit_file', { path: 'e.txt', old: 'a', new: 'z', replace_all: true });
      assert.equal(readFileSync(join(ws, 'e.txt'), 'utf8'), 'z $&$1 z c');
    });
  });

  describe('stale-write guard', () => {
    it('refuses to write a file edited on disk after the agent read it, and allows it after a re-read', async () => {
      const file = join(ws, 's.txt');
      writeFileSync(file, 'v1');
      await workspace.guard.ready();
      await call('read_file', { path: 's.txt' });
      writeFileSync(file, 'v2 by the user');
      const refused = await call('edit_file', { path: 's.txt', old: 'v', new: 'w' });
      assert.equal(refused.isError, true);
      assert.match(refused.content, /changed on disk after you last read it/);
      assert.match(refused.content, /Read s\.txt again/);
      assert.equal((await call('write_file', { path: 's.txt', content: 'agent' })).isError, true);
      assert.equal(readFileSync(file, 'utf8'), 'v2 by the user');
      await call('read_file', { path: 's.txt' });
      assert.equal((await call('write_file', { path: 's.txt', content: 'agent' })).isError, false);
      assert.equal(readFileSync(file, 'utf8'), 'agent');
    });

    it('the watcher catches an edit that keeps size and mtime', async () => {
      const file = join(ws, 't.txt');
      writeFileSync(file, 'aaaa');
      utimesSync(file, 1_000_000_000, 1_000_000_000); // whole seconds: restorable exactly
      await call('read_file', { path: 't.txt' });
      await workspace.guard.ready();
      writeFileSync(file, 'bbbb');
      utimesSync(file, 1_000_000_000, 1_000_000_000);
      assert.equal(statSync(file).mtimeMs, 1_000_000_000_000);
      // The watcher reports the change; the stat check alone would miss it.
      await until(() => workspace.guard.staleReason(file, 't.txt') !== undefined, 5000).catch(
        () => undefined,
      );
      const refused = await call('write_file', { path: 't.txt', content: 'agent' });
      assert.equal(refused.isError, true, 'refused');
      assert.equal(readFileSync(file, 'utf8'), 'bbbb');
    });

    it("the agent's own writes never make its next write stale", async () => {
      await workspace.guard.ready();
      await call('write_file', { path: 'own.txt', content: 'one' });
      await new Promise((r) => setTimeout(r, 200)); // let the watcher report our write
      assert.equal(
        (await call('edit_file', { path: 'own.txt', old: 'one', new: 'two' })).isError,
        false,
      );
      assert.equal(
        (await call('edit_file', { path: 'own.txt', old: 'two', new: 'three' })).isError,
        false,
      );
      assert.equal(readFileSync(join(ws, 'own.txt'), 'utf8'), 'three');
    });
  });

  describe('run_command', () => {
    it('returns exit code and output, runs in cwd inside the workspace', async () => {
      mkdirSync(join(ws, 'sub'));
      const ok = await call('run_command', { command: 'pwd; echo out; echo err >&2', cwd: 'sub' });
      assert.equal(ok.isError, false);
      assert.match(ok.content, /^exit code 0\n/);
      assert.match(ok.content, new RegExp(`${join(ws, 'sub')}\\nout\\nerr`));
      const failed = await call('run_command', { command: 'exit 3' });
      assert.equal(failed.isError, true);
      assert.match(failed.content, /^exit code 3/);
    });

    it('caps output', async () => {
      const result = await call('run_command', {
        command: 'head -c 200000 /dev/zero | tr "\\0" x',
      });
      assert.match(result.content, /more bytes of output not kept/);
      assert.ok(result.content.length < 70_000);
    });

    // A sandboxed command has its own PID namespace: `$!` is no pid of this
    // host, so the child is found by its unique command line instead.
    it('kills the whole process tree on timeout', async () => {
      const seconds = uniqueSleep();
      const started = Date.now();
      const result = await call('run_command', {
        command: `sleep ${seconds} & wait`,
        timeout_ms: 300,
      });
      assert.ok(Date.now() - started < 5000);
      assert.match(result.content, /killed after the 300 ms timeout/);
      await until(() => pidsOf(['sleep', seconds]).length === 0, 3000);
    });

    it('kills the whole process tree when the turn is cancelled: the child process is gone', async () => {
      const seconds = uniqueSleep();
      const abort = new AbortController();
      const running = call(
        'run_command',
        { command: `sleep ${seconds} & wait` },
        context(abort.signal),
      );
      await until(() => pidsOf(['sleep', seconds]).length > 0);
      const [pid] = pidsOf(['sleep', seconds]);
      assert.ok(processAlive(pid!));
      abort.abort();
      const result = await running;
      assert.match(result.content, /the turn was cancelled/);
      await until(() => !processAlive(pid!), 3000);
    });
  });

  it('todo_write sends the whole plan as plan/update', async () => {
    const emitted: Emitted[] = [];
    const entries = [
      { id: '1', content: 'Reproduce', status: 'completed' },
      { id: '2', content: 'Fix', status: 'in_progress' },
    ];
    const result = await call('todo_write', { todos: entries }, context(undefined, emitted));
    assert.match(result.content, /2 step\(s\), 1 completed/);
    assert.deepEqual(emitted, [
      { method: Methods.PlanUpdate.method, params: { turnId: 'turn-1', entries } },
    ]);
    const dup = await call(
      'todo_write',
      { todos: [entries[0], entries[0]] },
      context(undefined, []),
    );
    assert.equal(dup.isError, true);
  });
});
