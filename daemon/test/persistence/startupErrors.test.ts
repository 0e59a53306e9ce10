/**
 * A data dir the store cannot use stops the daemon at startup with one clear
 * line naming the path (exit code 2), before it serves anything; commands
 * that do not run a daemon never touch the data dir.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARBOR_BIN } from '../helpers/wire.js';
import { databaseFile, removeScratch, scratchDir } from './daemonProcess.js';

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** Runs `arbor daemon --stdio` on `dataDir` as a user without privileges (root ignores file modes). */
function startAsUnprivileged(dataDir: string): {
  status: number | null;
  stderr: string;
  stdout: string;
} {
  const run = spawnSync(process.execPath, [ARBOR_BIN, 'daemon', '--stdio', '--data-dir', dataDir], {
    encoding: 'utf8',
    input: '',
    timeout: 15_000,
    env: { ...process.env, HOME: '/tmp' },
    ...(asRoot && { uid: NOBODY, gid: NOBODY }),
  });
  return { status: run.status, stderr: run.stderr, stdout: run.stdout };
}

/** A directory the unprivileged user owns (when we are root) with `mode`. */
function ownedDir(parent: string, name: string, mode: number): string {
  const dir = join(parent, name);
  mkdirSync(dir);
  if (asRoot) chownSync(dir, NOBODY, NOBODY);
  chmodSync(dir, mode);
  return dir;
}

describe('persistence: startup errors', function () {
  this.timeout(30_000);
  after(removeScratch);

  it('a read-only data dir: exit 2 and a message naming the directory', () => {
    const parent = scratchDir('arbor-ro-', true);
    const dataDir = ownedDir(parent, 'data', 0o500);
    const run = startAsUnprivileged(dataDir);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, new RegExp(`${dataDir}.*not writable`));
    assert.equal(run.stdout, '', 'nothing is served');
  });

  it('a read-only database file: exit 2 and a message naming the file and what to do', () => {
    const parent = scratchDir('arbor-ro-', true);
    const dataDir = ownedDir(parent, 'data', 0o700);
    const file = databaseFile(dataDir);
    writeFileSync(file, '');
    if (asRoot) chownSync(file, NOBODY, NOBODY);
    chmodSync(file, 0o400);
    const run = startAsUnprivileged(dataDir);
    assert.equal(run.status, 2, run.stderr);
    assert.ok(run.stderr.includes(file), run.stderr);
    assert.match(run.stderr, /cannot be opened for writing.*--data-dir/s);
    assert.equal(run.stdout, '');
  });

  it('a file that is not a database: exit 2 and a message naming it', () => {
    const dataDir = scratchDir();
    writeFileSync(
      databaseFile(dataDir),
      'these are not the sessions you are looking for'.repeat(100),
    );
    const run = spawnSync(
      process.execPath,
      [ARBOR_BIN, 'daemon', '--stdio', '--data-dir', dataDir],
      {
        encoding: 'utf8',
        input: '',
        timeout: 15_000,
      },
    );
    assert.equal(run.status, 2, run.stderr);
    assert.ok(run.stderr.includes(databaseFile(dataDir)), run.stderr);
    assert.match(run.stderr, /cannot be used/);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'one readable message, no stack trace');
  });

  it('--version and daemon --help do not create or open the data dir', () => {
    const dataDir = join(scratchDir(), 'never-created');
    for (const args of [['--version'], ['daemon', '--help']]) {
      const run = spawnSync(process.execPath, [ARBOR_BIN, ...args], {
        encoding: 'utf8',
        env: { ...process.env, ARBOR_DATA_DIR: dataDir },
      });
      assert.equal(run.status, 0, run.stderr);
    }
    assert.equal(existsSync(dataDir), false);
  });
});
