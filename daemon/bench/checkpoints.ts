/**
 * Workspace checkpoints (src/checkpoints) on a generated tree of 10,000
 * files (plus a 2,000-file node_modules the .gitignore hides): the first
 * snapshot, which hashes every file, and the incremental snapshot after a
 * turn that changed one file, which the kept index should make cheap. The
 * baseline, measured in the same run on the same tree, is plain
 * `git status --porcelain` in an ordinary repository: what noticing one
 * change costs git itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WorkspaceCheckpoints, isUnavailable } from '../src/checkpoints/index.js';
import { percentile } from './support.js';

const FILES = 10_000;
const DIRS = 100;
const IGNORED_FILES = 2_000;
const RUNS = 7;
const TARGET_MS = 300;

function generateTree(root: string): void {
  writeFileSync(join(root, '.gitignore'), 'node_modules/\n');
  for (let d = 0; d < DIRS; d++) {
    const dir = join(root, `pkg${Math.floor(d / 10)}`, `mod${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES / DIRS; f++) {
      writeFileSync(join(dir, `file${f}.ts`), `export const v${f} = ${d * 1000 + f};\n`.repeat(20));
    }
  }
  const ignored = join(root, 'node_modules', 'dep');
  mkdirSync(ignored, { recursive: true });
  for (let f = 0; f < IGNORED_FILES; f++)
    writeFileSync(join(ignored, `i${f}.js`), 'module.exports = 1;\n');
}

function fileOf(i: number): string {
  const d = (i * 37) % DIRS;
  return join(`pkg${Math.floor(d / 10)}`, `mod${d}`, `file${i % (FILES / DIRS)}.ts`);
}

async function timed<T>(work: () => Promise<T> | T): Promise<[number, T]> {
  const started = performance.now();
  const value = await work();
  return [performance.now() - started, value];
}

export async function checkpointsBenchmark(): Promise<void> {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'arbor-ckpt-bench-')));
  const root = join(scratch, 'ws');
  mkdirSync(root);
  try {
    const [genMs] = await timed(() => generateTree(root));
    const opened = await WorkspaceCheckpoints.open({
      workspaceRoot: root,
      dataDir: join(scratch, 'data'),
    });
    if (isUnavailable(opened)) {
      console.log(`workspace checkpoints: skipped (${opened.reason})`);
      return;
    }
    const checkpoints = opened;
    const [firstMs, first] = await timed(() => checkpoints.snapshot('first'));

    const incremental: number[] = [];
    const unchanged: number[] = [];
    const changes: number[] = [];
    const restores: number[] = [];
    let previous = first.id;
    for (let run = 0; run < RUNS; run++) {
      const rel = fileOf(run);
      writeFileSync(join(root, rel), `// turn ${run}\n`, { flag: 'a' });
      const [ms, after] = await timed(() => checkpoints.snapshot(`turn ${run}`));
      incremental.push(ms);
      const [changesMs, listed] = await timed(() => checkpoints.changes(previous, after.id));
      changes.push(changesMs);
      if (listed.length !== 1) throw new Error(`expected one change, got ${listed.length}`);
      const [restoreMs, restored] = await timed(() =>
        checkpoints.restore(previous, { paths: [listed[0]!.path], expected: after.id }),
      );
      restores.push(restoreMs);
      if (!restored.ok) throw new Error('restore reported a conflict');
      const [sameMs, same] = await timed(() => checkpoints.snapshot(`after undo ${run}`));
      unchanged.push(sameMs);
      previous = same.id;
    }
    checkpoints.close();

    // Baseline: git itself noticing one change in an ordinary repository of the same tree.
    const git = (...args: string[]): void => {
      execFileSync('git', args, {
        cwd: root,
        stdio: 'ignore',
        env: { PATH: process.env.PATH, HOME: scratch, GIT_CONFIG_NOSYSTEM: '1' },
      });
    };
    git('init', '-q');
    git('add', '-A');
    git('status', '--porcelain');
    const status: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      writeFileSync(join(root, fileOf(run + RUNS)), `// baseline ${run}\n`, { flag: 'a' });
      status.push((await timed(() => git('status', '--porcelain')))[0]);
    }

    const p50 = (values: number[]): number => percentile(values, 0.5);
    const inc = p50(incremental);
    console.log(
      `workspace checkpoints: ${FILES} files in ${DIRS} dirs + ${IGNORED_FILES} ignored (generated in ${genMs.toFixed(0)} ms)`,
    );
    console.log(`  first snapshot (hashes every file):        ${firstMs.toFixed(0)} ms`);
    console.log(
      `  incremental snapshot, one change (p50/${RUNS}): ${inc.toFixed(1)} ms (max ${Math.max(...incremental).toFixed(1)}) ` +
        `(target <= ${TARGET_MS} ms) ${inc <= TARGET_MS ? 'OK' : 'OVER TARGET'}`,
    );
    console.log(`  snapshot with no change (p50):             ${p50(unchanged).toFixed(1)} ms`);
    console.log(`  changes() between two snapshots (p50):     ${p50(changes).toFixed(1)} ms`);
    console.log(`  restore() of one file (p50):               ${p50(restores).toFixed(1)} ms`);
    console.log(`  baseline git status --porcelain (p50):     ${p50(status).toFixed(1)} ms`);
    console.log(`  ratio incremental snapshot / git status:   ${(inc / p50(status)).toFixed(2)}x`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await checkpointsBenchmark();
