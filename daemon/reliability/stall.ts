/**
 * Stall: one connection runs turns whose answer is 1 MiB without a space (the
 * scripted provider once split such text quadratically, and a stream that is
 * ready at once could hold the event loop), while another connection sends
 * `session/list` every 5 ms, open loop, and times each answer.
 *
 * Figures: session/list latency p50 / p99 / max with no turn running (the
 * baseline, same daemon, same run) and while the big turns stream. Target:
 * max ≤ 50 ms during the turns. Failures: an unanswered request, a turn that
 * does not end, a seq gap.
 */
import {
  Judge,
  latencySummary,
  log,
  mark,
  MiB,
  newSession,
  percentile,
  sleep,
  startDaemon,
  startPinger,
  TurnDriver,
  type Scale,
  type ScenarioResult,
} from './support.js';

const INTERVAL_MS = 5;
const MAX_TARGET_MS = 50;
const BASELINE_MS = 1500;
/** An answer no request may wait for longer than this: a hang. */
const HANG_MS = 10_000;

export async function stallScenario(scale: Scale): Promise<ScenarioResult> {
  const judge = new Judge();
  const daemon = await startDaemon({
    script: {
      version: 1,
      conversations: { wall: [{ text: 'x'.repeat(MiB) }], warm: [{ text: 'warm up' }] },
    },
  });
  try {
    const owner = await daemon.authenticated();
    const sessionId = await newSession(owner, daemon.workspace);
    const driver = new TurnDriver(owner, sessionId);
    const lister = await daemon.authenticated();
    await driver.turn('warm');
    await driver.turn('wall'); // the first big turn loads the agent and warms the JIT; not measured

    const baseline = startPinger(lister, INTERVAL_MS, HANG_MS);
    await sleep(BASELINE_MS);
    await baseline.stop();

    const loaded = startPinger(lister, INTERVAL_MS, HANG_MS);
    const loadStarted = performance.now();
    const turnMs: number[] = [];
    for (let i = 0; i < scale.stallTurns; i++) {
      const started = performance.now();
      const { idle } = await driver.turn('wall', 60_000);
      turnMs.push(performance.now() - started);
      judge.require(
        idle['stopReason'] === 'end_turn',
        `turn ${i} ended with ${String(idle['stopReason'])}`,
      );
    }
    const loadEnded = performance.now();
    const sentDuring = loaded.sent;
    await loaded.stop();
    const answeredDuring = loaded.answeredAt.filter((t) => t <= loadEnded).length;
    const rate = (n: number): string => `${((n * 1000) / (loadEnded - loadStarted)).toFixed(0)}/s`;

    const max = Math.max(...loaded.latencies);
    log(`baseline, no turn:   ${latencySummary(baseline.latencies)}`);
    log(`during 1 MiB turns:   ${latencySummary(loaded.latencies)}`);
    const during = loaded.answeredAt.filter((t) => t >= loadStarted && t <= loadEnded);
    let gap = 0;
    for (let i = 1; i < during.length; i++) gap = Math.max(gap, during[i]! - during[i - 1]!);
    log(
      `during the turns: ${sentDuring} requests sent (${rate(sentDuring)}), ${answeredDuring} answered ` +
        `(${rate(answeredDuring)})${answeredDuring < sentDuring ? `, ${sentDuring - answeredDuring} still queued at the end` : ''}; ` +
        `longest gap between two answers ${gap.toFixed(1)} ms`,
    );
    log(
      `turns: ${turnMs.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}; ` +
        `max latency ${max.toFixed(1)} ms (target <= ${MAX_TARGET_MS} ms) ${mark(max <= MAX_TARGET_MS)}`,
    );
    const unanswered = [...baseline.unanswered, ...loaded.unanswered];
    judge.require(
      unanswered.length === 0,
      `${unanswered.length} session/list unanswered: ${unanswered[0]}`,
    );
    judge.require(driver.gaps.length === 0, `seq gaps: ${driver.gaps.slice(0, 3).join('; ')}`);
    judge.require(daemon.alive(), 'the daemon exited');
    judge.target(
      max <= MAX_TARGET_MS,
      `max latency ${max.toFixed(1)} ms during the turns (target <= ${MAX_TARGET_MS} ms)`,
    );
    return judge.result(
      `max ${max.toFixed(1)} ms (<= ${MAX_TARGET_MS}), p99 ${percentile(loaded.latencies, 0.99).toFixed(1)} ms; ` +
        `baseline max ${Math.max(...baseline.latencies).toFixed(1)} ms`,
    );
  } finally {
    await daemon.close();
  }
}
