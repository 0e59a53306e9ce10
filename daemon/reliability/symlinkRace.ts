/**
 * The symlink-swap race, shared by the confinement test
 * (test/tools/confinementRace.test.ts, the tools in-process) and the
 * reliability scenario (reliability/race.ts, the tools through the spawned
 * daemon): a workspace whose `sw` and `gw` names a separate process keeps
 * swapping between a real directory and a symbolic link — `sw` to a directory
 * outside the workspace full of canaries, `gw` to the workspace's `.git/` —
 * the calls that race it, and the damage check afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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

export interface Swapped {
  name: string;
  dirStash: string;
  linkStash: string;
}

export interface RaceFixture {
  /** The directory holding `ws` and `outside`; nothing else may appear in it. */
  root: string;
  ws: string;
  outside: string;
  /** `CANARY-<uuid>`: in every file and name outside, nowhere inside. */
  token: string;
  pairs: Swapped[];
  outsideBefore: Map<string, string>;
  rootBefore: string[];
  gitBefore: Map<string, string>;
}

export interface RaceDamage {
  /** Entries outside that changed or appeared. */
  writtenOutside: [string, string][];
  /** Entries of `.git/` that changed or appeared. */
  gitWrites: [string, string][];
  /** Workspace entries whose name or content carries the canary (an edit that read outside). */
  copiedIn: [string, string][];
  /** The entries of `root` now, to compare with `rootBefore`. */
  rootAfter: string[];
}

/** Every file below `dir` with its content; directories and links by name. */
export function snapshot(
  dir: string,
  into = new Map<string, string>(),
  prefix = '',
): Map<string, string> {
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

/** Builds the workspace, the outside directory and the swap pairs under `root` (empty). */
export function buildRaceFixture(root: string): RaceFixture {
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

  return {
    root,
    ws,
    outside,
    token,
    pairs,
    outsideBefore: snapshot(outside),
    rootBefore: readdirSync(root).sort(),
    gitBefore: snapshot(join(ws, '.git')),
  };
}

/** What the race changed that it must not have. Call after the swapper stopped. */
export function raceDamage(fixture: RaceFixture): RaceDamage {
  const outsideAfter = snapshot(fixture.outside);
  const gitAfter = snapshot(join(fixture.ws, '.git'));
  return {
    writtenOutside: [...outsideAfter].filter(([k, v]) => fixture.outsideBefore.get(k) !== v),
    gitWrites: [...gitAfter].filter(([k, v]) => fixture.gitBefore.get(k) !== v),
    copiedIn: [...snapshot(fixture.ws)].filter(
      ([k, v]) => k.includes(fixture.token) || v.includes(fixture.token),
    ),
    rootAfter: readdirSync(fixture.root).sort(),
  };
}

/** One workspace tool call: the tool's name and its arguments. */
export interface RaceCall {
  name: string;
  args: Record<string, unknown>;
}

/**
 * Round `i` of calls through the swapped names: reads, listings, writes and
 * edits through `sw` (outside when it is a link), writes and edits through
 * `gw` (`.git/` when it is a link), and now and then a grep or a glob.
 */
export function raceRound(i: number): RaceCall[] {
  const calls: RaceCall[] = [
    { name: 'read_file', args: { path: 'sw/f.txt' } },
    { name: 'read_file', args: { path: 'sw/sub/g.txt' } },
    { name: 'list_dir', args: { path: 'sw' } },
    { name: 'list_dir', args: { path: 'sw/sub' } },
    { name: 'write_file', args: { path: `sw/w-${i}.txt`, content: 'written' } },
    { name: 'write_file', args: { path: `sw/sub/d-${i % 7}/x.txt`, content: 'nested write' } },
    { name: 'edit_file', args: { path: 'sw/e.txt', old: 'alpha', new: 'alpha.' } },
    { name: 'write_file', args: { path: `gw/w-${i}.txt`, content: 'into git?' } },
    { name: 'edit_file', args: { path: 'gw/h.txt', old: 'alpha', new: 'alpha.' } },
    { name: 'read_file', args: { path: 'sw/e.txt' } },
  ];
  if (i % 4 === 0)
    calls.push({ name: 'grep', args: { pattern: 'CANARY|inside|alpha', path: 'sw' } });
  if (i % 4 === 2) calls.push({ name: 'glob', args: { pattern: '**/*', path: '.' } });
  return calls;
}

/** Starts the swapping process; `swaps` resolves with its count once stdin is closed. */
export function startSwapper(pairs: Swapped[]): { child: ChildProcess; swaps: Promise<number> } {
  const child = spawn(process.execPath, ['-e', SWAPPER, JSON.stringify(pairs)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const swaps = new Promise<number>((resolve) => child.on('exit', () => resolve(Number(out))));
  return { child, swaps };
}
