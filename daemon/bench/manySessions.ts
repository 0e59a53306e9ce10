/**
 * Many sessions: a daemon whose store holds 10,000 sessions, with 100 of
 * them running a turn at once. Reports the daemon's RSS while they run,
 * `session/list` latency (first page) while they run and once they are idle,
 * and idle eviction: the clients detach, and after the configured idle time
 * the daemon drops the sessions from memory (it logs how many) and its RSS is
 * read again.
 *
 * - The stored sessions are written in this process through the store, one
 *   user message and one answer each, before the daemon starts.
 * - The daemon is the built bundle, spawned as an editor spawns it, with the
 *   scripted provider: every turn waits TURN_MS, then answers a short text.
 * - Targets: RSS <= 250 MiB with the 100 turns running; session/list p50
 *   <= 20 ms. No baseline: these are absolute limits.
 *
 * Run: node --import tsx bench/manySessions.ts   (from daemon/, after npm run build)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Methods } from '@arbor/protocol';
import { connectArbor } from '@arbor/protocol/client/node';
import { openStore } from '../src/store/index.js';
import { ARBOR, percentile, sleep } from './support.js';

const STORED = 10_000;
const LIVE = 100;
const TURN_MS = 3000;
const LIST_SAMPLES = 50;
const IDLE_EVICT_MS = 2000;
const RSS_TARGET_MIB = 250;
const LIST_TARGET_MS = 20;

function fillStore(dataDir: string, workspaceRoot: string, sessions: number): void {
  const store = openStore(dataDir);
  for (let i = 0; i < sessions; i++) {
    const { sessionId } = store.createSession({
      workspaceRoot,
      permissionMode: 'auto',
      chatContext: { kind: 'thread' },
    });
    const turnId = `turn_${i}`;
    store.appendUserMessage(sessionId, turnId, `stored question ${i}`);
    store.commitTurn({
      turnId,
      stopReason: 'end_turn',
      assistantText: `stored answer ${i}`,
      tree: {
        version: 1,
        nodes: [
          { id: turnId, parentId: null, kind: 'turn', name: 'turn', status: 'done', depth: 0 },
        ],
      },
      usage: { inputTokens: 10, outputTokens: 5 },
      byModel: [],
    });
  }
  store.close();
}

function rssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
}

export async function manySessionsBenchmark(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-'));
  const dataDir = join(dir, 'data');
  const filling = performance.now();
  fillStore(dataDir, dir, STORED);
  const fillSeconds = (performance.now() - filling) / 1000;
  const scriptFile = join(dir, 'script.json');
  writeFileSync(
    scriptFile,
    JSON.stringify({ version: 1, conversations: { '*': [{ text: 'Done.', delayMs: TURN_MS }] } }),
  );
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ sessionIdleEvictMs: IDLE_EVICT_MS }));

  let evictionLog = '';
  const arbor = await connectArbor(
    {
      spawn: {
        command: process.execPath,
        args: [
          ARBOR,
          'daemon',
          '--stdio',
          '--config',
          configFile,
          '--provider',
          'scripted',
          '--script',
          scriptFile,
          '--data-dir',
          dataDir,
          '--log-level',
          'debug',
        ],
        stderr: 'pipe',
        onStderr: (text) => {
          for (const line of text.split('\n'))
            if (line.includes('dropped from memory')) evictionLog += `${line}\n`;
        },
      },
    },
    { clientInfo: { name: 'arbor-bench' } },
  );
  const pid = arbor.process?.child.pid;
  const { client } = arbor;
  try {
    await client.initialize();
    const idle = new Set<string>();
    client.onNotification(Methods.SessionState, (params) => {
      if (params.state === 'idle' && params.stopReason !== undefined) idle.add(params.sessionId);
    });
    const listOnce = async (): Promise<number> => {
      const started = performance.now();
      await client.request(Methods.SessionList, { limit: 50 });
      return performance.now() - started;
    };

    const sessionIds: string[] = [];
    for (let i = 0; i < LIVE; i++) {
      const info = await client.request(Methods.SessionNew, {
        workspaceRoot: dir,
        permissionMode: 'auto',
      });
      sessionIds.push(info.sessionId);
    }
    await Promise.all(
      sessionIds.map((sessionId) =>
        client.request(Methods.ChatSend, { sessionId, text: `live question ${sessionId}` }),
      ),
    );
    // The turns run for TURN_MS, far longer than the samples take: list while they
    // run, and keep the largest RSS seen until they are all over.
    const listRunning: number[] = [];
    let rssRunning = rssMiB(pid);
    for (let i = 0; i < LIST_SAMPLES; i++) {
      listRunning.push(await listOnce());
      rssRunning = Math.max(rssRunning, rssMiB(pid));
    }
    while (idle.size < LIVE) {
      rssRunning = Math.max(rssRunning, rssMiB(pid));
      await sleep(50);
    }
    const listIdle: number[] = [];
    for (let i = 0; i < LIST_SAMPLES; i++) listIdle.push(await listOnce());
    const rssIdle = rssMiB(pid);

    for (const sessionId of sessionIds) await client.request(Methods.SessionDetach, { sessionId });
    // Idle time, plus the sweep's period (half of it), plus a margin.
    await sleep(IDLE_EVICT_MS * 2 + 500);
    const rssEvicted = rssMiB(pid);

    const row = (label: string, samples: number[]): string =>
      `  ${label.padEnd(44)} p50 ${percentile(samples, 0.5).toFixed(2)} ms  p95 ${percentile(samples, 0.95).toFixed(2)} ms`;
    const verdict = (ok: boolean): string => (ok ? 'OK' : 'OVER TARGET');
    const listP50 = Math.max(percentile(listRunning, 0.5), percentile(listIdle, 0.5));
    console.log(
      `many sessions: ${STORED} stored (written in ${fillSeconds.toFixed(1)} s) + ${LIVE} new, each running a ${TURN_MS} ms turn at once:`,
    );
    console.log(
      `  daemon RSS, turns running (max)              ${rssRunning.toFixed(1)} MiB (target <= ${RSS_TARGET_MIB} MiB) ${verdict(rssRunning <= RSS_TARGET_MIB)}`,
    );
    console.log(`  daemon RSS, ${LIVE} sessions idle, attached      ${rssIdle.toFixed(1)} MiB`);
    console.log(row(`session/list (50), ${LIVE} turns running`, listRunning));
    console.log(row(`session/list (50), all idle`, listIdle));
    console.log(
      `  session/list p50 (the larger): ${listP50.toFixed(2)} ms (target <= ${LIST_TARGET_MS} ms) ${verdict(listP50 <= LIST_TARGET_MS)}`,
    );
    const dropped = [...evictionLog.matchAll(/(\d+) idle session\(s\) dropped/g)].reduce(
      (sum, match) => sum + Number(match[1]),
      0,
    );
    console.log(
      `  idle eviction (${IDLE_EVICT_MS} ms): ${dropped} of ${LIVE} sessions dropped from memory after detach; RSS then ${rssEvicted.toFixed(1)} MiB`,
    );
  } finally {
    await arbor.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await manySessionsBenchmark();
}
