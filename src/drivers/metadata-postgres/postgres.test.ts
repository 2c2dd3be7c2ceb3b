import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readdir, rm, writeFile, cp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDomainError } from '../../core/errors.js'
import { decideLock } from '../../core/lock/lock-rules.js'
import type { FileRecord, FileSortField, MetadataStore } from '../../ports/metadata-store.js'
import { runMetadataStoreContract } from '../../../test/contract/metadata-store.contract.js'
import {
  dropSchema,
  postgresSkipReason,
  queryTestDatabase,
  TEST_DATABASE_URL,
  uniqueSchemaName,
} from '../../../test/support/postgres.js'
import { checkSchemaName, redactDatabaseUrl } from './connection.js'
import { listSql } from './files.js'
import { openPostgresStore } from './index.js'
import { loadMigrations } from '../metadata-shared/migrations.js'
import { applyMigrations, POSTGRES_MIGRATIONS_DIR } from './migrations.js'

const skip = await postgresSkipReason()

const schemas: string[] = []
function newSchema(): string {
  const schema = uniqueSchemaName()
  schemas.push(schema)
  return schema
}

after(async () => {
  if (skip === undefined) await Promise.all(schemas.map(dropSchema))
})

const T0 = 1_700_000_000_000

interface PlanNode {
  'Node Type'?: string
  'Index Name'?: string
  Plans?: PlanNode[]
  /** The root node, on the top-level entry of the JSON plan. */
  Plan?: unknown
}

function isPlanNode(value: unknown): value is PlanNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The first node of an EXPLAIN (FORMAT JSON) plan, depth first, that `match` accepts. */
function findNode(plan: unknown, match: (node: PlanNode) => boolean): PlanNode | undefined {
  if (Array.isArray(plan)) {
    for (const item of plan) {
      const found = findNode(item, match)
      if (found) return found
    }
    return undefined
  }
  if (!isPlanNode(plan)) return undefined
  if (plan.Plan !== undefined) return findNode(plan.Plan, match)
  if (match(plan)) return plan
  return findNode(plan.Plans ?? [], match)
}

function buildFile(overrides: Partial<FileRecord> = {}): FileRecord {
  return {
    id: 'f-1',
    ownerId: 'u-alice',
    folderId: 'd-alice',
    trashedAt: null,
    originFolderId: null,
    title: 'Report.docx',
    version: 1,
    size: 10,
    sha256: '1'.repeat(64),
    blobKey: 'blob-1',
    createdAt: T0,
    createdBy: 'u-alice',
    updatedAt: T0,
    updatedBy: 'u-alice',
    lock: null,
    keyVersion: 1,
    revision: 1,
    ...overrides,
  }
}

async function createFile(store: MetadataStore, file: FileRecord): Promise<void> {
  await store.files.create(file, {
    fileId: file.id,
    version: file.version,
    blobKey: file.blobKey,
    size: file.size,
    sha256: file.sha256,
    createdAt: file.createdAt,
    createdBy: file.createdBy,
    source: 'create',
    meta: {},
  })
}

if (skip !== undefined) {
  test('postgres driver', { skip }, () => undefined)
} else {
  // Each test of the contract gets its own freshly created schema, dropped afterwards.
  runMetadataStoreContract('postgres', async () => {
    const schema = uniqueSchemaName()
    const store = await openPostgresStore({ url: TEST_DATABASE_URL, schema })
    return {
      store,
      openAnother: () => openPostgresStore({ url: TEST_DATABASE_URL, schema }),
      cleanup: async () => {
        await store.close()
        await dropSchema(schema)
      },
    }
  })

  describe('postgres driver', () => {
    test('instances opening an empty schema at once apply each migration exactly once', async () => {
      const schema = newSchema()
      const opened = await Promise.all(
        Array.from({ length: 6 }, () => openPostgresStore({ url: TEST_DATABASE_URL, schema })),
      )
      try {
        const rows = await queryTestDatabase<{ version: number; name: string }>(
          `SELECT version, name FROM "${schema}".schema_migrations ORDER BY version`,
        )
        const known = await loadMigrations(POSTGRES_MIGRATIONS_DIR)
        assert.deepEqual(
          rows,
          known.map((m) => ({ version: m.version, name: m.name })),
        )
        // Every instance works on the one schema: a value set through one is read by all.
        assert.equal(await opened[0]?.settings.setIfAbsent('k', 'first'), 'first')
        for (const store of opened) assert.equal(await store.settings.get('k'), 'first')
      } finally {
        await Promise.all(opened.map((store) => store.close()))
      }
    })

    test('concurrent migration runs record every step once and report it once', async () => {
      const schema = newSchema()
      const options = { url: TEST_DATABASE_URL, schema }
      const runs = await Promise.all(Array.from({ length: 5 }, () => applyMigrations(options, POSTGRES_MIGRATIONS_DIR)))
      const known = (await loadMigrations(POSTGRES_MIGRATIONS_DIR)).map((m) => m.version)
      assert.deepEqual(
        runs.flat().sort((a, b) => a - b),
        known,
      )
      assert.deepEqual(await applyMigrations(options, POSTGRES_MIGRATIONS_DIR), [])
    })

    test('reopening keeps the data and applies no migration twice', async () => {
      const schema = newSchema()
      const first = await openPostgresStore({ url: TEST_DATABASE_URL, schema })
      await first.settings.setIfAbsent('secret', 's1')
      await first.close()
      await first.close()
      const second = await openPostgresStore({ url: TEST_DATABASE_URL, schema })
      try {
        assert.equal(await second.settings.get('secret'), 's1')
        const rows = await queryTestDatabase<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${schema}".schema_migrations`,
        )
        assert.equal(rows[0]?.n, (await loadMigrations(POSTGRES_MIGRATIONS_DIR)).length)
      } finally {
        await second.close()
      }
    })

    test('a schema recording a migration this version does not know is refused', async () => {
      const schema = newSchema()
      const store = await openPostgresStore({ url: TEST_DATABASE_URL, schema })
      await store.close()
      await queryTestDatabase(
        `INSERT INTO "${schema}".schema_migrations (version, name, applied_at) VALUES (999, 'x', 0)`,
      )
      await assert.rejects(
        openPostgresStore({ url: TEST_DATABASE_URL, schema }),
        /migrations 999 unknown to this version/,
      )
    })

    test('a failing migration leaves nothing of itself behind', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'folio-pg-migrations-'))
      try {
        await cp(POSTGRES_MIGRATIONS_DIR, dir, { recursive: true })
        await writeFile(join(dir, '900_broken.sql'), 'CREATE TABLE half (a int);\nSELECT 1/0;\n')
        const schema = newSchema()
        await assert.rejects(
          applyMigrations({ url: TEST_DATABASE_URL, schema }, dir),
          /migration 900_broken.sql failed/,
        )
        const tables = await queryTestDatabase<{ n: number }>(
          `SELECT count(*)::int AS n FROM information_schema.tables
            WHERE table_schema = $1 AND table_name = 'half'`,
          [schema],
        )
        assert.equal(tables[0]?.n, 0)
        const recorded = await queryTestDatabase<{ version: number }>(
          `SELECT version FROM "${schema}".schema_migrations ORDER BY version`,
        )
        // Every shipped step and nothing of the broken one.
        const shipped = (await loadMigrations(POSTGRES_MIGRATIONS_DIR)).map((m) => m.version)
        assert.deepEqual(
          recorded.map((r) => r.version),
          shipped,
        )
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    })

    test('two instances, 200 concurrent Locks with different ids: exactly one wins', async () => {
      const schema = newSchema()
      const a = await openPostgresStore({ url: TEST_DATABASE_URL, schema })
      const b = await openPostgresStore({ url: TEST_DATABASE_URL, schema })
      try {
        await createFile(a, buildFile())
        // The WOPI Lock decision as the app runs it: read, decide, compare-and-set on the
        // revision, and decide again on the fresh row when the write lost.
        const attempt = async (store: MetadataStore, lockId: string): Promise<boolean> => {
          for (;;) {
            const file = await store.files.findById('f-1')
            if (file === undefined) throw new Error('file vanished')
            const decision = decideLock(file.lock, lockId, T0)
            if (decision.kind === 'conflict') return false
            const updated = await store.files.update(file.id, file.revision, { lock: decision.lock })
            if (updated !== undefined) return true
          }
        }
        const outcomes = await Promise.all(
          Array.from({ length: 200 }, (_, i) => attempt(i % 2 === 0 ? a : b, `lock-${i}`)),
        )
        const winners = outcomes.flatMap((won, i) => (won ? [`lock-${i}`] : []))
        assert.equal(winners.length, 1)
        assert.equal((await b.files.findById('f-1'))?.lock?.lockId, winners[0])
        assert.equal((await a.files.findById('f-1'))?.lock?.lockId, winners[0])
      } finally {
        await Promise.all([a.close(), b.close()])
      }
    })

    test('two instances, 200 compare-and-sets on the same revision: exactly one applies', async () => {
      const schema = newSchema()
      const a = await openPostgresStore({ url: TEST_DATABASE_URL, schema, poolSize: 20 })
      const b = await openPostgresStore({ url: TEST_DATABASE_URL, schema, poolSize: 20 })
      try {
        await createFile(a, buildFile())
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            (i % 2 === 0 ? a : b).files.update('f-1', 1, {
              lock: { lockId: `lock-${i}`, expiresAt: T0 + i },
            }),
          ),
        )
        const applied = results.filter((r) => r !== undefined)
        assert.equal(applied.length, 1)
        const stored = await b.files.findById('f-1')
        assert.equal(stored?.revision, 2)
        assert.deepEqual(stored?.lock, applied[0]?.lock)
      } finally {
        await Promise.all([a.close(), b.close()])
      }
    })

    test('text holding U+0000 (which PostgreSQL cannot store) is refused as INVALID_INPUT', async () => {
      const schema = newSchema()
      const store = await openPostgresStore({ url: TEST_DATABASE_URL, schema })
      try {
        await store.users.create({
          id: 'u-1',
          userName: 'nul',
          displayName: 'N',
          email: '',
          isAdmin: false,
          passwordHash: 'h',
          wopiUserInfo: 'before',
          tokenGeneration: 0,
          disabled: false,
          createdAt: T0,
          updatedAt: T0,
        })
        await assert.rejects(
          store.users.update('u-1', { wopiUserInfo: 'a\u0000b', updatedAt: T0 + 1 }),
          (error: unknown) => isDomainError(error) && error.code === 'INVALID_INPUT',
        )
        assert.equal((await store.users.findById('u-1'))?.wopiUserInfo, 'before')
        await assert.rejects(
          createFile(store, buildFile({ id: 'f-nul', title: 'a\u0000.docx' })),
          (error: unknown) => isDomainError(error) && error.code === 'INVALID_INPUT',
        )
        assert.equal(await store.files.findById('f-nul'), undefined)
      } finally {
        await store.close()
      }
    })

    test('every page of a listing is read in index order, never sorted whole', async () => {
      const schema = newSchema()
      const store = await openPostgresStore({ url: TEST_DATABASE_URL, schema })
      await store.close()
      const { Client } = (await import('pg')).default
      const client = new Client({
        connectionString: TEST_DATABASE_URL,
        options: `-c search_path=${schema}`,
      })
      await client.connect()
      try {
        // Make both alternatives look ruinous, so a plan still sorting could not avoid it.
        await client.query('SET enable_seqscan = off')
        await client.query('SET enable_sort = off')
        // Author joins users, so no index of files can serve it (see files.ts).
        const expected: Record<Exclude<FileSortField, 'author'>, string> = {
          type: 'files_by_folder_extension',
          title: 'files_by_folder_title',
          created: 'files_by_folder_created',
          updated: 'files_by_folder_updated',
          size: 'files_by_folder_size',
        }
        for (const sortBy of ['title', 'created', 'updated', 'size', 'type'] as const) {
          for (const descending of [false, true]) {
            for (const filtered of [false, true]) {
              const params: unknown[] = ['d-alice', 100, 0]
              if (filtered) params.push('report', null)
              const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
                `EXPLAIN (FORMAT JSON) ${listSql(sortBy, descending, filtered)}`,
                params,
              )
              const limit = findNode(rows[0]?.['QUERY PLAN'], (node) => node['Node Type'] === 'Limit')
              const scan = limit?.Plans?.[0]
              const which = `${sortBy} ${descending ? 'desc' : 'asc'}${filtered ? ' filtered' : ''}`
              assert.equal(scan?.['Node Type'], 'Index Scan', which)
              assert.equal(scan?.['Index Name'], expected[sortBy], which)
            }
          }
        }
      } finally {
        await client.end()
      }
    })

    test('times beyond 32 bits and sizes beyond 4 GiB come back as exact numbers', async () => {
      const schema = newSchema()
      const store = await openPostgresStore({ url: TEST_DATABASE_URL, schema })
      try {
        const file = buildFile({ size: 5 * 1024 ** 3 + 7, createdAt: 8_640_000_000_000_000 - 1 })
        await createFile(store, file)
        const found = await store.files.findById('f-1')
        assert.equal(found?.size, 5 * 1024 ** 3 + 7)
        assert.equal(found?.createdAt, 8_640_000_000_000_000 - 1)
      } finally {
        await store.close()
      }
    })

    test('a statement running past the statement timeout is cancelled', async () => {
      const schema = newSchema()
      const store = await openPostgresStore({
        url: TEST_DATABASE_URL,
        schema,
        statementTimeoutMs: 50,
      })
      try {
        await createFile(store, buildFile())
        // Hold the row from another connection so the update has to wait past the timeout.
        const { Client } = (await import('pg')).default
        const holder = new Client({ connectionString: TEST_DATABASE_URL })
        await holder.connect()
        try {
          await holder.query('BEGIN')
          await holder.query(`SELECT 1 FROM "${schema}".files WHERE id = 'f-1' FOR UPDATE`)
          await assert.rejects(store.files.update('f-1', 1, { updatedAt: T0 + 1 }), /statement timeout/)
          await holder.query('ROLLBACK')
        } finally {
          await holder.end()
        }
        assert.equal((await store.files.findById('f-1'))?.revision, 1)
      } finally {
        await store.close()
      }
    })
  })
}

describe('postgres driver without a server', () => {
  test('an unreachable database fails the open with the password left out', async () => {
    const url = 'postgres://folio:very-secret-pw@127.0.0.1:1/folio'
    await assert.rejects(openPostgresStore({ url }), (error: unknown) => {
      assert.ok(error instanceof Error)
      assert.match(error.message, /cannot open PostgreSQL at postgres:\/\/folio:\*\*\*@127\.0\.0\.1:1\/folio/)
      assert.ok(!error.message.includes('very-secret-pw'))
      return true
    })
  })

  test('redactDatabaseUrl hides the password only', () => {
    assert.equal(
      redactDatabaseUrl('postgres://u:p%40ss@db.example:5433/folio?sslmode=require'),
      'postgres://u:***@db.example:5433/folio?sslmode=require',
    )
    assert.equal(redactDatabaseUrl('postgres://u@db/folio'), 'postgres://u@db/folio')
    assert.equal(redactDatabaseUrl('not a url :pw'), '(unparsable database URL)')
  })

  test('schema names other than plain identifiers are refused', () => {
    assert.equal(checkSchemaName('folio_1'), 'folio_1')
    for (const bad of ['Folio', 'a-b', 'x"; DROP SCHEMA public; --', '', '1abc', 'a'.repeat(64)]) {
      assert.throws(() => checkSchemaName(bad), /not a plain lower-case identifier/)
    }
  })
})
