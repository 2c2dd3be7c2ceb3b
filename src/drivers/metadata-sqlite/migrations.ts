import { fileURLToPath } from 'node:url'
import type Database from 'better-sqlite3'
import { SQLITE_DIALECT } from '../metadata-shared/dialect.js'
import { loadMigrations, recordMigrationSql, runMigrations, type Migration } from '../metadata-shared/migrations.js'

/**
 * Folder of the SQLite migrations: `migrations/sqlite` at the repository root.
 * This module sits three levels below the root both as src/.../migrations.ts
 * (tsx) and as dist/.../migrations.js (tsc), so one relative URL serves both.
 */
export const SQLITE_MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/sqlite/', import.meta.url))

/**
 * Applies the migrations of `dir` that the database has not recorded in
 * `schema_migrations`, each in its own IMMEDIATE transaction, and returns the
 * versions it applied. Safe to call on every open and from two processes at
 * once: a step already recorded is skipped. A migration file must not hold
 * BEGIN/COMMIT. Foreign keys are off while migrating (SQLite's documented way
 * to rebuild a table: a DROP TABLE with them on would cascade-delete the rows
 * that reference it) and each step must leave `foreign_key_check` clean.
 * Throws when the database records a step this code does not know (it was
 * written by a newer Folio).
 */
export async function applyMigrations(db: Database.Database, dir: string): Promise<number[]> {
  const migrations = await loadMigrations(dir)
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  ) STRICT`)
  const isApplied = db.prepare<[number], { version: number }>('SELECT version FROM schema_migrations WHERE version = ?')
  const record = db.prepare<[number, string, number]>(recordMigrationSql(SQLITE_DIALECT))
  const step = db.transaction((migration: Migration) => {
    // Another process may have applied it since we looked.
    if (isApplied.get(migration.version) !== undefined) return false
    db.exec(migration.sql)
    const broken = db.pragma('foreign_key_check')
    if (Array.isArray(broken) && broken.length > 0) {
      throw new Error(`migration ${migration.version} leaves rows with dangling foreign keys`)
    }
    record.run(migration.version, migration.name, Date.now())
    return true
  })
  return runMigrations(migrations, {
    async recorded() {
      return db
        .prepare<[], { version: number }>('SELECT version FROM schema_migrations')
        .all()
        .map((row) => row.version)
    },
    async apply(migration) {
      // Has no effect inside a transaction, hence set around it.
      db.pragma('foreign_keys = OFF')
      try {
        return step.immediate(migration)
      } finally {
        db.pragma('foreign_keys = ON')
      }
    },
  })
}
