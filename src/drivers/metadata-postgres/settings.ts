import type { SettingsRepository } from '../../ports/metadata-store.js'
import type { Database } from './database.js'

// The insert and the read are one statement, so no other writer slips between; the
// no-op update makes RETURNING give the stored row when the name exists already.
const INSERT_OR_KEEP = `INSERT INTO settings AS s (name, value) VALUES ($1, $2)
  ON CONFLICT (name) DO UPDATE SET value = s.value
  RETURNING value`

/** Named settings in PostgreSQL; the first value stored for a name wins for good. */
export function createSettingsRepository(db: Database): SettingsRepository {
  return {
    async put(name, value) {
      await db.query(
        'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
        [name, value],
      )
    },

    async get(name) {
      const { rows } = await db.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name])
      return rows[0]?.value
    },

    async setIfAbsent(name, value) {
      const { rows } = await db.query<{ value: string }>(INSERT_OR_KEEP, [name, value])
      if (rows[0] === undefined) throw new Error('PostgreSQL returned no row from an upsert')
      return rows[0].value
    },
  }
}
