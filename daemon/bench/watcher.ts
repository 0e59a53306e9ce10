/**
 * The stale-write guard's watcher (chokidar) on a generated tree of 50,000
 * files (plus a 10,000-file node_modules it must skip): time until it is
 * ready, the RSS it adds, and how fast it reports an external edit. Two
 * modes: what the guard does (watch the files the agent read; here 1,000 of
 * them) and, for comparison, a whole-tree watch. Each runs in a child process
 * so the RSS is the watcher's, not the other benchmarks'.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FILES = 50_000;
const DIRS = 500; // 100 files per directory, two levels deep
const IGNORED_FILES = 10_000;

function generateTree(root: string): void {
  for (let d = 0; d < DIRS; d++) {
    const dir = join(root, `pkg${Math.floor(d / 25)}`, `mod${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES / DIRS; f++)
      writeFileSync(join(dir, `file${f}.ts`), `export const v${f} = ${f};\n`);
  }
  const ignored = join(root, 'node_modules', 'dep');
  mkdirSync(ignored, { recursive: true });
  for (let f = 0; f < IGNORED_FILES; f++) writeFileSync(join(ignored, `i${f}.js`), '');
}

const TRACKED = 1000;

async function measure(root: string, mode: string): Promise<void> {
  const { watchWorkspace } = await import('../src/tools/workspace/staleWriteGuard.js');
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  let changedAt = 0;
  const target = join(root, 'pkg0', 'mod0', 'file0.ts');
  const onChange = (path: string): void => {
    if (path === target && changedAt === 0) changedAt = performance.now();
  };
  const watcher = watchWorkspace(root, onChange, () => undefined, mode === 'tree' ? [root] : []);
  if (mode === 'tree') await watcher.ready;
  else {
    const files: string[] = [];
    for (let i = 0; i < TRACKED; i++) {
      const d = i % DIRS;
      files.push(
        join(root, `pkg${Math.floor(d / 25)}`, `mod${d}`, `file${Math.floor(i / DIRS)}.ts`),
      );
    }
    for (const file of files) watcher.add(file);
    while (!files.every((f) => watcher.isWatching(f))) await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = performance.now() - started;
  globalThis.gc?.();
  const rssAfter = process.memoryUsage().rss;
  const edited = performance.now();
  writeFileSync(target, 'export const v0 = 42;\n');
  const deadline = Date.now() + 5000;
  while (changedAt === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  await watcher.close();
  console.log(
    JSON.stringify({
      readyMs,
      rssAddedMiB: (rssAfter - rssBefore) / 1024 / 1024,
      rssMiB: rssAfter / 1024 / 1024,
      changeLatencyMs: changedAt === 0 ? null : changedAt - edited,
    }),
  );
}

export function watcherBenchmark(): void {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'arbor-watch-bench-')));
  try {
    const genStart = performance.now();
    generateTree(root);
    const genMs = performance.now() - genStart;
    console.log(
      `workspace watcher: ${FILES} files in ${DIRS} dirs + ${IGNORED_FILES} in node_modules (generated in ${genMs.toFixed(0)} ms)`,
    );
    for (const [mode, label] of [
      ['tracked', `stale-write guard (watches the ${TRACKED} files read)`],
      ['tree', 'whole-tree watch (comparison, not used)'],
    ] as const) {
      const child = spawnSync(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--measure', root, mode],
        { encoding: 'utf8' },
      );
      const line = child.stdout.trim().split('\n').pop() ?? '';
      let result: {
        readyMs: number;
        rssAddedMiB: number;
        rssMiB: number;
        changeLatencyMs: number | null;
      };
      try {
        result = JSON.parse(line) as typeof result;
      } catch {
        console.log(`  ${label}: failed: ${child.stderr.slice(0, 500)}`);
        continue;
      }
      console.log(
        `  ${label}: ready in ${result.readyMs.toFixed(0)} ms, +${result.rssAddedMiB.toFixed(1)} MiB RSS ` +
          `(process ${result.rssMiB.toFixed(1)} MiB), external edit reported in ` +
          `${result.changeLatencyMs === null ? 'n/a' : result.changeLatencyMs.toFixed(0) + ' ms'}`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--measure') await measure(process.argv[3]!, process.argv[4] ?? 'tracked');
