import { DomainError } from '../../core/errors.js'
import type { EditingRepository } from '../../ports/metadata-store.js'
import { toState, type EditingRow } from '../metadata-shared/editing-rows.js'
import type { Database } from './database.js'
import { isForeignKeyViolation } from './pg-errors.js'

/** Runs a write, turning "no such file" (the foreign key) into NOT_FOUND. */
async function guardFile(write: () => Promise<unknown>): Promise<void> {
  try {
    await write()
  } catch (error) {
    if (isForeignKeyViolation(error)) throw new DomainError('NOT_FOUND', 'file not found')
    throw error
  }
}

const UPSERT_EDITORS = `INSERT INTO editing (file_id, document_key, editors, updated_at)
    VALUES ($1, $2, $3, $4)
  ON CONFLICT (file_id) DO UPDATE SET document_key = EXCLUDED.document_key,
    editors = EXCLUDED.editors, updated_at = EXCLUDED.updated_at`

const END_IF_KEY = `UPDATE editing SET editors = '[]', updated_at = $3
  WHERE file_id = $1 AND document_key = $2 AND editors <> '[]'`

const UPSERT_ERROR = `INSERT INTO editing
    (file_id, updated_at, error_status, error_key, error_message, error_at)
    VALUES ($1, $2, $3, $4, $5, $2)
  ON CONFLICT (file_id) DO UPDATE SET error_status = EXCLUDED.error_status,
    error_key = EXCLUDED.error_key, error_message = EXCLUDED.error_message,
    error_at = EXCLUDED.error_at, updated_at = EXCLUDED.updated_at`

const CLEAR_ERROR = `UPDATE editing SET error_status = NULL, error_key = NULL,
  error_message = NULL, error_at = NULL WHERE file_id = $1`

/**
 * ONLYOFFICE editing state in PostgreSQL: one upserted row per file, cascaded away with
 * it, shared by every instance (a callback may reach any of them).
 */
export function createEditingRepository(db: Database): EditingRepository {
  return {
    async setEditors(fileId, documentKey, editors, now) {
      await guardFile(() => db.query(UPSERT_EDITORS, [fileId, documentKey, JSON.stringify(editors), now]))
    },

    async endSession(fileId, documentKey, now) {
      const result = await db.query(END_IF_KEY, [fileId, documentKey, now])
      return (result.rowCount ?? 0) > 0
    },

    async recordError(fileId, error) {
      await guardFile(() => db.query(UPSERT_ERROR, [fileId, error.at, error.status, error.documentKey, error.message]))
    },

    async clearError(fileId) {
      await db.query(CLEAR_ERROR, [fileId])
    },

    async get(fileId) {
      const { rows } = await db.query<EditingRow>('SELECT * FROM editing WHERE file_id = $1', [fileId])
      return rows[0] === undefined ? undefined : toState(rows[0])
    },

    async getMany(fileIds) {
      if (fileIds.length === 0) return []
      // One statement for any number of ids: they travel as one array parameter.
      const { rows } = await db.query<EditingRow>(
        'SELECT * FROM editing WHERE file_id = ANY ($1::text[]) ORDER BY file_id',
        [fileIds],
      )
      return rows.map(toState)
    },

    async findByEditor(userId) {
      // editors is a JSON array kept as text: contained in it is the user's id as an array.
      const { rows } = await db.query<EditingRow>(
        `SELECT * FROM editing WHERE editors <> '[]' AND editors::jsonb @> jsonb_build_array($1::text)
          ORDER BY file_id`,
        [userId],
      )
      return rows.map(toState)
    },
  }
}
