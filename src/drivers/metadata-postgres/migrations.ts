import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { POSTGRES_DIALECT } from '../metadata-shared/dialect.js'
import { loadMigrations, recordMigrationSql, runMigrations } from '../metadata-shared/migrations.js'
import { clientConfig, quotedSchema, type ConnectionOptions } from './connection.js'

/**
 * Folder of the PostgreSQL migrations: `migrations/postgres` at the repository root.
 * This module sits three levels below the root both as src/.../migrations.ts (tsx)
 * and as dist/.../migrations.js (tsc), so one relative URL serves both.
 */
export const POSTGRES_MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/postgres/', import.meta.url))

/**
 * First key of the advisory lock that serialises migrations; the second is a hash of
 * the schema name, so instances migrating different schemas do not wait for each other.
 */
const MIGRATION_LOCK_CLASS = 0x464f4c49

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
    await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, options.schema])
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
      await client.query(`SET search_path TO ${schema}`)
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at bigint NOT NULL
      )`)
      return await runMigrations(migrations, {
        async recorded() {
          const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations')
          return rows.map((row) => row.version)
        },
        async apply(migration) {
          try {
            await client.query('BEGIN')
            await client.query(migration.sql)
            await client.query(recordMigrationSql(POSTGRES_DIALECT), [migration.version, migration.name, Date.now()])
            await client.query('COMMIT')
            return true
          } catch (error) {
            await client.query('ROLLBACK').catch(() => undefined)
            throw error
          }
        },
      })
    } finally {
      await client
        .query('SELECT pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, options.schema])
        .catch(() => undefined)
    }
  } finally {
    await client.end()
  }
}
