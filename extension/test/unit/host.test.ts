/** Host logic that needs no VS Code: paths, restart backoff, the Node check, stored transcripts. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transcriptFromStored } from '../../src/chat/sessionBridge.js';
import { RestartBackoff } from '../../src/daemon/backoff.js';
import { nodeVersionVerdict } from '../../src/daemon/nodeRuntime.js';
import {
  OutsideWorkspaceError,
  proposedEdit,
  resolveInWorkspace,
} from '../../src/tools/workspacePaths.js';

describe('editor tools stay inside the workspace folders', () => {
  let root: string;
  let outside: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'arbor-ws-'));
    outside = mkdtempSync(join(tmpdir(), 'arbor-out-'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'a.ts'), 'a');
    writeFileSync(join(outside, 'secret'), 's');
    symlinkSync(outside, join(root, 'escape'));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('resolves relative and absolute paths inside a folder', () => {
    assert.equal(resolveInWorkspace('src/a.ts', [root]), join(root, 'src', 'a.ts'));
    assert.equal(resolveInWorkspace(join(root, 'new.ts'), [root]), join(root, 'new.ts'));
  });
  it('refuses .., absolute paths elsewhere and symlinks out', () => {
    assert.throws(() => resolveInWorkspace('../x', [root]), OutsideWorkspaceError);
    assert.throws(() => resolveInWorkspace('/etc/passwd', [root]), OutsideWorkspaceError);
    assert.throws(() => resolveInWorkspace('escape/secret', [root]), OutsideWorkspaceError);
    assert.throws(() => resolveInWorkspace('escape/new-file', [root]), OutsideWorkspaceError);
    assert.throws(() => resolveInWorkspace('src/a.ts', []), OutsideWorkspaceError);
  });
  it('reads edits from apply_edit, write and edit argument shapes', () => {
    assert.equal(proposedEdit({ path: 'a', oldText: 'b', newText: 'c' })!.apply('abc'), 'acc');
    assert.equal(proposedEdit({ path: 'a', content: 'new' })!.apply('old'), 'new');
    assert.equal(proposedEdit({ path: 'a', old_string: 'x', new_string: 'y' })!.apply('xz'), 'yz');
    // The daemon's edit_file: old / new / replace_all.
    assert.equal(proposedEdit({ path: 'a', old: 'x', new: 'y' })!.apply('xz'), 'yz');
    assert.equal(
      proposedEdit({ path: 'a', old: 'x', new: 'y', replace_all: true })!.apply('xzx'),
      'yzy',
    );
    assert.throws(
      () => proposedEdit({ path: 'a', oldText: 'q', newText: 'c' })!.apply('abc'),
      /not found/,
    );
    assert.throws(
      () => proposedEdit({ path: 'a', oldText: 'a', newText: 'c' })!.apply('aa'),
      /more than once/,
    );
    assert.equal(proposedEdit({ command: 'ls' }), undefined);
  });
});

describe('daemon lifecycle', () => {
  it('backs off exponentially, gives up, and forgives after a healthy run', () => {
    const b = new RestartBackoff({
      baseMs: 100,
      maxMs: 1000,
      maxAttempts: 5,
      healthyAfterMs: 10_000,
    });
    assert.deepEqual(
      [0, 0, 0, 0, 0].map((u) => b.next(u)),
      [100, 200, 400, 800, 1000],
    );
    assert.equal(b.next(0), undefined);
    assert.equal(b.next(20_000), 100);
  });
  it('needs Node 20 or newer', () => {
    assert.equal(nodeVersionVerdict('node', '20.19.0').ok, true);
    assert.equal(nodeVersionVerdict('node', '24.1.0').ok, true);
    const old = nodeVersionVerdict('/usr/bin/node', '18.20.1');
    assert.equal(old.ok, false);
    if (!old.ok) assert.match(old.message, /Node\.js 20 or newer.*18\.20\.1.*arbor\.nodePath/);
  });
});

describe('stored messages -> transcript', () => {
  it('pairs questions with answers and trees, by turn', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const turns = transcriptFromStored([
      { id: '1', turnId: 't1', role: 'user', content: 'q1', createdAt: at },
      {
        id: '2',
        turnId: 't1',
        role: 'assistant',
        content: 'a1',
        createdAt: at,
        status: 'complete',
        tree: {
          version: 1,
          nodes: [
            {
              id: 'root',
              parentId: null,
              kind: 'turn',
              name: 'turn',
              status: 'done',
              depth: 0,
              cost: 0.5,
            },
          ],
        },
      },
      { id: '3', turnId: 't2', role: 'user', content: 'q2', createdAt: at },
    ]);
    assert.deepEqual(
      turns.map((t) => [t.turnId, t.userText, t.texts, t.status, t.cost]),
      [
        ['t1', 'q1', [{ nodeId: 'root', text: 'a1' }], 'complete', 0.5],
        ['t2', 'q2', [], undefined, undefined],
      ],
    );
  });

  it('takes the order of text and cards and the cost/summary from a 1.1 daemon', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const usage = { inputTokens: 7, outputTokens: 3 };
    const [turn] = transcriptFromStored([
      {
        id: '2',
        turnId: 't1',
        role: 'assistant',
        content: 'a1',
        createdAt: at,
        status: 'complete',
        usage: { inputTokens: 1, outputTokens: 1 },
        parts: [
          { type: 'text', nodeId: 't1', text: 'first ' },
          { type: 'node', nodeId: 'n1' },
        ],
        cost: { usage, cost: 0.25, currency: 'USD', byModel: [] },
      },
    ]);
    assert.deepEqual(turn!.parts, [
      { type: 'text', nodeId: 't1', text: 'first ' },
      { type: 'node', nodeId: 'n1' },
    ]);
    assert.equal(turn!.cost, 0.25, 'the cost/summary’s cost, as the live turn showed it');
    assert.deepEqual(turn!.usage, usage);
  });
});
