import type Database from 'better-sqlite3'
import { DomainError } from '../../core/errors.js'
import type { EditingRepository } from '../../ports/metadata-store.js'
import { toState, type EditingRow } from '../metadata-shared/editing-rows.js'
import { isForeignKeyViolation } from './sqlite-errors.js'

/** Runs a write, turning "no such file" (the foreign key) into NOT_FOUND. */
function guardFile<T>(write: () => T): T {
  try {
    return write()
  } catch (error) {
    if (isForeignKeyViolation(error)) throw new DomainError('NOT_FOUND', 'file not found')
    throw error
  }
}

/** ONLYOFFICE editing state in SQLite: one upserted row per file, cascaded away with it. */
export function createEditingRepository(db: Database.Database): EditingRepository {
  const upsertEditors = db.prepare<{ fileId: string; key: string; editors: string; now: number }>(
    `INSERT INTO editing (file_id, document_key, editors, updated_at)
      VALUES (@fileId, @key, @editors, @now)
    ON CONFLICT (file_id) DO UPDATE SET document_key = excluded.document_key,
      editors = excluded.editors, updated_at = excluded.updated_at`,
  )
  const endIfKey = db.prepare<{ fileId: string; key: string; now: number }>(
    `UPDATE editing SET editors = '[]', updated_at = @now
    WHERE file_id = @fileId AND document_key = @key AND editors <> '[]'`,
  )
  const upsertError = db.prepare<{
    fileId: string
    status: number
    key: string
    message: string
    at: number
  }>(
    `INSERT INTO editing (file_id, updated_at, error_status, error_key, error_message, error_at)
      VALUES (@fileId, @at, @status, @key, @message, @at)
    ON CONFLICT (file_id) DO UPDATE SET error_status = excluded.error_status,
      error_key = excluded.error_key, error_message = excluded.error_message,
      error_at = excluded.error_at, updated_at = excluded.updated_at`,
  )
  const clearErrorOf = db.prepare<[string]>(`UPDATE editing SET error_status = NULL,
      error_key = NULL, error_message = NULL, error_at = NULL WHERE file_id = ?`)
  const byFile = db.prepare<[string], EditingRow>('SELECT * FROM editing WHERE file_id = ?')
  // One statement for any number of ids: they travel as one JSON array.
  const byFiles = db.prepare<[string], EditingRow>(
    'SELECT * FROM editing WHERE file_id IN (SELECT value FROM json_each(?)) ORDER BY file_id',
  )
  const byEditor = db.prepare<[string], EditingRow>(
    `SELECT * FROM editing WHERE editors <> '[]'
      AND EXISTS (SELECT 1 FROM json_each(editing.editors) WHERE value = ?) ORDER BY file_id`,
  )

  return {
    async setEditors(fileId, documentKey, editors, now) {
      const params = { fileId, key: documentKey, editors: JSON.stringify(editors), now }
      guardFile(() => upsertEditors.run(params))
    },

    async endSession(fileId, documentKey, now) {
      return endIfKey.run({ fileId, key: documentKey, now }).changes > 0
    },

    async recordError(fileId, error) {
      guardFile(() =>
        upsertError.run({
          fileId,
          status: error.status,
          key: error.documentKey,
          message: error.message,
          at: error.at,
        }),
      )
    },

    async clearError(fileId) {
      clearErrorOf.run(fileId)
    },

    async get(fileId) {
      const row = byFile.get(fileId)
      return row === undefined ? undefined : toState(row)
    },

    async getMany(fileIds) {
      if (fileIds.length === 0) return []
      return byFiles.all(JSON.stringify(fileIds)).map(toState)
    },

    async findByEditor(userId) {
      return byEditor.all(userId).map(toState)
    },
  }
}
