/**
 * Slow consumer: an observer attached to a session stops reading (its socket
 * paused) while the owner runs `slowTurns` turns of a 1 MiB answer each. The
 * daemon must queue at most maxQueuedBytes (16 MiB) for it, then detach it
 * with `session/detached` (reason `slow_consumer`), the notice last.
 *
 * Figures: the daemon's RSS (VmRSS from /proc) after warm-up turns read by
 * everyone (the heap at its working size), its peak over as many more turns
 * everyone reads (the control: the turns' own churn), its peak while the
 * observer reads nothing, and the growth over the baseline. Target: growth
 * ≤ 64 MiB (the 16 MiB cap plus a margin). Failures: no session/detached,
 * events after the notice, a turn that does not end, a seq gap for the owner.
 */
import {
  Judge,
  log,
  mark,
  mib,
  MiB,
  newSession,
  RssSampler,
  rssBytes,
  sleep,
  startDaemon,
  TurnDriver,
  type Json,
  type Scale,
  type ScenarioResult,
} from './support.js';

const GROWTH_TARGET = 64 * MiB;
/** Warm-up turns (the heap grows to its working size in about ten), and as many for the control. */
const WARM_TURNS = 10;
const WORD = 'abcdefghijklmnopqrstuvw';
/** 1 MiB of text in words, as a model would stream it. */
const ANSWER = `${WORD} `.repeat(Math.ceil(MiB / (WORD.length + 1))).slice(0, MiB);

export async function slowConsumerScenario(scale: Scale): Promise<ScenarioResult> {
  const judge = new Judge();
  const daemon = await startDaemon({
    script: { version: 1, conversations: { big: [{ text: ANSWER }] } },
  });
  try {
    const owner = await daemon.authenticated();
    const sessionId = await newSession(owner, daemon.workspace);
    const driver = new TurnDriver(owner, sessionId);
    const observer = await daemon.authenticated();
    let detachedAt = -1;
    let eventsAfterNotice = 0;
    let observed = 0;
    let lastObservedSeq = 0;
    observer.onNotification = (method, params) => {
      if (params['sessionId'] !== sessionId) return;
      if (detachedAt >= 0) eventsAfterNotice += 1;
      if (method === 'session/detached') {
        detachedAt = observed;
        judge.require(
          params['reason'] === 'slow_consumer',
          `session/detached reason ${String(params['reason'])}`,
        );
        return;
      }
      observed += 1;
      if (typeof params['seq'] === 'number') lastObservedSeq = params['seq'];
    };
    await observer.result('session/attach', { sessionId, role: 'observer' });

    // Warm-up, everyone reading, until the heap has grown to its working size: the
    // turns' own cost is in the baseline. Then as many turns again, everyone still
    // reading: the control, to tell the turns' churn from what the observer costs.
    for (let i = 0; i < WARM_TURNS; i++) await driver.turn('big', 60_000);
    await sleep(200);
    const baseline = rssBytes(daemon.pid) ?? NaN;
    const control = new RssSampler(daemon.pid);
    for (let i = 0; i < WARM_TURNS; i++) await driver.turn('big', 60_000);
    const controlPeak = control.stop();
    const bytesBefore = observer.reader.bytes;

    observer.socket.pause();
    const sampler = new RssSampler(daemon.pid);
    const started = performance.now();
    let completed = 0;
    for (let i = 0; i < scale.slowTurns; i++) {
      const { idle } = await driver.turn('big', 60_000);
      if (idle['stopReason'] === 'end_turn') completed += 1;
      else judge.require(false, `turn ${i} ended with ${String(idle['stopReason'])}`);
    }
    const turnsSeconds = (performance.now() - started) / 1000;
    const peak = sampler.stop();
    const growth = peak - baseline;

    // The observer reads again: what was queued for it, then the notice, then nothing.
    observer.socket.resume();
    const deadline = Date.now() + 10_000;
    while (detachedAt < 0 && Date.now() < deadline) await sleep(20);
    await sleep(300);
    const queuedForObserver = observer.reader.bytes - bytesBefore;
    const after = rssBytes(daemon.pid) ?? NaN;

    log(
      `${completed}/${scale.slowTurns} turns of ${mib(ANSWER.length)} in ${turnsSeconds.toFixed(1)} s ` +
        `(${mib(scale.slowTurns * ANSWER.length)} streamed) while the observer read nothing`,
    );
    log(
      `daemon RSS: ${mib(baseline)} after ${WARM_TURNS} warm-up turns; peak ${mib(controlPeak)} over ${WARM_TURNS} more ` +
        `turns everyone read (control, +${mib(controlPeak - baseline)}); peak ${mib(peak)} while the observer ` +
        `read nothing; ${mib(after)} once it drained`,
    );
    log(
      `RSS growth: ${mib(growth)} over the baseline (${mib(peak - controlPeak)} over the control's peak; ` +
        `target <= ${mib(GROWTH_TARGET)}) ${mark(growth <= GROWTH_TARGET)}`,
    );
    log(
      `observer: ${mib(queuedForObserver)} waited for it, session/detached ${detachedAt >= 0 ? 'received' : 'NOT received'} ` +
        `after its event seq ${lastObservedSeq}, ${eventsAfterNotice} events after the notice`,
    );
    judge.require(detachedAt >= 0, 'the observer never got session/detached');
    judge.require(
      eventsAfterNotice === 0,
      `${eventsAfterNotice} session events after session/detached`,
    );
    judge.require(
      driver.gaps.length === 0,
      `owner seq gaps: ${driver.gaps.slice(0, 3).join('; ')}`,
    );
    judge.require(daemon.alive(), 'the daemon exited');
    judge.target(
      growth <= GROWTH_TARGET,
      `RSS grew ${mib(growth)} (target <= ${mib(GROWTH_TARGET)})`,
    );
    const sessions = await owner.result('session/list', {});
    judge.require(Array.isArray((sessions as Json)['sessions']), 'session/list after the turns');
    return judge.result(
      `RSS +${mib(growth)} (<= ${mib(GROWTH_TARGET)}), ${mib(queuedForObserver)} queued, ` +
        `detached ${detachedAt >= 0 ? 'yes' : 'no'}`,
    );
  } finally {
    await daemon.close();
  }
}
