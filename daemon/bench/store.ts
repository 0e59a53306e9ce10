/**
 * Store benchmarks (not a test; prints numbers): `node --import tsx bench/store.ts [sessions]`,
 * or storeBenchmark() from bench/run.ts.
 * - commitTurn of a turn whose tree has 500 nodes
 * - listSessions (first page, deep pages, workspace filter) and loadSession over 10,000 sessions
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { ExecutionTreeNode, ExecutionTreeSnapshot } from '@arbor/protocol';
import { openStore } from '../src/store/index.js';

const ROOTS = 20;

function tree(size: number, turnId: string): ExecutionTreeSnapshot {
  const nodes: ExecutionTreeNode[] = [
    { id: turnId, parentId: null, kind: 'turn', name: 'turn', status: 'done', depth: 0 },
  ];
  for (let i = 1; i < size; i++) {
    const subtask = i % 10 === 1;
    nodes.push({
      id: `${turnId}-${i}`,
      parentId: subtask || i < 10 ? turnId : `${turnId}-${i - (i % 10) + 1}`,
      kind: subtask ? 'subtask' : 'tool',
      name: subtask ? 'run_subtask' : 'read_file',
      status: 'done',
      depth: subtask || i < 10 ? 0 : 1,
      argsPreview: JSON.stringify({ path: `src/module${i}/file.ts` }),
      resultPreview: 'export function f() { return 1; }\n'.repeat(12),
      startedAt: new Date().toISOString(),
      durationMs: 12,
      approval: 'not_required',
      usage: { inputTokens: 1200, outputTokens: 80 },
      cost: 0.0012,
    });
  }
  return { version: 1, nodes };
}

function stats(label: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  console.log(
    `${label.padEnd(48)} n=${String(samples.length).padStart(5)}  mean ${mean.toFixed(3)} ms  p50 ${at(0.5).toFixed(3)}  p95 ${at(0.95).toFixed(3)}  max ${at(1).toFixed(3)}`,
  );
}

function time<T>(fn: () => T): [number, T] {
  const start = performance.now();
  const value = fn();
  return [performance.now() - start, value];
}

export function storeBenchmark(SESSIONS = 10_000): void {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-'));
  try {
    const store = openStore(dir);
    const usage = { inputTokens: 52_000, outputTokens: 3_000 };
    const byModel = [{ provider: 'openai', model: 'gpt-4.1', calls: 30, usage, cost: 0.128 }];

    // 1. commitTurn with a 500-node tree.
    const big = store.createSession({
      workspaceRoot: '/bench/big',
      permissionMode: 'default',
      chatContext: { kind: 'thread' },
    }).sessionId;
    const commits: number[] = [];
    for (let i = 0; i < 200; i++) {
      const turnId = `big-${i}`;
      store.appendUserMessage(big, turnId, 'refactor the module');
      const t = tree(500, turnId);
      const [ms] = time(() =>
        store.commitTurn({
          turnId,
          stopReason: 'end_turn',
          assistantText: 'done. '.repeat(200),
          tree: t,
          usage,
          byModel,
        }),
      );
      commits.push(ms);
    }
    console.log(`tree JSON size: ${(JSON.stringify(tree(500, 'x')).length / 1024).toFixed(0)} KiB`);
    stats('commitTurn, 500-node tree', commits);
    const [loadBigMs] = time(() => store.loadSession(big));
    console.log(
      `${'loadSession, 200 turns x 500-node trees'.padEnd(48)} ${loadBigMs.toFixed(1)} ms`,
    );

    // 2. Fill to SESSIONS sessions, each with one or two finished turns.
    const [fillMs] = time(() => {
      for (let s = 0; s < SESSIONS; s++) {
        const sessionId = store.createSession({
          workspaceRoot: `/bench/root-${s % ROOTS}`,
          permissionMode: 'default',
          chatContext: { kind: 'editor' },
          model: 'openai:gpt-4.1',
        }).sessionId;
        for (let t = 0; t < 1 + (s % 2); t++) {
          const turnId = `s${s}-t${t}`;
          store.appendUserMessage(sessionId, turnId, `question ${s}/${t}: why does this fail?`);
          store.commitTurn({
            turnId,
            stopReason: 'end_turn',
            assistantText: 'because '.repeat(60),
            tree: tree(20, turnId),
            usage,
            byModel,
          });
        }
      }
    });
    console.log(
      `filled ${SESSIONS} sessions in ${(fillMs / 1000).toFixed(1)} s; db ${(statSync(store.path).size / 2 ** 20).toFixed(0)} MiB (+ WAL)`,
    );

    // 3. listSessions.
    const first: number[] = [];
    for (let i = 0; i < 200; i++) first.push(time(() => store.listSessions({ limit: 50 }))[0]);
    stats(`listSessions first page (50) of ${SESSIONS + 1}`, first);

    const paging: number[] = [];
    let cursor: string | undefined;
    let listed = 0;
    do {
      const [ms, page] = time(() =>
        store.listSessions({ limit: 200, ...(cursor ? { cursor } : {}) }),
      );
      paging.push(ms);
      listed += page.sessions.length;
      cursor = page.nextCursor;
    } while (cursor);
    stats(`listSessions every page (200), ${listed} sessions`, paging);

    const filtered: number[] = [];
    for (let i = 0; i < 200; i++)
      filtered.push(
        time(() => store.listSessions({ workspaceRoot: `/bench/root-${i % ROOTS}`, limit: 50 }))[0],
      );
    stats('listSessions by workspace root (50)', filtered);

    // 4. loadSession of random sessions.
    const ids = (() => {
      const all: string[] = [];
      let c: string | undefined;
      do {
        const page = store.listSessions({ limit: 200, ...(c ? { cursor: c } : {}) });
        all.push(...page.sessions.map((s) => s.sessionId));
        c = page.nextCursor;
      } while (c);
      return all;
    })();
    const loads: number[] = [];
    for (let i = 0; i < 1000; i++)
      loads.push(time(() => store.loadSession(ids[Math.floor(Math.random() * ids.length)]!))[0]);
    stats(`loadSession, random of ${ids.length}`, loads);

    const history: number[] = [];
    for (let i = 0; i < 1000; i++)
      history.push(
        time(() =>
          store.historyForNextTurn(ids[Math.floor(Math.random() * ids.length)]!, 100_000),
        )[0],
      );
    stats('historyForNextTurn, random session', history);

    const events: number[] = [];
    for (let seq = 1; seq <= 5000; seq++)
      events.push(
        time(() =>
          store.appendEvent(big, seq, 'chat/chunk', { sessionId: big, seq, text: 'token ' }),
        )[0],
      );
    stats('appendEvent', events);

    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  storeBenchmark(Number(process.argv[2] ?? 10_000));
}
