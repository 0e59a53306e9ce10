/**
 * A background process run without a sandbox has nothing that ends it when
 * the daemon is killed outright (SIGKILL, a crash, the OOM killer): Node
 * offers no PR_SET_PDEATHSIG, and a process group outlives its parent. A
 * watchdog does it: a shell outside the group reading a pipe whose only
 * writer is the daemon. However the daemon ends, the kernel closes that
 * pipe; the read returns and the watchdog kills the group. (A sandboxed
 * process needs none: it dies with bwrap, and bwrap with the daemon.)
 */
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { killGroup } from '../sandbox/sandboxedSpawn.js';

/** Starts the watchdog of process group `pgid`; the returned function ends it (the group is gone). */
export function watchForOrphaning(pgid: number): () => void {
  const watchdog = spawn('/bin/sh', ['-c', `read _; kill -9 -${pgid}`], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    env: { PATH: '/usr/bin:/bin' },
  });
  // Neither keeps the daemon running; the pipe's write end stays open until it exits.
  watchdog.unref();
  (watchdog.stdin as Socket).unref();
  watchdog.on('error', () => undefined);
  watchdog.stdin.on('error', () => undefined);
  return () => killGroup(watchdog.pid, 'SIGKILL');
}
