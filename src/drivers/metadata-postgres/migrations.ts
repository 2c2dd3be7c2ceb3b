import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { clientConfig, quotedSchema, type ConnectionOptions } from './connection.js'

/**
 * Folder of the PostgreSQL migrations: `migrations/postgres` at the repository root.
 * This module sits three levels below the root both as src/.../migrations.ts (tsx)
 * and as dist/.../migrations.js (tsc), so one relative URL serves both.
 */
export const POSTGRES_MIGRATIONS_DIR = fileURLToPath(
  new URL('../../../migrations/postgres/', import.meta.url),
)

/** One step of the schema, read from `NNN_name.sql`. */
export interface Migration {
  version: number
  name: string
  sql: string
}

const FILE_NAME = /^(\d{3})_([a-z0-9_]+)\.sql$/

/**
 * First key of the advisory lock that serialises migrations; the second is a hash of
 * the schema name, so instances migrating different schemas do not wait for each other.
 */
const MIGRATION_LOCK_CLASS = 0x464f4c49

/**
 * Reads every `NNN_name.sql` file of `dir`, ordered by NNN. Throws on a `.sql` file
 * with another name or on two files with the same number, so a typo cannot silently
 * skip a step.
 */
export async function loadMigrations(dir: string): Promise<Migration[]> {
  const entries = (await readdir(dir)).filter((entry) => entry.endsWith('.sql'))
  const migrations: Migration[] = []
  for (const entry of entries) {
    const match = FILE_NAME.exec(entry)
    if (match === null || match[1] === undefined || match[2] === undefined) {
      throw new Error(`migration file ${entry} in ${dir} is not named NNN_name.sql`)
    }
    const version = Number(match[1])
    if (migrations.some((m) => m.version === version)) {
      throw new Error(`two migration files in ${dir} share number ${match[1]}`)
    }
    migrations.push({ version, name: match[2], sql: await readFile(join(dir, entry), 'utf8') })
  }
  return migrations.sort((a, b) => a.version - b.version)
}

/**
 * Creates the schema when missing and applies the migrations of `dir` it has not
 * recorded in `schema_migrations`, each in its own transaction (PostgreSQL's DDL is
 * transactional, so a failed step leaves nothing behind), and returns the versions it
 * applied. Everything runs on one dedicated connection holding a session-level
 * advisory lock for the schema, so any number of instances starting at once apply
 * each step exactly once: the others wait, then find it recorded. That connection has
 * no statement timeout (a long migration, or the wait for another instance's, must not
 * be cut short) and is closed at the end. A migration file must not hold BEGIN/COMMIT.
 * Throws when the schema records a step this code does not know (written by a newer Folio).
 */
export async function applyMigrations(options: ConnectionOptions, dir: string): Promise<number[]> {
  const migrations = await loadMigrations(dir)
  const schema = quotedSchema(options.schema)
  const client = new pg.Client(clientConfig(options))
  await client.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [
      MIGRATION_LOCK_CLASS,
      options.schema,
    ])
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
      await client.query(`SET search_path TO ${schema}`)
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at bigint NOT NULL
      )`)
      const recorded = (
        await client.query<{ version: number }>('SELECT version FROM schema_migrations')
      ).rows.map((row) => row.version)
      const unknown = recorded.filter((v) => !migrations.some((m) => m.version === v))
      if (unknown.length > 0) {
        throw new Error(
          `database has migrations ${unknown.join(', ')} unknown to this version; refusing to open`,
        )
      }
      const applied: number[] = []
      for (const migration of migrations.filter((m) => !recorded.includes(m.version))) {
        try {
          await client.query('BEGIN')
          await client.query(migration.sql)
          await client.query(
            'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
            [migration.version, migration.name, Date.now()],
          )
          await client.query('COMMIT')
          applied.push(migration.version)
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined)
          const file = `${String(migration.version).padStart(3, '0')}_${migration.name}.sql`
          throw new Error(`migration ${file} failed: ${String(error)}`, { cause: error })
        }
      }
      return applied
    } finally {
      await client
        .query('SELECT pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, options.schema])
        .catch(() => undefined)
    }
  } finally {
    await client.end()
  }
}
