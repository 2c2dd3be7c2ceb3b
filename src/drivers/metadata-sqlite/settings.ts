import type Database from 'better-sqlite3'
import type { SettingsRepository } from '../../ports/metadata-store.js'

/** Named settings in SQLite; the first value stored for a name wins for good. */
export function createSettingsRepository(db: Database.Database): SettingsRepository {
  const byName = db.prepare<[string], string>('SELECT value FROM settings WHERE name = ?').pluck()
  // The insert and the read run as one statement, so no other writer slips between.
  const insertOrKeep = db
    .prepare<[string, string], string>(
      `INSERT INTO settings (name, value)
      VALUES (?, ?)
    ON CONFLICT (name) DO UPDATE SET value = value
    RETURNING value`,
    )
    .pluck()

  const upsert = db.prepare<[string, string]>(`INSERT INTO settings (name, value) VALUES (?, ?)
    ON CONFLICT (name) DO UPDATE SET value = excluded.value`)

  return {
    async put(name, value) {
      upsert.run(name, value)
    },

    async get(name) {
      return byName.get(name)
    },

    async setIfAbsent(name, value) {
      const stored = insertOrKeep.get(name, value)
      if (stored === undefined) throw new Error('SQLite returned no row from an upsert')
      return stored
    },
  }
}
