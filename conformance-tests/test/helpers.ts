/** Starting the reference fixtures for the suite's own tests. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  makeTempDir,
  removeDir,
  spawnCommand,
  waitForSocket,
  type Spawned,
} from '../src/harness/process.js';
import type { DaemonTarget } from '../src/scenarios/daemon/context.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
export const DAEMON = path.join(FIXTURES, 'reference-daemon.mjs');
export const CLIENT = path.join(FIXTURES, 'reference-client.mjs');
export const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

export const daemonCommand = (defect?: string): string =>
  `"${process.execPath}" "${DAEMON}" --stdio${defect ? ` --defect ${defect}` : ''}`;
export const clientCommand = (defect?: string): string =>
  `"${process.execPath}" "${CLIENT}"${defect ? ` --defect ${defect}` : ''}`;

export interface ListeningDaemon {
  target: Extract<DaemonTarget, { kind: 'socket' }>;
  tokenFile: string;
  stop(): Promise<void>;
}

/** The reference daemon on a Unix socket in a temp dir, token in a file. */
export async function listeningDaemon(defect?: string): Promise<ListeningDaemon> {
  const dir = makeTempDir('arbor-conformance-test-');
  const socket = path.join(dir, 'daemon.sock');
  const tokenFile = path.join(dir, 'token');
  writeFileSync(tokenFile, 'conformance-test-token\n');
  const spawned: Spawned = spawnCommand(
    `"${process.execPath}" "${DAEMON}" --listen "${socket}" --token-file "${tokenFile}"${defect ? ` --defect ${defect}` : ''}`,
  );
  spawned.child.stdout?.resume();
  spawned.child.stderr?.resume();
  await waitForSocket(socket, 5000);
  return {
    target: { kind: 'socket', address: socket, token: 'conformance-test-token' },
    tokenFile,
    async stop() {
      spawned.kill();
      await spawned.exit;
      removeDir(dir);
    },
  };
}

/** Runs `tasks` with at most `limit` in flight. */
export async function pool<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await task(items[i]!);
      }
    }),
  );
  return results;
}
