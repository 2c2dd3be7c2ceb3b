import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { execFile } from 'node:child_process'
import { tmpdir } from 'node:os'
import { promisify } from 'node:util'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { isDomainError } from '../../core/errors.js'
import type { FileSortField } from '../../ports/metadata-store.js'
import { runMetadataStoreContract } from '../../../test/contract/metadata-store.contract.js'
import { BUSY_TIMEOUT_MS, openDatabase } from './connection.js'
import { FIND_BY_TITLE_SQL, listSql } from './files.js'
import { openSqliteStore } from './index.js'
import { applyMigrations, SQLITE_MIGRATIONS_DIR } from './migrations.js'

const tempDirs: string[] = []

async function makeTempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'folio-sqlite-'))
  tempDirs.push(dir)
  return dir
}

after(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

runMetadataStoreContract('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'folio-sqlite-'))
  const path = join(dir, 'folio.db')
  const store = await openSqliteStore({ path }).catch(async (error) => {
    await rm(dir, { recursive: true, force: true })
    throw error
  })
  return {
    store,
    // A second connection to the file, as another FOLIO_WORKERS process has.
    openAnother: () => openSqliteStore({ path }),
    cleanup: async () => {
      await store.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
})

describe('sqlite driver', () => {
  test('the access read sees a lock another process commits at once (FOLIO_WORKERS)', async () => {
    const path = join(await makeTempDir(), 'folio.db')
    const store = await openSqliteStore({ path })
    try {
      const at = 1_700_000_000_000
      await store.users.create({
        id: 'u-1',
        userName: 'one',
        displayName: '',
        email: '',
        isAdmin: false,
        passwordHash: 'x',
        wopiUserInfo: '',
        tokenGeneration: 0,
        disabled: false,
        createdAt: at,
        updatedAt: at,
      })
      const file = {
        id: 'f-1',
        ownerId: 'u-1',
        title: 'a.docx',
        version: 1,
        size: 1,
        sha256: '1'.repeat(64),
        blobKey: 'b-1',
        createdAt: at,
        createdBy: 'u-1',
        updatedAt: at,
        updatedBy: 'u-1',
        lock: null,
        keyVersion: 1,
        revision: 1,
        folderId: 'd-1',
        trashedAt: null,
        originFolderId: null,
      }
      await store.files.create(file, {
        fileId: 'f-1',
        version: 1,
        blobKey: 'b-1',
        size: 1,
        sha256: file.sha256,
        createdAt: at,
        createdBy: 'u-1',
        source: 'create',
        meta: {},
      })
      // Read twice, so an answer this process remembers is what the other one must displace.
      await store.files.findWithAccess('f-1', 'u-1')
      assert.equal((await store.files.findWithAccess('f-1', 'u-1'))?.file.lock, null)
      const script = `const { openSqliteStore } = await import(${JSON.stringify(join(import.meta.dirname, 'index.ts'))})
        const store = await openSqliteStore({ path: ${JSON.stringify(path)} })
        await store.files.update('f-1', 1, { lock: { lockId: 'theirs', expiresAt: ${at + 60_000} } })
        await store.close()`
      await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script])
      assert.equal((await store.files.findWithAccess('f-1', 'u-1'))?.file.lock?.lockId, 'theirs')
    } finally {
      await store.close()
    }
  })

  test('creates the missing parent folders and leaves the file in WAL mode', async () => {
    const path = join(await makeTempDir(), 'a', 'b', 'folio.db')
    const store = await openSqliteStore({ path })
    await store.settings.setIfAbsent('k', 'v')
    await store.close()
    const db = new Database(path, { readonly: true })
    try {
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal')
    } finally {
      db.close()
    }
  })

  test('connections commit durably: WAL, synchronous FULL, busy timeout', async () => {
    const db = await openDatabase(join(await makeTempDir(), 'folio.db'))
    try {
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal')
      // 2 is FULL; NORMAL (1) could lose the last commits on power loss.
      assert.equal(db.pragma('synchronous', { simple: true }), 2)
      assert.equal(db.pragma('busy_timeout', { simple: true }), BUSY_TIMEOUT_MS)
    } finally {
      db.close()
    }
  })

  test('reopening keeps the data and applies no migration twice', async () => {
    const path = join(await makeTempDir(), 'folio.db')
    const first = await openSqliteStore({ path })
    await first.settings.setIfAbsent('secret', 's1')
    await first.close()

    const readMigrations = () => {
      const db = new Database(path, { readonly: true })
      try {
        return db.prepare('SELECT version, name, applied_at FROM schema_migrations').all()
      } finally {
        db.close()
      }
    }
    const recorded = readMigrations()
    const files = (await readdir(SQLITE_MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql'))
    assert.equal(recorded.length, files.length)

    const second = await openSqliteStore({ path })
    assert.equal(await second.settings.get('secret'), 's1')
    await second.close()
    assert.deepEqual(readMigrations(), recorded)
  })

  test('a session for an unknown user throws NOT_FOUND', async () => {
    const store = await openSqliteStore({ path: join(await makeTempDir(), 'folio.db') })
    try {
      await assert.rejects(
        store.sessions.create({ tokenHash: 'h', userId: 'u-none', createdAt: 1, expiresAt: 2 }),
        (error) => isDomainError(error) && error.code === 'NOT_FOUND',
      )
    } finally {
      await store.close()
    }
  })

  test('every listing sort is served by an index, with no sort step', async () => {
    const path = join(await makeTempDir(), 'folio.db')
    await (await openSqliteStore({ path })).close()
    const db = new Database(path, { readonly: true })
    try {
      // Author joins users, so no index of files can serve it (see files.ts).
      const sorts: FileSortField[] = ['title', 'created', 'updated', 'size', 'type']
      for (const sortBy of sorts) {
        for (const descending of [false, true]) {
          for (const filtered of [false, true]) {
            const plan = db
              .prepare<{ folderId: string; needle: string; limit: number; offset: number }>(
                `EXPLAIN QUERY PLAN ${listSql(sortBy, descending, filtered)}`,
              )
              .all({ folderId: 'd', needle: 'x', limit: 10, offset: 0 })
            const text = JSON.stringify(plan)
            assert.match(text, /USING (COVERING )?INDEX/, `${sortBy} ${descending} ${filtered}`)
            assert.doesNotMatch(text, /TEMP B-TREE/, `${sortBy} ${descending} ${filtered}`)
          }
        }
      }
    } finally {
      db.close()
    }
  })
  test('findByTitle is one lookup in the unique (folder, title key) index', async () => {
    const path = join(await makeTempDir(), 'folio.db')
    await (await openSqliteStore({ path })).close()
    const db = new Database(path, { readonly: true })
    try {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${FIND_BY_TITLE_SQL}`).all('u', 'x.docx')
      assert.match(JSON.stringify(plan), /SEARCH files USING INDEX files_by_folder_title/)
    } finally {
      db.close()
    }
  })
})

describe('sqlite migrations', () => {
  async function openScratch(): Promise<{ db: Database.Database; dir: string }> {
    const root = await makeTempDir()
    const dir = join(root, 'migrations')
    await mkdir(dir)
    return { db: new Database(join(root, 'scratch.db')), dir }
  }

  function tables(db: Database.Database): string[] {
    return db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
      .all()
      .map((row) => row.name)
  }

  test('applies each step once and only the new ones later', async () => {
    const { db, dir } = await openScratch()
    try {
      await writeFile(join(dir, '001_first.sql'), 'CREATE TABLE a (x INTEGER);')
      assert.deepEqual(await applyMigrations(db, dir), [1])
      assert.deepEqual(await applyMigrations(db, dir), [])
      await writeFile(join(dir, '002_second.sql'), 'CREATE TABLE b (y INTEGER);')
      await writeFile(join(dir, '010_tenth.sql'), 'ALTER TABLE b ADD COLUMN z TEXT;')
      assert.deepEqual(await applyMigrations(db, dir), [2, 10])
      assert.deepEqual(tables(db), ['a', 'b', 'schema_migrations'])
      const names = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()
      assert.deepEqual(names, [
        { version: 1, name: 'first' },
        { version: 2, name: 'second' },
        { version: 10, name: 'tenth' },
      ])
    } finally {
      db.close()
    }
  })

  test('a failing step leaves no trace and names its file', async () => {
    const { db, dir } = await openScratch()
    try {
      await writeFile(join(dir, '001_ok.sql'), 'CREATE TABLE a (x INTEGER);')
      await writeFile(join(dir, '002_bad.sql'), 'CREATE TABLE b (y INTEGER);\nNOT SQL AT ALL;')
      await assert.rejects(applyMigrations(db, dir), /002_bad\.sql/)
      assert.deepEqual(tables(db), ['a', 'schema_migrations'])
      assert.deepEqual(db.prepare('SELECT version FROM schema_migrations').pluck().all(), [1])
    } finally {
      db.close()
    }
  })

  test('rebuilding a referenced table keeps the rows that reference it', async () => {
    const { db, dir } = await openScratch()
    try {
      db.pragma('foreign_keys = ON')
      await writeFile(
        join(dir, '001_init.sql'),
        `
        CREATE TABLE parent (id TEXT PRIMARY KEY);
        CREATE TABLE child (parent_id TEXT REFERENCES parent (id) ON DELETE CASCADE);
        INSERT INTO parent VALUES ('p');
        INSERT INTO child VALUES ('p');`,
      )
      await applyMigrations(db, dir)
      await writeFile(
        join(dir, '002_rebuild.sql'),
        `
        CREATE TABLE parent_new (id TEXT PRIMARY KEY, label TEXT NOT NULL DEFAULT '');
        INSERT INTO parent_new (id) SELECT id FROM parent;
        DROP TABLE parent;
        ALTER TABLE parent_new RENAME TO parent;`,
      )
      await applyMigrations(db, dir)
      assert.equal(db.prepare('SELECT count(*) FROM child').pluck().get(), 1)
      assert.equal(db.pragma('foreign_keys', { simple: true }), 1)
    } finally {
      db.close()
    }
  })

  test('refuses badly named files, duplicate numbers and steps it does not know', async () => {
    const { db, dir } = await openScratch()
    try {
      await writeFile(join(dir, '1_short.sql'), 'SELECT 1;')
      await assert.rejects(applyMigrations(db, dir), /NNN_name\.sql/)
      await rm(join(dir, '1_short.sql'))

      await writeFile(join(dir, '001_a.sql'), 'SELECT 1;')
      await writeFile(join(dir, '001_b.sql'), 'SELECT 1;')
      await assert.rejects(applyMigrations(db, dir), /share number 001/)
      await rm(join(dir, '001_b.sql'))

      await writeFile(join(dir, '002_c.sql'), 'SELECT 1;')
      assert.deepEqual(await applyMigrations(db, dir), [1, 2])
      await rm(join(dir, '002_c.sql'))
      await assert.rejects(applyMigrations(db, dir), /unknown to this version/)
    } finally {
      db.close()
    }
  })
})
