/**
 * Mocha global setup: rebuild the daemon bundle from source before any test
 * spawns `bin/arbor.js`, so process-level tests never run a stale daemon.
 * esbuild reads the TypeScript directly and takes well under a second. The
 * old chunks are left in place (their names are content hashes), so a daemon
 * another test run is starting from the previous bundle still finds them.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export function mochaGlobalSetup(): void {
  execFileSync('npm', ['run', '--silent', 'bundle'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
