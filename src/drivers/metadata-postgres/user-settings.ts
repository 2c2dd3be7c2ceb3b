import type { UserSettingsRepository } from '../../ports/metadata-store.js'
import type { Database } from './database.js'

const UPSERT = `INSERT INTO user_settings (user_id, update_if_exist, culture_name) VALUES ($1, $2, $3)
  ON CONFLICT (user_id) DO UPDATE SET update_if_exist = excluded.update_if_exist, culture_name = excluded.culture_name`

/** Each user's portal settings in PostgreSQL, one row per user who changed one. */
export function createUserSettingsRepository(db: Database): UserSettingsRepository {
  return {
    async get(userId) {
      const { rows } = await db.query<{ update_if_exist: boolean; culture_name: string }>(
        'SELECT update_if_exist, culture_name FROM user_settings WHERE user_id = $1',
        [userId],
      )
      const row = rows[0]
      return row === undefined ? undefined : { updateIfExist: row.update_if_exist, cultureName: row.culture_name }
    },

    async set(userId, settings) {
      await db.query(UPSERT, [userId, settings.updateIfExist, settings.cultureName])
    },
  }
}
