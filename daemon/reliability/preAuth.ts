/**
 * Pre-auth: strangers without the token, on the socket, while an
 * authenticated client works.
 *
 * - 40 connections each send the header of an 8 MiB frame and 1 MiB of its
 *   body, then hold (more than the 1 MiB a stranger may send in a frame: the
 *   daemon should answer -33xxx and close them at once);
 * - 16 connections each send all but the last byte of a 1 MiB frame, the
 *   largest a stranger may send, and hold (the daemon buffers these);
 * - 200 idle connections that send nothing.
 *
 * At most 32 strangers are admitted at once; the rest are closed on arrival.
 * Every admitted one must be closed by the 10 s auth deadline (we wait up to
 * 11.5 s). Meanwhile the authenticated client sends session/list every 20 ms
 * and runs a turn. Figures: RSS growth (target ≤ 64 MiB), how and when the
 * strangers were closed, the client's latency against a baseline measured
 * just before (target p99 ≤ 50 ms), and whether a new client could connect
 * during the flood (reported, not judged: the cap refuses it by design).
 */
import {
  Judge,
  latencySummary,
  log,
  mark,
  mib,
  MiB,
  newSession,
  percentile,
  RssSampler,
  rssBytes,
  sleep,
  startDaemon,
  startPinger,
  TurnDriver,
  type RawClient,
  type Scale,
  type ScenarioResult,
} from './support.js';

const AUTH_TIMEOUT_MS = 10_000;
const CLOSE_BY_MS = AUTH_TIMEOUT_MS + 1500;
const GROWTH_TARGET = 64 * MiB;
const P99_TARGET_MS = 50;
const OVERSIZE = 40;
const NEAR_LIMIT = 16;
const IDLE = 200;
const PING_MS = 20;

interface Stranger {
  kind: 'oversize' | 'near-limit' | 'idle';
  client: RawClient | undefined;
  openedAt: number;
  answered: boolean;
}

export async function preAuthScenario(_scale: Scale): Promise<ScenarioResult> {
  const judge = new Judge();
  const daemon = await startDaemon({
    script: { version: 1, conversations: { '*': [{ text: 'served while strangers wait' }] } },
  });
  const strangers: Stranger[] = [];
  try {
    const client = await daemon.authenticated();
    const sessionId = await newSession(client, daemon.workspace);
    const driver = new TurnDriver(client, sessionId);
    await driver.turn('warm up');

    const baseline = startPinger(client, PING_MS);
    await sleep(1000);
    await baseline.stop();
    await sleep(100);
    const rssBefore = rssBytes(daemon.pid) ?? NaN;
    const sampler = new RssSampler(daemon.pid);
    const during = startPinger(client, PING_MS);

    const open = async (kind: Stranger['kind'], write?: Buffer[]): Promise<void> => {
      const stranger: Stranger = {
        kind,
        client: undefined,
        openedAt: performance.now(),
        answered: false,
      };
      strangers.push(stranger);
      try {
        const raw = await daemon.connect();
        stranger.client = raw;
        raw.onMessage = () => (stranger.answered = true);
        for (const bytes of write ?? []) raw.write(bytes);
      } catch {
        // Refused at connect: counts as closed at once.
      }
    };
    const floodStarted = performance.now();
    const partOfBody = Buffer.alloc(MiB, 0x61);
    const oversizeHeader = Buffer.from(`Content-Length: ${8 * MiB}\r\n\r\n`, 'ascii');
    await Promise.all(
      Array.from({ length: OVERSIZE }, () => open('oversize', [oversizeHeader, partOfBody])),
    );
    // Give the oversize ones time to be refused, so the near-limit ones find free slots.
    await sleep(300);
    const nearHeader = Buffer.from(`Content-Length: ${MiB}\r\n\r\n`, 'ascii');
    const nearBody = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"'),
      Buffer.alloc(MiB, 0x62),
    ]).subarray(0, MiB - 1);
    await Promise.all(
      Array.from({ length: NEAR_LIMIT }, () => open('near-limit', [nearHeader, nearBody])),
    );
    await Promise.all(Array.from({ length: IDLE }, () => open('idle')));
    const floodMs = performance.now() - floodStarted;

    // A new client during the flood: admitted only if a stranger's slot is free.
    let newcomer = 'admitted';
    try {
      const late = await daemon.connect();
      const answer = await Promise.race([
        late.request('initialize', { token: daemon.token, protocolVersion: 1 }, 3000),
        late.whenClosed.then(() => undefined),
      ]);
      if (answer === undefined) newcomer = 'refused (closed at once)';
      else if (answer['error']) newcomer = `answered ${JSON.stringify(answer['error'])}`;
      late.destroy();
    } catch (error) {
      newcomer = `refused (${(error as Error).message})`;
    }

    const { idle: turnIdle, sendMs } = await driver.turn('during the flood', 20_000);
    const turnMs = performance.now();

    // Wait for the deadline to close every admitted stranger.
    const deadline = floodStarted + CLOSE_BY_MS;
    while (performance.now() < deadline && strangers.some((s) => s.client && !s.client.closed))
      await sleep(50);
    await during.stop();
    const peak = sampler.stop();
    const growth = peak - rssBefore;

    const closedAfter = (s: Stranger): number =>
      s.client === undefined ? 0 : s.client.closed ? s.client.closedAt - s.openedAt : Infinity;
    const stats = (kind: Stranger['kind']): string => {
      const list = strangers.filter((s) => s.kind === kind);
      const times = list.map(closedAfter);
      const atOnce = times.filter((t) => t < 1000).length;
      const atDeadline = times.filter((t) => t >= AUTH_TIMEOUT_MS - 500 && t !== Infinity).length;
      const between = times.filter((t) => t >= 1000 && t < AUTH_TIMEOUT_MS - 500).length;
      const open = times.filter((t) => t === Infinity).length;
      const answered = list.filter((s) => s.answered).length;
      const latest = Math.max(...times.filter((t) => t !== Infinity), 0);
      return (
        `${list.length} ${kind}: ${atOnce} closed within 1 s, ${between} later, ${atDeadline} at the deadline ` +
        `(the last after ${(latest / 1000).toFixed(1)} s), ${open} still open; ${answered} got an error answer`
      );
    };
    const stillOpen = strangers.filter((s) => closedAfter(s) === Infinity).length;
    const p99 = percentile(during.latencies, 0.99);

    log(`flood opened in ${floodMs.toFixed(0)} ms; a new client meanwhile: ${newcomer}`);
    for (const kind of ['oversize', 'near-limit', 'idle'] as const) log(stats(kind));
    log(
      `daemon RSS ${mib(rssBefore)} before, peak ${mib(peak)}: growth ${mib(growth)} (target <= ${mib(GROWTH_TARGET)}) ${mark(growth <= GROWTH_TARGET)}`,
    );
    log(`session/list, baseline:     ${latencySummary(baseline.latencies)}`);
    log(
      `session/list, during flood: ${latencySummary(during.latencies)}  p99 target <= ${P99_TARGET_MS} ms ${mark(p99 <= P99_TARGET_MS)}`,
    );
    log(
      `a turn during the flood: chat/send answered in ${sendMs.toFixed(1)} ms, ended ${String(turnIdle['stopReason'])} ` +
        `${((turnMs - floodStarted) / 1000).toFixed(1)} s into the flood`,
    );

    judge.require(
      stillOpen === 0,
      `${stillOpen} strangers still open ${CLOSE_BY_MS / 1000} s after the flood`,
    );
    judge.require(
      turnIdle['stopReason'] === 'end_turn',
      `the turn during the flood ended ${String(turnIdle['stopReason'])}`,
    );
    const errors = [...baseline.unanswered, ...during.unanswered];
    judge.require(errors.length === 0, `${errors.length} session/list unanswered: ${errors[0]}`);
    judge.require(driver.gaps.length === 0, `seq gaps: ${driver.gaps.slice(0, 3).join('; ')}`);
    judge.require(daemon.alive(), 'the daemon exited');
    judge.target(
      growth <= GROWTH_TARGET,
      `RSS grew ${mib(growth)} (target <= ${mib(GROWTH_TARGET)})`,
    );
    judge.target(
      p99 <= P99_TARGET_MS,
      `session/list p99 ${p99.toFixed(1)} ms during the flood (target <= ${P99_TARGET_MS} ms)`,
    );

    // The slots are free again: a new client is admitted and served.
    const after = await daemon.authenticated();
    judge.require(
      Array.isArray((await after.result('session/list', {}))['sessions']),
      'session/list after the flood',
    );
    return judge.result(
      `RSS +${mib(growth)} (<= ${mib(GROWTH_TARGET)}), ${stillOpen} left open, ` +
        `p99 ${p99.toFixed(1)} ms (baseline ${percentile(baseline.latencies, 0.99).toFixed(1)})`,
    );
  } finally {
    for (const s of strangers) s.client?.destroy();
    await daemon.close();
  }
}
