/**
 * The daemon's restart policy, driven with a fake clock and a fake spawner
 * that fails as a broken daemon would: capped exponential backoff, one final
 * notification, configuration problems reported at once and never retried.
 */
import assert from 'node:assert/strict';
import { RestartLoop, type Clock, type DaemonFailure } from '../../src/daemon/restartLoop.js';
import { chooseDaemonRuntime, nodeVersionVerdict } from '../../src/daemon/nodeRuntime.js';

/** Timers that run only when the test advances time. */
class FakeClock implements Clock {
  time = 0;
  #timers: { at: number; run: () => void; id: number }[] = [];
  #next = 0;
  now(): number {
    return this.time;
  }
  setTimeout(run: () => void, ms: number): unknown {
    const id = ++this.#next;
    this.#timers.push({ at: this.time + ms, run, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers = this.#timers.filter((t) => t.id !== handle);
  }
  get pending(): number {
    return this.#timers.length;
  }
  /** Runs every timer due within `ms`, in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      this.#timers.sort((a, b) => a.at - b.at);
      const due = this.#timers[0];
      if (!due || due.at > end) break;
      this.#timers.shift();
      this.time = due.at;
      due.run();
    }
    this.time = end;
  }
}

/** A supervisor stand-in: each start runs `spawn`, which either comes up or fails. */
function harness(spawn: () => DaemonFailure | 'ready') {
  const clock = new FakeClock();
  const log = { starts: 0, delays: [] as number[], gaveUp: [] as string[], config: [] as string[] };
  const start = (): void => {
    log.starts++;
    const outcome = spawn();
    if (outcome === 'ready') loop.ready();
    else loop.failed(outcome);
  };
  const loop: RestartLoop = new RestartLoop(
    {
      restart: start,
      retrying: (_reason, waitMs) => log.delays.push(waitMs),
      gaveUp: (reason) => log.gaveUp.push(reason),
      configurationError: (reason) => log.config.push(reason),
    },
    clock,
  );
  return { clock, log, start, loop };
}

const crash: DaemonFailure = {
  kind: 'crash',
  reason: 'The Arbor daemon exited during startup (exit code 1).',
};

describe('daemon restart policy', () => {
  it('a daemon that never starts is retried with growing, capped delays, then given up once with the reason', () => {
    const { clock, log, start } = harness(() => crash);
    start();
    clock.advance(10 * 60_000);
    assert.deepEqual(log.delays, [1000, 2000, 4000, 8000, 16_000]);
    assert.equal(log.starts, 6, 'the first start and five retries');
    assert.deepEqual(log.gaveUp, [crash.reason]);
    assert.equal(clock.pending, 0, 'nothing more is scheduled: no endless loop');
  });

  it('an earlier healthy run does not reset the count for starts that never reach initialize', () => {
    let healthy = true;
    const { clock, log, start, loop } = harness(() => (healthy ? 'ready' : crash));
    start();
    clock.advance(10 * 60_000); // a long, healthy run
    healthy = false;
    loop.failed(crash); // then it dies, and every restart fails
    clock.advance(10 * 60_000);
    assert.deepEqual(log.delays, [1000, 2000, 4000, 8000, 16_000]);
    assert.equal(log.gaveUp.length, 1);
  });

  it('a crash after a healthy run starts the count afresh', () => {
    const { clock, log, start, loop } = harness(() => 'ready');
    start();
    loop.failed(crash);
    clock.advance(1000);
    clock.advance(5000);
    loop.failed(crash); // up for only 5 s: counts
    clock.advance(2000);
    clock.advance(120_000);
    loop.failed(crash); // up for two minutes: forgiven
    assert.deepEqual(log.delays, [1000, 2000, 1000]);
  });

  it('one failure reported twice (connection closed, initialize rejected) schedules one restart', () => {
    const { clock, log, loop } = harness(() => crash);
    loop.failed(crash);
    loop.failed(crash);
    assert.equal(clock.pending, 1);
    assert.deepEqual(log.delays, [1000]);
  });

  it('a configuration problem is reported at once and not retried', () => {
    const reason = 'The Arbor daemon refused to start: config file: unknown key "modle"';
    const { clock, log, start } = harness(() => ({ kind: 'configuration', reason }));
    start();
    clock.advance(10 * 60_000);
    assert.equal(log.starts, 1);
    assert.deepEqual(log.config, [reason]);
    assert.deepEqual(log.delays, []);
  });

  it('Retry after giving up gets the full number of attempts again', () => {
    const { clock, log, start, loop } = harness(() => crash);
    start();
    clock.advance(10 * 60_000);
    loop.reset();
    start();
    clock.advance(10 * 60_000);
    assert.equal(log.gaveUp.length, 2);
    assert.equal(log.starts, 12);
  });
});

describe('the Node the daemon runs on', () => {
  it('Node 20 (bundled SQLite binding) and Node >= 22.13 (node:sqlite) can; 21 and early 22 cannot', () => {
    for (const v of ['20.19.0', '22.13.0', '23.5.0', '24.1.0', '25.0.0'])
      assert.equal(nodeVersionVerdict('node', v).ok, true, v);
    for (const v of ['21.7.3', '22.12.0', '23.4.0']) {
      const verdict = nodeVersionVerdict('/usr/bin/node', v);
      assert.equal(verdict.ok, false, v);
      if (!verdict.ok)
        assert.match(verdict.message, /Node\.js 20 or on 22\.13 and newer.*arbor\.nodePath/);
    }
  });

  it("with no Node installed, the daemon runs on VS Code's own runtime when it has node:sqlite", async () => {
    const host = { execPath: '/opt/vscode/code', version: '22.20.0', hasNodeSqlite: true };
    const saved = process.env['PATH'];
    process.env['PATH'] = '/nonexistent';
    try {
      const choice = await chooseDaemonRuntime('node', host);
      assert.ok(choice.ok);
      if (choice.ok) {
        assert.equal(choice.runtime.command, '/opt/vscode/code');
        assert.deepEqual(choice.runtime.env, { ELECTRON_RUN_AS_NODE: '1' });
      }
      const without = await chooseDaemonRuntime('node', { ...host, hasNodeSqlite: false });
      assert.equal(without.ok, false);
    } finally {
      process.env['PATH'] = saved;
    }
  });

  it('an explicit arbor.nodePath that does not exist is a configuration error, with no fallback', async () => {
    const host = { execPath: '/opt/vscode/code', version: '22.20.0', hasNodeSqlite: true };
    const choice = await chooseDaemonRuntime('/nonexistent/node', host);
    assert.equal(choice.ok, false);
    if (!choice.ok) assert.match(choice.message, /"\/nonexistent\/node" was not found/);
  });
});
