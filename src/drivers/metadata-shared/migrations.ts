import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { paramList, type Dialect } from './dialect.js'

/** One step of the schema, read from `NNN_name.sql`. */
export interface Migration {
  version: number
  name: string
  sql: string
}

const FILE_NAME = /^(\d{3})_([a-z0-9_]+)\.sql$/

/**
 * Reads every `NNN_name.sql` file of `dir`, ordered by NNN. Throws on a `.sql` file with
 * another name or on two files with the same number, so a typo cannot silently skip a step.
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

/** A database as the migrations runner sees it; each driver brings its transactions and locks. */
export interface MigrationTarget {
  /** The versions the database records in `schema_migrations`. */
  recorded(): Promise<readonly number[]>
  /**
   * Runs one step and records it, in one transaction, so a failed step leaves nothing behind.
   * Returns false when another process had applied it meanwhile.
   */
  apply(migration: Migration): Promise<boolean>
}

/**
 * Applies, in order, the migrations the target has not recorded, and returns the versions
 * it applied. Throws before any step when the target records a step this code does not
 * know: it was written by a newer Folio, which this one must not open. A failed step
 * throws an error naming its file, and the steps after it are not run.
 */
export async function runMigrations(migrations: readonly Migration[], target: MigrationTarget): Promise<number[]> {
  const recorded = await target.recorded()
  const unknown = recorded.filter((v) => !migrations.some((m) => m.version === v))
  if (unknown.length > 0) {
    throw new Error(`database has migrations ${unknown.join(', ')} unknown to this version; refusing to open`)
  }
  const applied: number[] = []
  for (const migration of migrations.filter((m) => !recorded.includes(m.version))) {
    let done: boolean
    try {
      done = await target.apply(migration)
    } catch (error) {
      const file = `${String(migration.version).padStart(3, '0')}_${migration.name}.sql`
      throw new Error(`migration ${file} failed: ${String(error)}`, { cause: error })
    }
    if (done) applied.push(migration.version)
  }
  return applied
}

/** Records an applied step; values: version, name, the time it was applied (ms). */
export function recordMigrationSql(dialect: Dialect): string {
  const values = paramList(dialect, 3)
  return `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${values})`
}
