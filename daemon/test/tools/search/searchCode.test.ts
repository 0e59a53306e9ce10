/**
 * search_code: an indexed search of the workspace that finds a symbol in a
 * 5,000-file tree, ranks definitions and files named after a term first,
 * respects .gitignore, sees changes made after the index was built, answers
 * from a partial index while it is being built, and closes the index when
 * its last user goes.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync, appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { searchCodeTool } from '../../../src/tools/search/searchCode.js';
import {
  closeWorkspaceIndexes,
  openWorkspaceIndexCount,
  releaseWorkspaceIndex,
  workspaceIndex,
} from '../../../src/tools/search/workspaceIndex.js';
import type { Tool } from '../../../src/tools/tool.js';
import { openWorkspace, type Workspace } from '../../../src/tools/workspace/index.js';
import { tempDir } from '../../permissions/helpers.js';
import { callThroughLoop, MODES } from '../toolLoop.js';
import { toolContext } from '../toolContext.js';

const FILES = 5000;

/** 5,000 TypeScript files in 50 directories; one of them defines computeQuarterlyRevenue. */
function generateTree(root: string): void {
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, 'src', `module${i % 50}`);
    if (i < 50) mkdirSync(dir, { recursive: true });
    const body =
      i === 4321
        ? 'import { ledger } from "../ledger";\n\nexport function computeQuarterlyRevenue(q: number) {\n  return ledger.sum(q);\n}\n'
        : `export const value${i} = ${i};\nexport function helper${i}() {\n  return value${i} * 2;\n}\n`;
    writeFileSync(join(dir, `file${i}.ts`), body);
  }
  // A definition, and a shorter file that only uses the symbol, more often.
  mkdirSync(join(root, 'src', 'ledger'));
  writeFileSync(
    join(root, 'src', 'ledger', 'entries.ts'),
    `${'// ledger entries\n'.repeat(30)}export function parseLedgerEntry(line: string) {\n  return line.split(',');\n}\n`,
  );
  writeFileSync(
    join(root, 'src', 'uses.ts'),
    'parseLedgerEntry(a);\nparseLedgerEntry(b);\nparseLedgerEntry(c);\n',
  );
  // Named after a term found in every file.
  writeFileSync(join(root, 'src', 'module9', 'helperRegistry.ts'), 'export function helper() {}\n');
  writeFileSync(
    join(root, 'src', 'minified.js'),
    `${'x=1;'.repeat(300)}var needleInMinified=2;${'y=2;'.repeat(300)}\n`,
  );
  writeFileSync(join(root, '.gitignore'), 'dist/\n*.log\n');
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'dist', 'bundle.js'), 'function computeQuarterlyRevenue(){}\n');
  writeFileSync(join(root, 'debug.log'), 'computeQuarterlyRevenue failed\n');
  mkdirSync(join(root, 'node_modules', 'lib'), { recursive: true });
  writeFileSync(join(root, 'node_modules', 'lib', 'index.js'), 'computeQuarterlyRevenue\n');
}

describe('search_code', function () {
  this.timeout(60_000);
  let ws: string;
  let dataDir: string;
  let workspace: Workspace;
  let tool: Tool;

  const search = async (args: object) => {
    const out = await tool.execute(tool.input.parse(args), toolContext());
    return typeof out === 'string'
      ? { content: out, isError: false }
      : { content: out.content, isError: out.isError === true };
  };

  before(() => {
    ws = tempDir();
    dataDir = tempDir('arbor-data-');
    generateTree(ws);
    workspace = openWorkspace(ws, { watch: false });
    tool = searchCodeTool(workspace, { dataDir: () => dataDir });
  });
  before(async () => {
    // The first tests want a complete index; answering while it builds is tested below.
    await workspaceIndex(ws, dataDir).ready();
  });
  after(async () => {
    closeWorkspaceIndexes();
    await workspace.guard.close();
  });

  it('finds a symbol in a 5,000-file tree, with path, line and snippet, skipping ignored files', async () => {
    const result = await search({ query: 'computeQuarterlyRevenue' });
    assert.equal(
      result.content,
      'src/module21/file4321.ts:3: export function computeQuarterlyRevenue(q: number) {',
    );
    assert.ok(existsSync(join(dataDir, 'search')), 'the index lives in the data dir');
  });

  it('matches every term, case-insensitively, and filters by path, glob and limit', async () => {
    const both = await search({ query: 'LEDGER sum' });
    assert.match(both.content, /^src\/module21\/file4321\.ts:1: import \{ ledger \}/);
    assert.match(both.content, /^src\/module21\/file4321\.ts:4: return ledger\.sum\(q\);$/m);
    assert.equal(
      (await search({ query: 'computeQuarterlyRevenue', path: 'src/module3' })).content,
      'No matches.',
    );
    assert.equal(
      (await search({ query: 'computeQuarterlyRevenue', glob: '*.js' })).content,
      'No matches.',
    );
    // Large selections go through the full-text index, small ones are read directly.
    const found =
      'src/module21/file4321.ts:3: export function computeQuarterlyRevenue(q: number) {';
    for (const filter of [
      { path: 'src' },
      { glob: '*.ts' },
      { path: 'src', glob: 'src/**/*.ts' },
      { path: 'src/module21' },
      { glob: 'file4321.ts' },
      { path: 'src/module21/file4321.ts' },
    ])
      assert.equal(
        (await search({ query: 'computeQuarterlyRevenue', ...filter })).content,
        found,
        JSON.stringify(filter),
      );
    const limited = await search({ query: 'helper', limit: 3 });
    assert.equal(limited.content.split('\n').length, 4);
    assert.match(limited.content, /\[… more files match; narrow the query or raise limit\]$/);
  });

  it('ranks the definition first, then a file named after a term, and shows long lines around the match', async () => {
    const defined = await search({ query: 'parseLedgerEntry' });
    assert.match(
      defined.content,
      /^src\/ledger\/entries\.ts:31: export function parseLedgerEntry\(line: string\) \{\nsrc\/uses\.ts:1: parseLedgerEntry\(a\);/,
    );
    // "helper" is in every generated file: the ranking reads some, plus those named after it.
    const named = await search({ query: 'HELPER', limit: 1 });
    assert.equal(
      named.content,
      'src/module9/helperRegistry.ts:1: export function helper() {}\n[… more files match; narrow the query or raise limit]',
    );
    const long = await search({ query: 'needleInMinified' });
    assert.match(
      long.content,
      /^src\/minified\.js:1: …(x=1;|=1;x|1;x=|;x=1)+var needleInMinified=2;(y=2;)+.*…$/,
    );
  });

  it('refuses terms shorter than 3 characters, pointing to grep', async () => {
    const result = await search({ query: 'ledger of' });
    assert.equal(result.isError, true);
    assert.match(result.content, /at least 3 characters each \("of" is shorter\); use grep/);
  });

  it('sees files edited, created and deleted after the index was built', async () => {
    appendFileSync(join(ws, 'src/module7/file7.ts'), 'export const freshlyAddedSymbol = 1;\n');
    mkdirSync(join(ws, 'src/brand-new'));
    writeFileSync(join(ws, 'src/brand-new/made.ts'), 'export class NewlyCreatedWidget {}\n');
    rmSync(join(ws, 'src/module21/file4321.ts'));
    const found = async (query: string, expected: string): Promise<boolean> =>
      (await search({ query })).content === expected;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const edited = await found(
        'freshlyAddedSymbol',
        'src/module7/file7.ts:5: export const freshlyAddedSymbol = 1;',
      );
      const created = await found(
        'NewlyCreatedWidget',
        'src/brand-new/made.ts:1: export class NewlyCreatedWidget {}',
      );
      const deleted = await found('computeQuarterlyRevenue', 'No matches.');
      if (edited && created && deleted) break;
      if (Date.now() > deadline)
        assert.fail(`not seen: edited ${edited}, created ${created}, deleted ${deleted}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  it('answers from what is indexed while the index is being built, and says so', async () => {
    const freshData = tempDir('arbor-data-');
    const early = searchCodeTool(workspace, { dataDir: () => freshData, buildWaitMs: 0 });
    const run = async (query: string) => {
      const out = await early.execute(early.input.parse({ query }), toolContext());
      return typeof out === 'string' ? out : out.content;
    };
    assert.match(
      await run('helper42'),
      /\[the search index is still being built \((listing the workspace's files|[\d,]+ of [\d,]+ files checked)\): [^\]]+; search again in a moment, or use grep to search every file now\]$/,
    );
    await workspaceIndex(ws, freshData).ready();
    const complete = await run('helper42');
    assert.doesNotMatch(complete, /still being built/);
    assert.match(complete, /^src\/module42\/file42\.ts:2: export function helper42\(\) \{$/m);
  });

  it("shares a workspace's index among its users and closes it when the last one is released", async () => {
    const data = tempDir('arbor-data-');
    const [a, b] = [openWorkspace(ws, { watch: false }), openWorkspace(ws, { watch: false })];
    const open = openWorkspaceIndexCount();
    const index = workspaceIndex(ws, data, a);
    assert.equal(workspaceIndex(ws, data, b), index);
    assert.equal(openWorkspaceIndexCount(), open + 1);
    const building = index.ready();
    releaseWorkspaceIndex(a);
    assert.equal(index.isClosed, false);
    releaseWorkspaceIndex(b);
    assert.equal(index.isClosed, true);
    assert.equal(openWorkspaceIndexCount(), open);
    // A build cut short by the close ends quietly.
    await assert.rejects(building, /closed/);
    // The next search opens it again.
    assert.notEqual(workspaceIndex(ws, data, a), index);
    releaseWorkspaceIndex(a);
    await Promise.all([a.guard.close(), b.guard.close()]);
  });

  describe('through the loop: category read', () => {
    for (const mode of MODES) {
      it(`${mode}: runs without asking`, async () => {
        const run = await callThroughLoop(
          [tool],
          'search_code',
          { query: 'helper42' },
          { mode, workspaceRoot: ws },
        );
        assert.equal(run.asked.length, 0);
        assert.equal(run.node.status, 'done');
        assert.match(
          run.toolResult.content,
          /^src\/module42\/file42\.ts:2: export function helper42\(\) \{$/m,
        );
      });
    }
  });
});
