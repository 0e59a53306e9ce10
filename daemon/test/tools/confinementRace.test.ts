/**
 * security.md#security-confined-race: confinement has no window between
 * check and use. A separate process swaps path components of the workspace
 * back and forth between real directories and symbolic links — one to a
 * directory outside the workspace holding canaries, one to the workspace's
 * `.git/` — while the workspace tools run over 1,000 calls through them. No
 * canary may reach a result, nothing may be written outside, and no write may
 * land in `.git/` without the gate having classed it as protected.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GateRequest } from '../../src/agent/toolGate.js';
import { createPermissionGate } from '../../src/permissions/permissionGate.js';
import { TurnMemory } from '../../src/tools/memory.js';
import type { Tool, ToolContext } from '../../src/tools/tool.js';
import { createWorkspaceTools, openWorkspace } from '../../src/tools/workspace/index.js';
import { tempDir } from '../permissions/helpers.js';

/**
 * The attacker, plain JavaScript in its own process so it truly races the
 * daemon: for each swapped name, a real directory and a symbolic link wait in
 * stash names and take turns under the swapped name (rename is atomic, so the
 * name is a directory, a link, or briefly missing). Stops when stdin closes
 * and prints how many swaps it made.
 */
const SWAPPER = `
const fs = require('node:fs');
const pairs = JSON.parse(process.argv[1]).map((p) => ({ ...p, isLink: false }));
let swaps = 0;
let stray = 0;
let stopping = false;
const deadline = Date.now() + 60000; // never outlives a crashed test run
process.stdin.on('end', () => { stopping = true; });
process.stdin.resume();
// Moving into the swapped name fails when a tool created a directory there in
// the instant it was missing: move that one aside (it stays in the workspace).
function into(from, to) {
  for (;;) {
    try { fs.renameSync(from, to); return; } catch {}
    try { fs.renameSync(to, to + '-stray-' + stray++); } catch {}
  }
}
function burst() {
  for (let i = 0; i < 2000; i++) {
    for (const p of pairs) {
      if (p.isLink) {
        fs.renameSync(p.name, p.linkStash);
        into(p.dirStash, p.name);
      } else {
        fs.renameSync(p.name, p.dirStash);
        into(p.linkStash, p.name);
      }
      p.isLink = !p.isLink;
      swaps += 1;
    }
  }
  if (stopping || Date.now() > deadline) {
    process.stdout.write(String(swaps));
    process.exit(0);
  }
  setImmediate(burst);
}
burst();
`;

interface Swapped {
  name: string;
  dirStash: string;
  linkStash: string;
}

const CALLS = 2000;

function ctx(): ToolContext {
  return {
    signal: new AbortController().signal,
    memory: new TurnMemory(),
    workspaceRoot: '/',
    turnId: 't',
    nodeId: 'n',
    toolCallId: 'c',
    depth: 0,
    emit: () => undefined,
  };
}

/** Every file below `dir` with its content; directories and links by name. */
function snapshot(dir: string, into = new Map<string, string>(), prefix = ''): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix + entry.name;
    if (entry.isDirectory()) {
      into.set(`${rel}/`, 'dir');
      snapshot(join(dir, entry.name), into, `${rel}/`);
    } else if (entry.isFile()) into.set(rel, readFileSync(join(dir, entry.name), 'utf8'));
    else into.set(rel, 'other');
  }
  return into;
}

function startSwapper(pairs: Swapped[]): { child: ChildProcess; swaps: Promise<number> } {
  const child = spawn(process.execPath, ['-e', SWAPPER, JSON.stringify(pairs)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const swaps = new Promise<number>((resolve) => child.on('exit', () => resolve(Number(out))));
  return { child, swaps };
}

describe('workspace confinement under a concurrent swap', function () {
  this.timeout(60_000);

  it('1,000+ tool calls racing a swapping process: 0 leaks, 0 writes outside, 0 unasked .git writes', async () => {
    const root = tempDir('arbor-race-');
    const ws = join(root, 'ws');
    const outside = join(root, 'outside');
    const token = `CANARY-${randomUUID()}`;

    mkdirSync(join(outside, 'sub'), { recursive: true });
    writeFileSync(join(outside, 'f.txt'), `${token} file\n`);
    writeFileSync(join(outside, 'e.txt'), `alpha ${token}\n`);
    writeFileSync(join(outside, 'sub', 'g.txt'), `${token} nested\n`);
    writeFileSync(join(outside, `entry-${token}`), `${token}\n`);
    writeFileSync(join(outside, 'sub', `entry-${token}`), `${token}\n`);

    mkdirSync(join(ws, '.git'), { recursive: true });
    writeFileSync(join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(ws, '.git', 'h.txt'), 'alpha git\n');
    // Each swapped name starts as a real directory, its link waiting in a stash.
    mkdirSync(join(ws, 'sw', 'sub'), { recursive: true });
    writeFileSync(join(ws, 'sw', 'f.txt'), 'inside file\n');
    writeFileSync(join(ws, 'sw', 'e.txt'), 'alpha inside\n');
    writeFileSync(join(ws, 'sw', 'sub', 'g.txt'), 'inside nested\n');
    symlinkSync(outside, join(ws, 'sw-link'));
    mkdirSync(join(ws, 'gw'));
    writeFileSync(join(ws, 'gw', 'h.txt'), 'alpha work\n');
    symlinkSync('.git', join(ws, 'gw-link'));
    const pairs: Swapped[] = [
      { name: join(ws, 'sw'), dirStash: join(ws, 'sw-dir'), linkStash: join(ws, 'sw-link') },
      { name: join(ws, 'gw'), dirStash: join(ws, 'gw-dir'), linkStash: join(ws, 'gw-link') },
    ];

    const outsideBefore = snapshot(outside);
    const rootBefore = readdirSync(root).sort();
    const gitBefore = snapshot(join(ws, '.git'));

    const tools = new Map(
      createWorkspaceTools(openWorkspace(ws, { watch: false })).map((t) => [t.name, t]),
    );
    const gate = createPermissionGate({ alwaysAsk: [] });
    const turn = { workspaceRoot: ws, permissionMode: () => 'auto', sessionId: 's', turnId: 't' };

    let calls = 0;
    let succeeded = 0;
    let refused = 0;
    let askedForGit = 0;
    const leaks: string[] = [];
    const run = async (name: string, args: unknown): Promise<void> => {
      const tool = tools.get(name) as Tool;
      const parsed = tool.input.parse(args);
      // The real gate in auto mode with no one to ask: a protected write is denied.
      const decision = await gate({
        turn,
        tool,
        args: parsed,
        nodeId: 'n',
        toolCallId: 'c',
        depth: 0,
        signal: new AbortController().signal,
        awaitingApproval: () => undefined,
        setApproval: () => undefined,
      } as unknown as GateRequest);
      if (!decision.allow) {
        askedForGit += 1;
        return;
      }
      calls += 1;
      let content: string;
      try {
        const out = await tool.execute(parsed, ctx());
        content = typeof out === 'string' ? out : out.content;
        if (typeof out === 'string' || out.isError !== true) succeeded += 1;
        else refused += 1;
      } catch (error) {
        assert.fail(`${name} threw out of the turn: ${String(error)}`);
      }
      if (content.includes(token)) leaks.push(`${name} ${JSON.stringify(args)}: ${content}`);
    };

    const { child, swaps } = startSwapper(pairs);
    const started = Date.now();
    try {
      // Let the swapper get going before the first call.
      await new Promise((r) => setTimeout(r, 100));
      for (let i = 0; calls < CALLS; i++) {
        await run('read_file', { path: 'sw/f.txt' });
        await run('read_file', { path: 'sw/sub/g.txt' });
        await run('list_dir', { path: 'sw' });
        await run('list_dir', { path: 'sw/sub' });
        await run('write_file', { path: `sw/w-${i}.txt`, content: 'written' });
        await run('write_file', { path: `sw/sub/d-${i % 7}/x.txt`, content: 'nested write' });
        await run('edit_file', { path: 'sw/e.txt', old: 'alpha', new: 'alpha.' });
        await run('write_file', { path: `gw/w-${i}.txt`, content: 'into git?' });
        await run('edit_file', { path: 'gw/h.txt', old: 'alpha', new: 'alpha.' });
        await run('read_file', { path: 'sw/e.txt' });
        if (i % 4 === 0) await run('grep', { pattern: 'CANARY|inside|alpha', path: 'sw' });
        if (i % 4 === 2) await run('glob', { pattern: '**/*', path: '.' });
      }
    } finally {
      child.stdin!.end();
    }
    const swapCount = await swaps;
    const elapsed = Date.now() - started;

    const outsideAfter = snapshot(outside);
    const writtenOutside = [...outsideAfter].filter(([k, v]) => outsideBefore.get(k) !== v);
    const gitAfter = snapshot(join(ws, '.git'));
    const gitWrites = [...gitAfter].filter(([k, v]) => gitBefore.get(k) !== v);
    // An edit that read outside content would have written it back inside.
    const copiedIn = [...snapshot(ws)].filter(([k, v]) => k.includes(token) || v.includes(token));

    console.log(
      `      race: ${calls} calls (${succeeded} ok, ${refused} refused/failed, ` +
        `${askedForGit} stopped by the gate) against ${swapCount} swaps in ${elapsed} ms: ` +
        `${leaks.length} leaks, ${copiedIn.length} copied in, ${writtenOutside.length} written outside, ` +
        `${gitWrites.length} unasked .git writes`,
    );
    assert.ok(calls >= CALLS, `${calls} calls`);
    assert.ok(swapCount > 1000, `the swapper raced (${swapCount} swaps)`);
    assert.ok(succeeded >= 50, `the tools still work between swaps (${succeeded} ok)`);
    assert.deepEqual(leaks, [], `${leaks.length} results carried outside content`);
    assert.deepEqual(copiedIn, [], `${copiedIn.length} workspace files got outside content`);
    assert.deepEqual(writtenOutside, [], `${writtenOutside.length} entries written outside`);
    assert.deepEqual(readdirSync(root).sort(), rootBefore, 'nothing created next to the workspace');
    assert.deepEqual(gitWrites, [], `${gitWrites.length} writes in .git/ bypassed the gate`);
  });
});
