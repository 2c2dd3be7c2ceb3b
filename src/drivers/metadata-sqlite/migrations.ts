import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import type Database from 'better-sqlite3'

/**
 * Folder of the SQLite migrations: `migrations/sqlite` at the repository root.
 * This module sits three levels below the root both as src/.../migrations.ts
 * (tsx) and as dist/.../migrations.js (tsc), so one relative URL serves both.
 */
export const SQLITE_MIGRATIONS_DIR = fileURLToPath(
  new URL('../../../migrations/sqlite/', import.meta.url),
)

/** One step of the schema, read from `NNN_name.sql`. */
export interface Migration {
  version: number
  name: string
  sql: string
}

const FILE_NAME = /^(\d{3})_([a-z0-9_]+)\.sql$/

/**
 * Reads every `NNN_name.sql` file of `dir`, ordered by NNN. Throws on a `.sql`
 * file with another name or on two files with the same number, so a typo
 * cannot silently skip a step.
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
  const isApplied = db.prepare<[number], { version: number }>(
    'SELECT version FROM schema_migrations WHERE version = ?',
  )
  const record = db.prepare<[number, string, number]>(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  )
  const recorded = db
    .prepare<[], { version: number }>('SELECT version FROM schema_migrations')
    .all()
    .map((row) => row.version)
  const unknown = recorded.filter((v) => !migrations.some((m) => m.version === v))
  if (unknown.length > 0) {
    throw new Error(
      `database has migrations ${unknown.join(', ')} unknown to this version; refusing to open`,
    )
  }
  const pending = migrations.filter((m) => !recorded.includes(m.version))
  if (pending.length === 0) return []

  const applied: number[] = []
  const step = db.transaction((migration: Migration) => {
    // Another process may have applied it since we looked.
    if (isApplied.get(migration.version) !== undefined) return
    db.exec(migration.sql)
    const broken = db.pragma('foreign_key_check')
    if (Array.isArray(broken) && broken.length > 0) {
      throw new Error(`migration ${migration.version} leaves rows with dangling foreign keys`)
    }
    record.run(migration.version, migration.name, Date.now())
    applied.push(migration.version)
  })
  // Has no effect inside a transaction, hence set around the loop.
  db.pragma('foreign_keys = OFF')
  try {
    for (const migration of pending) {
      try {
        step.immediate(migration)
      } catch (error) {
        const file = `${String(migration.version).padStart(3, '0')}_${migration.name}.sql`
        throw new Error(`migration ${file} failed: ${String(error)}`, { cause: error })
      }
    }
  } finally {
    db.pragma('foreign_keys = ON')
  }
  return applied
}
