/**
 * The SQLite seam (src/store/sqlite/) behaves the same on both backends:
 * run under Node 20 it checks better-sqlite3, under `npm run
 * test:node-sqlite` (Node 24) node:sqlite. What the store relies on:
 * transactions that nest as savepoints, error codes by SQLite name,
 * pluck/iterate, pragmas, and inTransaction across raw BEGIN/COMMIT.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { openDatabase, sqliteBackend, type Database } from '../../src/store/sqlite/index.js';
import { removeScratchDirs, scratchDir } from './helpers.js';

describe(`store: the SQLite seam (${sqliteBackend()})`, () => {
  let db: Database;
  beforeEach(() => {
    db = openDatabase(join(scratchDir(), 'seam.db'));
    db.exec(`
      CREATE TABLE parent (id TEXT PRIMARY KEY, name TEXT UNIQUE);
      CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES parent (id));
    `);
    db.pragma('foreign_keys = ON');
  });
  afterEach(() => db.close());
  after(removeScratchDirs);

  it('a failing inner transaction rolls back only its own writes', () => {
    const insert = db.prepare('INSERT INTO parent (id, name) VALUES (@id, @name)');
    db.transaction(() => {
      insert.run({ id: 'a', name: 'kept' });
      assert.equal(db.inTransaction, true);
      assert.throws(() =>
        db.transaction(() => {
          insert.run({ id: 'b', name: 'dropped' });
          throw new Error('inner fails');
        })(),
      );
    }).immediate();
    assert.equal(db.inTransaction, false);
    assert.deepEqual(db.prepare('SELECT id FROM parent ORDER BY id').pluck().all(), ['a']);
  });

  it('names constraint failures as better-sqlite3 does', () => {
    db.prepare("INSERT INTO parent VALUES ('a', 'x')").run();
    const code = (sql: string) => {
      try {
        db.prepare(sql).run();
      } catch (error) {
        return (error as { code?: string }).code;
      }
      return 'no error';
    };
    assert.equal(code("INSERT INTO parent VALUES ('a', 'y')"), 'SQLITE_CONSTRAINT_PRIMARYKEY');
    assert.equal(code("INSERT INTO parent VALUES ('b', 'x')"), 'SQLITE_CONSTRAINT_UNIQUE');
    assert.equal(
      code("INSERT INTO child (parent_id) VALUES ('zz')"),
      'SQLITE_CONSTRAINT_FOREIGNKEY',
    );
  });

  it('reads rows as plain objects, plucked values, lazily, and pragmas', () => {
    const insert = db.prepare('INSERT INTO parent (id, name) VALUES (?, ?)');
    for (const id of ['a', 'b', 'c']) insert.run(id, `n${id}`);
    assert.deepEqual(db.prepare('SELECT id, name FROM parent WHERE id = ?').get('b'), {
      id: 'b',
      name: 'nb',
    });
    assert.equal(db.prepare('SELECT count(*) FROM parent').pluck().get(), 3);
    const seen: unknown[] = [];
    for (const row of db.prepare('SELECT id FROM parent ORDER BY id').iterate()) {
      seen.push(row);
      if (seen.length === 2) break;
    }
    assert.deepEqual(seen, [{ id: 'a' }, { id: 'b' }]);
    db.pragma('user_version = 7');
    assert.equal(db.pragma('user_version', { simple: true }), 7);
    assert.deepEqual(db.pragma('user_version'), [{ user_version: 7 }]);
  });

  it('knows it is in a transaction begun with a plain BEGIN statement', () => {
    db.prepare('BEGIN').run();
    assert.equal(db.inTransaction, true);
    db.prepare('COMMIT').run();
    assert.equal(db.inTransaction, false);
    assert.equal(db.open, true);
    db.close();
    assert.equal(db.open, false);
    db = openDatabase(':memory:');
  });
});
