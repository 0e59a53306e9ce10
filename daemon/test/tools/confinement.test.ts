/**
 * security.md#security-workspace-confined: generated paths — `..`, absolute,
 * `~`, symbolic links in and out, Unicode normalization and case variants —
 * never reach outside the workspace, neither to read nor to write.
 */
import assert from 'node:assert/strict';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import fc from 'fast-check';
import { resolveInWorkspace, WorkspaceEscapeError } from '../../src/tools/workspace/confinement.js';
import { createWorkspaceTools, openWorkspace } from '../../src/tools/workspace/index.js';
import type { Tool } from '../../src/tools/tool.js';
import { tempDir } from '../permissions/helpers.js';
import { toolContext } from './toolContext.js';

const SECRET = 'TOP-SECRET-OUTSIDE';

function fixture(): { root: string; outside: string; ws: string } {
  const root = tempDir('arbor-conf-');
  const outside = join(root, 'outside');
  // A sibling whose name is a Unicode/case variant of the workspace's.
  const ws = join(root, 'caf\u00e9');
  mkdirSync(outside);
  mkdirSync(ws);
  mkdirSync(join(root, 'cafe\u0301'));
  mkdirSync(join(root, 'CAF\u00c9'));
  writeFileSync(join(outside, 'secret.txt'), SECRET);
  writeFileSync(join(root, 'cafe\u0301', 'secret.txt'), SECRET);
  writeFileSync(join(root, 'CAF\u00c9', 'secret.txt'), SECRET);
  mkdirSync(join(ws, 'sub'));
  writeFileSync(join(ws, 'sub', 'inside.txt'), 'inside');
  symlinkSync(outside, join(ws, 'link-out'));
  symlinkSync(join(outside, 'secret.txt'), join(ws, 'file-out'));
  symlinkSync(join(outside, 'new-file'), join(ws, 'dangling-out'));
  symlinkSync(join(ws, 'sub'), join(ws, 'link-in'));
  symlinkSync('../link-out', join(ws, 'sub', 'hop'));
  return { root, outside, ws };
}

async function call(tool: Tool, args: unknown): Promise<{ content: string; isError: boolean }> {
  const parsed = tool.input.parse(args);
  const out = await tool.execute(parsed, toolContext());
  return typeof out === 'string'
    ? { content: out, isError: false }
    : { content: out.content, isError: out.isError === true };
}

describe('workspace confinement', function () {
  this.timeout(60_000);
  const { root, outside, ws } = fixture();
  const wsReal = realpathSync(ws);
  const tools = new Map(
    createWorkspaceTools(openWorkspace(ws, { watch: false })).map((t) => [t.name, t]),
  );

  const segment = fc.constantFrom(
    '..',
    '.',
    'sub',
    'inside.txt',
    'link-out',
    'file-out',
    'dangling-out',
    'link-in',
    'hop',
    'secret.txt',
    'outside',
    'caf\u00e9',
    'cafe\u0301',
    'CAF\u00c9',
    'new.txt',
    '',
  );
  const prefix = fc.constantFrom(
    '',
    '/',
    `${root}/`,
    `${ws}/`,
    `${outside}/`,
    '~/',
    '~',
    `${root}/cafe\u0301/`,
    `${root}/CAF\u00c9/`,
  );
  const generatedPath = fc
    .tuple(prefix, fc.array(segment, { minLength: 0, maxLength: 6 }))
    .map(([p, parts]) => p + parts.join('/'))
    .filter((p) => p.length > 0);

  it('property: every resolved path is inside the workspace; every other one is refused', () => {
    fc.assert(
      fc.property(generatedPath, (path) => {
        let resolved;
        try {
          resolved = resolveInWorkspace(ws, path);
        } catch (error) {
          assert.ok(
            error instanceof WorkspaceEscapeError,
            `clear refusal for ${path}: ${String(error)}`,
          );
          assert.match((error as Error).message, /refused/);
          return;
        }
        assert.ok(
          resolved.real === wsReal || resolved.real.startsWith(wsReal + sep),
          `${path} -> ${resolved.real}`,
        );
        if (resolved.exists) {
          const real = realpathSync(resolved.real);
          assert.ok(real === wsReal || real.startsWith(wsReal + sep), `${path} really is ${real}`);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('property: read_file never returns outside content, write_file never creates anything outside', async () => {
    const before = JSON.stringify([readdirSync(outside), readdirSync(root)]);
    await fc.assert(
      fc.asyncProperty(generatedPath, async (path) => {
        const read = await call(tools.get('read_file')!, { path });
        assert.ok(!read.content.includes(SECRET), `read ${path} leaked`);
        const list = await call(tools.get('list_dir')!, { path });
        if (!list.isError)
          assert.ok(!list.content.split('\n').includes('secret.txt'), `list ${path} escaped`);
        await call(tools.get('write_file')!, { path: `${path}/x-written`, content: 'x' });
        await call(tools.get('write_file')!, { path, content: 'x' });
        assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), SECRET);
        assert.equal(
          JSON.stringify([readdirSync(outside), readdirSync(root)]),
          before,
          `write ${path} escaped`,
        );
      }),
      { numRuns: 400 },
    );
  });

  it('refusals say what happened', async () => {
    for (const path of [
      '../outside/secret.txt',
      '/etc/passwd',
      '~/.ssh/id_rsa',
      'link-out/secret.txt',
      'dangling-out',
    ]) {
      const result = await call(tools.get('write_file')!, { path, content: 'x' });
      assert.equal(result.isError, true, path);
      assert.match(result.content, /refused: ".*" .*workspace/);
    }
    if (!wsReal.startsWith(homedir())) {
      assert.throws(() => resolveInWorkspace(ws, '~'), WorkspaceEscapeError);
    }
  });

  it('symbolic links inside the workspace are followed', async () => {
    const fresh = fixture();
    const read = createWorkspaceTools(openWorkspace(fresh.ws, { watch: false }))[0]!;
    const result = await call(read, { path: 'link-in/inside.txt' });
    assert.equal(result.content, 'inside');
  });

  it('run_command refuses a cwd outside the workspace', async () => {
    const result = await call(tools.get('run_command')!, { command: 'pwd', cwd: 'link-out' });
    assert.equal(result.isError, true);
    assert.match(result.content, /refused/);
  });
});
