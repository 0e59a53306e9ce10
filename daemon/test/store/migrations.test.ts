/** Databases written by every earlier schema version open with their data intact. */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import type { Database } from '../../src/store/sqlite/index.js';
import {
  DATABASE_FILE_NAME,
  MIGRATIONS,
  SCHEMA_VERSION,
  StoreError,
  openStore,
} from '../../src/store/index.js';
import { rawDb, removeScratchDirs, scratchDir, treeOf } from './helpers.js';

/** A database at `version`, built by the first `version` migration steps, as an older Arbor left it. */
function databaseAtVersion(version: number): string {
  const dir = scratchDir();
  const file = join(dir, DATABASE_FILE_NAME);
  const db = rawDb(file);
  db.pragma('journal_mode = WAL');
  // Rows go in right after the step that made their tables, as the Arbor of
  // that version wrote them; later steps then migrate them.
  const seeds: Record<number, (db: Database) => void> = { 1: seedV1, 2: seedV2 };
  for (const step of MIGRATIONS.slice(0, version)) {
    db.exec(step.sql);
    db.pragma(`user_version = ${step.version}`);
    seeds[step.version]?.(db);
  }
  db.close();
  return dir;
}

const tree = treeOf(6, 'old-turn');

function seedV1(db: Database): void {
  db.prepare(
    `INSERT INTO sessions VALUES ('old-session', '/w/old', 'Old title', 'auto', '{"kind":"editor"}', 'openai:gpt-4.1',
              '2024-05-01T10:00:00.000Z', '2024-05-01T10:05:00.000Z')`,
  ).run();
  db.prepare(
    `INSERT INTO turns VALUES ('old-turn', 'old-session', 'complete', 'end_turn', NULL,
              '2024-05-01T10:00:00.000Z', '2024-05-01T10:05:00.000Z', '{"inputTokens":10,"outputTokens":5}')`,
  ).run();
  db.prepare(
    `INSERT INTO turns VALUES ('old-running', 'old-session', 'running', NULL, NULL, '2024-05-01T10:06:00.000Z', NULL, NULL)`,
  ).run();
  db.prepare(
    `INSERT INTO messages VALUES ('m1', 'old-session', 'old-turn', 1, 'user', 'old question', NULL, '2024-05-01T10:00:00.000Z'),
              ('m2', 'old-session', 'old-turn', 2, 'assistant', 'old answer', '{"x":1}', '2024-05-01T10:05:00.000Z'),
              ('m3', 'old-session', 'old-running', 3, 'user', 'cut off', NULL, '2024-05-01T10:06:00.000Z')`,
  ).run();
  db.prepare(`INSERT INTO trees VALUES ('m2', ?)`).run(JSON.stringify(tree));
  db.prepare(
    `INSERT INTO turn_usage VALUES ('old-turn', 'openai', 'gpt-4.1', 1, 10, 5, NULL, NULL, 0.01)`,
  ).run();
  db.prepare(
    `INSERT INTO approvals (session_id, turn_id, tool_call_id, tool, args_digest, decision, outcome, decided_by, decided_at)
              VALUES ('old-session', 'old-turn', 'call_1', 'write_file', ?, 'deny', 'rejected', 'c1', '2024-05-01T10:01:00.000Z')`,
  ).run('a'.repeat(64));
}

function seedV2(db: Database): void {
  const insert = db.prepare(`INSERT INTO events VALUES ('old-session', ?, 'chat/chunk', ?)`);
  for (let seq = 1; seq <= 3; seq++) insert.run(seq, JSON.stringify({ text: `chunk ${seq}` }));
}

function schemaOf(file: string): string[] {
  const db = rawDb(file);
  try {
    return (
      db
        .prepare(
          `SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`,
        )
        .all() as {
        type: string;
        name: string;
        sql: string;
      }[]
    ).map((r) => `${r.type} ${r.name}: ${r.sql.replace(/\s+/g, ' ')}`);
  } finally {
    db.close();
  }
}

describe('store: migrations', () => {
  afterEach(removeScratchDirs);

  it('ships more than one schema version, numbered in order', () => {
    assert.ok(SCHEMA_VERSION >= 2);
    MIGRATIONS.forEach((step, i) => assert.equal(step.version, i + 1));
  });

  for (let version = 0; version < SCHEMA_VERSION; version++) {
    it(`migrates a version-${version} database to version ${SCHEMA_VERSION} with its data intact`, () => {
      const dir = databaseAtVersion(version);
      const store = openStore(dir);
      try {
        const file = store.path;
        const db = rawDb(file);
        assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
        db.close();
        const fresh = openStore(scratchDir());
        fresh.close();
        assert.deepEqual(schemaOf(file), schemaOf(fresh.path), 'same schema as a new database');
        if (version === 0) {
          assert.deepEqual(store.listSessions({ limit: 10 }).sessions, []);
          return;
        }
        const loaded = store.loadSession('old-session')!;
        assert.equal(loaded.session.title, 'Old title');
        assert.equal(loaded.session.permissionMode, 'auto');
        assert.deepEqual(loaded.session.chatContext, { kind: 'editor' });
        assert.deepEqual(
          loaded.messages.map((m) => [m.id, m.content, m.status ?? 'running']),
          [
            ['m1', 'old question', 'complete'],
            ['m2', 'old answer', 'complete'],
            ['m3', 'cut off', 'running'],
          ],
        );
        assert.deepEqual(loaded.messages[1]!.tree, tree);
        // Stored before parts and cost were kept: loaded without them, as a 1.0 daemon sends it.
        assert.equal(loaded.messages[1]!.parts, undefined);
        assert.equal(loaded.messages[1]!.cost, undefined);
        // Before version 8 no plan was kept: none is claimed.
        assert.equal(loaded.plan, undefined);
        // Before version 11 no agent profile was kept: the session runs with none.
        assert.equal(loaded.session.agent, undefined);
        assert.deepEqual(store.turnUsage('old-turn'), [
          {
            provider: 'openai',
            model: 'gpt-4.1',
            calls: 1,
            usage: { inputTokens: 10, outputTokens: 5 },
            cost: 0.01,
          },
        ]);
        assert.equal(store.approvals('old-session')[0]!.outcome, 'rejected');
        assert.deepEqual(store.markInterruptedTurns(), ['old-running']);
        assert.deepEqual(store.historyForNextTurn('old-session', 100).at(-1), {
          role: 'user',
          content: 'cut off',
        });
        const events = store.eventsSince('old-session', 0);
        assert.deepEqual(
          'events' in events ? events.events.map((e) => e.seq) : events,
          version >= 2 ? [1, 2, 3] : [],
        );
        // The migrated database takes new writes like a new one.
        store.appendUserMessage('old-session', 'new-turn', 'new question');
        assert.equal(store.loadSession('old-session')!.messages.at(-1)!.content, 'new question');
        const entries = [{ id: '1', content: 'carry on', status: 'pending' as const }];
        store.appendEvent('old-session', 4, 'plan/update', { turnId: 'new-turn', entries });
        assert.deepEqual(store.loadSession('old-session')!.plan, entries);
      } finally {
        store.close();
      }
    });
  }

  it('opening an up-to-date database again changes nothing', () => {
    const dir = scratchDir();
    const first = openStore(dir);
    const { sessionId } = first.createSession({
      workspaceRoot: '/w',
      permissionMode: 'default',
      chatContext: { kind: 'thread' },
    });
    first.close();
    const again = openStore(dir);
    assert.ok(again.getSession(sessionId));
    again.close();
  });

  it('refuses a database from a newer Arbor, naming the file and what to do', () => {
    const dir = databaseAtVersion(SCHEMA_VERSION);
    const db = rawDb(join(dir, DATABASE_FILE_NAME));
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    assert.throws(
      () => openStore(dir),
      (e: unknown) =>
        e instanceof StoreError &&
        e.code === 'schema_too_new' &&
        e.message.includes(join(dir, DATABASE_FILE_NAME)) &&
        /upgrade Arbor/.test(e.message),
    );
  });

  it('a failing step is rolled back and reported, leaving the earlier version', () => {
    const dir = databaseAtVersion(SCHEMA_VERSION - 1);
    const file = join(dir, DATABASE_FILE_NAME);
    const db = rawDb(file);
    // Something the last step also creates: the step fails half way.
    const lastStep = MIGRATIONS.at(-1)!.sql;
    const addedColumn = lastStep.match(/ALTER TABLE (\w+) ADD COLUMN (\w+)/);
    const created = lastStep.match(/CREATE (?:TABLE|INDEX) (\w+)/);
    if (addedColumn) db.exec(`ALTER TABLE ${addedColumn[1]} ADD COLUMN ${addedColumn[2]}`);
    else db.exec(`CREATE TABLE ${created![1]} (x)`);
    db.close();
    assert.throws(
      () => openStore(dir),
      (e: unknown) => e instanceof StoreError && e.code === 'database_unusable',
    );
    const after = rawDb(file);
    assert.equal(after.pragma('user_version', { simple: true }), SCHEMA_VERSION - 1);
    after.close();
  });

  it('a file that is not a database gives a clear error', async () => {
    const dir = scratchDir();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      join(dir, DATABASE_FILE_NAME),
      'this is not sqlite, just text that is long enough to be a header',
    );
    assert.throws(
      () => openStore(dir),
      (e: unknown) =>
        e instanceof StoreError &&
        e.code === 'database_unusable' &&
        e.message.includes('move it aside'),
    );
  });
});
