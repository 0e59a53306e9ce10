/**
 * search_code on a generated tree of 50,000 TypeScript files (about 1 KiB
 * each, 500 directories): how long the index takes to build, how large it
 * is, what the first call answers while it builds, and the p50 of a search
 * for a rare symbol and for a term in every file (target <= 20 ms), through
 * the tool as the loop calls it. Baselines from the same index in the same
 * run: a plain indexed lookup of one file's row, and the raw FTS5 match of
 * each query (no ranking, no lines) — what the tool adds on top of SQLite.
 * `node --import tsx bench/searchCode.ts`, or searchCodeBenchmark() from bench/run.ts.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { searchCodeTool } from '../src/tools/search/searchCode.js';
import { closeWorkspaceIndexes, workspaceIndex } from '../src/tools/search/workspaceIndex.js';
import type { ToolContext } from '../src/tools/tool.js';
import { openWorkspace } from '../src/tools/workspace/workspace.js';
import { percentile } from './support.js';

const FILES = 50_000;
const DIRS = 500;
const RARE = 'computeQuarterlyRevenue';
const COMMON = 'function';
const SAMPLES = 40;
const TARGET_MS = 20;

const WORDS = (
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa ' +
  'quebec romeo sierra tango uniform victor whiskey xray yankee zulu parse render fetch update create ' +
  'remove handle compute build load store index query value result config option event buffer stream ' +
  'token node tree cache ledger account invoice payment session request response client server'
).split(' ');

/** 50,000 files of generated TypeScript; one defines RARE, every one has COMMON. */
function generateTree(root: string): void {
  let seed = 42;
  const random = (n: number): number => {
    // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n) as number;
  };
  const word = (): string => WORDS[random(WORDS.length)]!;
  const name = (): string => {
    const second = word();
    return `${word()}${second[0]!.toUpperCase()}${second.slice(1)}`;
  };
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, `pkg${i % 20}`, `mod${i % DIRS}`);
    if (i < DIRS) mkdirSync(dir, { recursive: true });
    const lines = [`import { ${name()}, ${name()} } from '../${word()}/${word()}';`, ''];
    for (let f = 0, functions = 3 + random(4); f < functions; f++) {
      lines.push(`export function ${name()}${i}_${f}(${word()}: number, ${word()}: string) {`);
      for (let l = 0, body = 3 + random(5); l < body; l++)
        lines.push(`  const ${name()} = ${name()}(${word()}, ${random(1000)});`);
      lines.push(`  return ${name()};`, '}', '');
    }
    if (i === 31_337) lines.push(`export function ${RARE}(q: number) {`, '  return q * 4;', '}');
    writeFileSync(join(dir, `file${i}.ts`), lines.join('\n'));
  }
}

function sizesOf(dir: string): string {
  return readdirSync(dir)
    .map(
      (name) =>
        `${name.replace(/^[0-9a-f]+/, '')} ${(statSync(join(dir, name)).size / 1024 / 1024).toFixed(1)} MiB`,
    )
    .join(', ');
}

function p50Of(run: () => unknown, samples = SAMPLES): number {
  for (let i = 0; i < 3; i++) run();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  return percentile(times, 0.5);
}

async function p50OfAsync(run: () => Promise<unknown>, samples = SAMPLES): Promise<number> {
  for (let i = 0; i < 3; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return percentile(times, 0.5);
}

export async function searchCodeBenchmark(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'arbor-search-bench-')));
  const dataDir = mkdtempSync(join(tmpdir(), 'arbor-search-data-'));
  const workspace = openWorkspace(root, { watch: false });
  try {
    const genStart = performance.now();
    generateTree(root);
    console.log(
      `search_code: ${FILES.toLocaleString('en-US')} files in ${DIRS} dirs (generated in ${(performance.now() - genStart).toFixed(0)} ms)`,
    );
    const tool = searchCodeTool(workspace, { dataDir: () => dataDir });
    const context = { signal: new AbortController().signal } as ToolContext;
    const search = async (args: object): Promise<string> => {
      const out = await tool.execute(tool.input.parse(args), context);
      return typeof out === 'string' ? out : out.content;
    };

    // The first call starts the build and answers from what is indexed by its deadline.
    const buildStart = performance.now();
    const first = await search({ query: RARE });
    const firstMs = performance.now() - buildStart;
    const stats = await workspaceIndex(root, dataDir).ready();
    const buildMs = performance.now() - buildStart;
    const note = /still being built \(([^)]*)\)/.exec(first.split('\n').pop() ?? '')?.[1];
    console.log(
      `  first call answered in ${firstMs.toFixed(0)} ms ${note === undefined ? '(index complete)' : `from a partial index (${note})`}`,
    );
    const contentMiB = stats.bytes / 1024 / 1024;
    console.log(
      `  index build: ${(buildMs / 1000).toFixed(1)} s for ${stats.files.toLocaleString('en-US')} files (${contentMiB.toFixed(1)} MiB of text); on disk: ${sizesOf(join(dataDir, 'search'))}`,
    );

    const rareOut = await search({ query: RARE });
    const commonOut = await search({ query: COMMON });
    if (!rareOut.startsWith('pkg17/mod337/file31337.ts:') || rareOut.split('\n').length !== 1)
      console.log(`  unexpected answer for ${RARE}: ${rareOut.slice(0, 200)}`);
    if (commonOut.split('\n').length !== 21)
      console.log(`  unexpected answer for ${COMMON}: ${commonOut.slice(0, 200)}`);

    const rare = await p50OfAsync(() => search({ query: RARE }));
    const common = await p50OfAsync(() => search({ query: COMMON }));
    const twoTerms = await p50OfAsync(() => search({ query: 'ledger invoice' }));
    const commonInDir = await p50OfAsync(() => search({ query: COMMON, path: 'pkg3/mod3' }));
    const commonGlob = await p50OfAsync(() => search({ query: COMMON, glob: 'file777*.ts' }));
    const commonInPackage = await p50OfAsync(() => search({ query: COMMON, path: 'pkg3' }));

    const [file] = readdirSync(join(dataDir, 'search')).filter((name) => name.endsWith('.db'));
    const db = new Database(join(dataDir, 'search', file!), { readonly: true });
    const lookup = db.prepare('SELECT id, mtime, size FROM files WHERE path = ?');
    const raw = db.prepare('SELECT rowid FROM code WHERE code MATCH ? LIMIT 20');
    const lookupP50 = p50Of(() => lookup.get('pkg17/mod337/file31337.ts'));
    const rawRare = p50Of(() => raw.all(`"${RARE}"`));
    const rawCommon = p50Of(() => raw.all(`"${COMMON}"`));
    db.close();

    const row = (label: string, ms: number, extra = ''): void =>
      console.log(`  ${label.padEnd(60)} p50 ${ms.toFixed(3).padStart(8)} ms${extra}`);
    row('baseline: indexed lookup of one file row', lookupP50);
    row(`baseline: raw FTS5 match "${RARE}" (LIMIT 20)`, rawRare);
    row(`baseline: raw FTS5 match "${COMMON}" (LIMIT 20)`, rawCommon);
    const verdict = (ms: number): string =>
      ` (target <= ${TARGET_MS} ms) ${ms <= TARGET_MS ? 'OK' : 'OVER TARGET'}`;
    row(`search_code "${RARE}" (1 file)`, rare, verdict(rare));
    row(`search_code "${COMMON}" (every file)`, common, verdict(common));
    row('search_code "ledger invoice" (two terms)', twoTerms);
    row(`search_code "${COMMON}" under pkg3/mod3 (100 files)`, commonInDir);
    row(`search_code "${COMMON}" under pkg3 (2,500 files)`, commonInPackage);
    row(`search_code "${COMMON}" glob file777*.ts (11 files)`, commonGlob);
    console.log(
      `  ratio to raw FTS5: rare ${(rare / rawRare).toFixed(2)}x, common ${(common / rawCommon).toFixed(2)}x; ` +
        `to the row lookup: rare ${(rare / lookupP50).toFixed(0)}x, common ${(common / lookupP50).toFixed(0)}x`,
    );
  } finally {
    closeWorkspaceIndexes();
    await workspace.guard.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await searchCodeBenchmark();
