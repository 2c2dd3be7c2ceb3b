import type Database from 'better-sqlite3'
import type { UserSettingsRepository } from '../../ports/metadata-store.js'

/** Each user's portal settings in SQLite, one row per user who changed one. */
export function createUserSettingsRepository(db: Database.Database): UserSettingsRepository {
  const byUser = db.prepare<[string], { update_if_exist: number; culture_name: string }>(
    'SELECT update_if_exist, culture_name FROM user_settings WHERE user_id = ?',
  )
  const upsert = db.prepare<
    [string, number, string]
  >(`INSERT INTO user_settings (user_id, update_if_exist, culture_name)
      VALUES (?, ?, ?)
    ON CONFLICT (user_id) DO UPDATE SET update_if_exist = excluded.update_if_exist, culture_name = excluded.culture_name`)

  return {
    async get(userId) {
      const row = byUser.get(userId)
      return row === undefined ? undefined : { updateIfExist: row.update_if_exist === 1, cultureName: row.culture_name }
    },

    async set(userId, settings) {
      upsert.run(userId, settings.updateIfExist ? 1 : 0, settings.cultureName)
    },
  }
}
