/** The data dir: private file modes, and a clear error when it cannot be used. */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATABASE_FILE_NAME, openStore, StoreError } from '../../src/store/index.js';
import { newSession, removeScratchDirs, scratchDir } from './helpers.js';

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'openStore.ts');
const NOBODY = 65534;

interface OpenOutcome {
  ok: boolean;
  name?: string;
  code?: string;
  message?: string;
}

/** Opens the store in `dataDir` as a user without privileges (a child process when we are root). */
function openAsUnprivileged(dataDir: string): OpenOutcome {
  if (process.getuid?.() !== 0) {
    try {
      openStore(dataDir).close();
      return { ok: true };
    } catch (error) {
      const e = error as Error;
      return {
        ok: false,
        name: e.name,
        code: error instanceof StoreError ? error.code : undefined,
        message: e.message,
      };
    }
  }
  const child = spawnSync(process.execPath, ['--import', 'tsx', fixture, dataDir], {
    uid: NOBODY,
    gid: NOBODY,
    encoding: 'utf8',
    env: { ...process.env, HOME: '/tmp' },
    timeout: 20_000,
  });
  const line = child.stdout.trim().split('\n').at(-1);
  assert.ok(line, `the fixture printed nothing: ${child.stderr}`);
  return JSON.parse(line) as OpenOutcome;
}

/** A directory everyone may enter, so the unprivileged child reaches what is inside. */
function sharedScratch(): string {
  const dir = scratchDir();
  chmodSync(dir, 0o755);
  return dir;
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe('store: data dir and file modes', () => {
  afterEach(removeScratchDirs);

  it('creates a missing data dir (and its parents) 0700, and the database and WAL files 0600', () => {
    const dataDir = join(scratchDir(), 'nested', 'arbor');
    const oldMask = process.umask(0o022);
    try {
      const store = openStore(dataDir);
      const { sessionId } = store.createSession(newSession());
      store.appendUserMessage(sessionId, 't1', 'make the WAL grow');
      assert.equal(mode(dataDir), 0o700);
      for (const suffix of ['', '-wal', '-shm']) {
        assert.equal(mode(join(dataDir, DATABASE_FILE_NAME + suffix)), 0o600, `arbor.db${suffix}`);
      }
      store.close();
    } finally {
      process.umask(oldMask);
    }
  });

  it('narrows a database file that was left readable by others', () => {
    const dataDir = scratchDir();
    openStore(dataDir).close();
    const file = join(dataDir, DATABASE_FILE_NAME);
    chmodSync(file, 0o644);
    const store = openStore(dataDir);
    assert.equal(mode(file), 0o600);
    store.close();
  });

  it('uses WAL and enforces foreign keys', async () => {
    const store = openStore(scratchDir());
    const { openDatabase } = await import('../../src/store/sqlite/index.js');
    // The store's own connection settings, read through its file by a probe connection for WAL...
    const probe = openDatabase(store.path);
    assert.equal(probe.pragma('journal_mode', { simple: true }), 'wal');
    probe.close();
    // ...and foreign keys through behaviour: a message for an unknown session is refused.
    assert.throws(
      () => store.appendEvent('missing', 1, 'x', {}),
      (e: unknown) => e instanceof StoreError && e.code === 'not_found',
    );
    store.close();
  });

  it('an existing data dir that other users can write to is refused, with how to fix it', () => {
    for (const mode of [0o777, 0o770, 0o702]) {
      const dataDir = join(scratchDir(), 'shared');
      mkdirSync(dataDir);
      chmodSync(dataDir, mode);
      assert.throws(
        () => openStore(dataDir),
        (e: unknown) =>
          e instanceof StoreError &&
          e.code === 'data_dir_unsafe' &&
          e.message.includes(`chmod 700 ${dataDir}`),
        mode.toString(8),
      );
    }
  });

  it('a read-only data dir gives a StoreError naming the directory and what to do', function () {
    this.timeout(30_000);
    const dataDir = join(sharedScratch(), 'readonly');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o555);
    const outcome = openAsUnprivileged(dataDir);
    assert.equal(outcome.ok, false);
    assert.equal(outcome.name, 'StoreError');
    assert.equal(outcome.code, 'data_dir_read_only');
    assert.ok(outcome.message!.includes(dataDir), outcome.message);
    assert.match(outcome.message!, /not writable.*--data-dir/s);
  });

  it('a read-only database file gives a StoreError naming the file', function () {
    this.timeout(30_000);
    const dataDir = join(sharedScratch(), 'data');
    mkdirSync(dataDir);
    openStore(dataDir).close();
    // The unprivileged opener owns the directory (private, as it must be) but not the file.
    if (process.getuid?.() === 0) chownSync(dataDir, NOBODY, NOBODY);
    chmodSync(join(dataDir, DATABASE_FILE_NAME), 0o444);
    const outcome = openAsUnprivileged(dataDir);
    assert.equal(outcome.code, 'data_dir_read_only', outcome.message);
    assert.ok(outcome.message!.includes(join(dataDir, DATABASE_FILE_NAME)), outcome.message);
  });

  it('a data dir that is missing and cannot be created gives a StoreError', () => {
    const blocker = join(scratchDir(), 'a-file');
    writeFileSync(blocker, '');
    const dataDir = join(blocker, 'arbor');
    assert.throws(
      () => openStore(dataDir),
      (e: unknown) =>
        e instanceof StoreError &&
        e.code === 'data_dir_unavailable' &&
        e.path === dataDir &&
        e.message.includes(`${dataDir} does not exist and cannot be created`) &&
        e.message.includes('--data-dir'),
    );
  });

  it('a data dir path that is a file gives a StoreError', () => {
    const file = join(scratchDir(), 'not-a-dir');
    writeFileSync(file, '');
    assert.throws(
      () => openStore(file),
      (e: unknown) =>
        e instanceof StoreError &&
        e.code === 'data_dir_unavailable' &&
        /not a directory/.test(e.message),
    );
  });
});
