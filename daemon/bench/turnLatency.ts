/**
 * Latency of a scripted one-call turn — `chat/send` until the client sees
 * `session/state idle` — against one raw vscode-jsonrpc request/response round
 * trip to a child over stdio, in the same run on this machine.
 *
 * - Arbor: the built daemon spawned as an editor spawns it (`arbor daemon
 *   --stdio --provider scripted --script <file>`, the script answering every
 *   message with one short reply and no tools), driven by the client core
 *   (`@arbor/protocol/client`, validating every message). One turn at a time;
 *   a new session every TURNS_PER_SESSION turns so history stays short. Each
 *   sample covers the chat/send request and response, the turn (session/state
 *   running, the model call, chat/chunk, the store commit, cost/summary) and
 *   the idle notification reaching the client.
 * - raw: rpcPeer.ts answering `bench/echo` with plain vscode-jsonrpc on both
 *   sides, no validation.
 *
 * Warm-up first (JIT, the agent's lazy load on the first turn), then TURNS
 * samples of each. Targets: Arbor's p50 within 3x of the raw round trip's p50,
 * its p95 within 5x of the round trip's p95.
 *
 * Run: node --import tsx bench/turnLatency.ts   (from daemon/, after npm run build)
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { percentile, spawnRawPeer, startScriptedDaemon } from './support.js';

const TURNS = 200;
const WARMUP = 20;
const TURNS_PER_SESSION = 20;
const TARGET_RATIO = 3;
/** p95 against p95: the tail (GC, WAL checkpoints) may not run away either. */
const TARGET_P95_RATIO = 5;

export interface TurnLatencyResult {
  turnP50Ms: number;
  roundTripP50Ms: number;
  ratio: number;
}

export async function turnLatencyBenchmark(turns = TURNS): Promise<TurnLatencyResult> {
  const daemon = await startScriptedDaemon({
    version: 1,
    conversations: { '*': [{ text: 'Done: the answer is 42.' }] },
  });
  const peer = await spawnRawPeer();
  const turnMs: number[] = [];
  const roundTripMs: number[] = [];
  try {
    let sessionId = '';
    for (let i = 0; i < WARMUP + turns; i++) {
      if (i % TURNS_PER_SESSION === 0) sessionId = await daemon.newSession();
      const started = performance.now();
      const { stopReason } = await daemon.turn(sessionId, `question ${i}`);
      const ms = performance.now() - started;
      if (stopReason !== 'end_turn') throw new Error(`bench turn ended with ${stopReason}`);
      if (i >= WARMUP) turnMs.push(ms);
    }
    const params = { sessionId, text: 'question' };
    for (let i = 0; i < WARMUP + turns; i++) {
      const started = performance.now();
      await peer.connection.sendRequest('bench/echo', params);
      if (i >= WARMUP) roundTripMs.push(performance.now() - started);
    }
  } finally {
    await Promise.all([daemon.close(), peer.close()]);
  }

  const turnP50Ms = percentile(turnMs, 0.5);
  const roundTripP50Ms = percentile(roundTripMs, 0.5);
  const ratio = turnP50Ms / roundTripP50Ms;
  const row = (label: string, samples: number[]): string =>
    `  ${label.padEnd(40)} p50 ${percentile(samples, 0.5).toFixed(3)} ms  ` +
    `p95 ${percentile(samples, 0.95).toFixed(3)} ms  max ${percentile(samples, 1).toFixed(3)} ms`;
  console.log(`one-call turn latency (${turns} samples each, after ${WARMUP} warm-up):`);
  console.log(row('raw vscode-jsonrpc round trip', roundTripMs));
  console.log(row('Arbor chat/send -> session/state idle', turnMs));
  console.log(
    `  ratio of p50s: ${ratio.toFixed(2)}x (target <= ${TARGET_RATIO}x) ` +
      `${ratio <= TARGET_RATIO ? 'OK' : 'OVER TARGET'}`,
  );
  const p95Ratio = percentile(turnMs, 0.95) / percentile(roundTripMs, 0.95);
  console.log(
    `  ratio of p95s: ${p95Ratio.toFixed(2)}x (target <= ${TARGET_P95_RATIO}x) ` +
      `${p95Ratio <= TARGET_P95_RATIO ? 'OK' : 'OVER TARGET'}`,
  );
  return { turnP50Ms, roundTripP50Ms, ratio };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await turnLatencyBenchmark();
}
