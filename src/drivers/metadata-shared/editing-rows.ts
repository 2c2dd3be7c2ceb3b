import type { EditingState, SaveError } from '../../core/entities.js'

/** A row of the editing table and its record, the same in every SQL driver. */

export interface EditingRow {
  file_id: string
  document_key: string
  editors: string
  updated_at: number
  error_status: number | null
  error_key: string | null
  error_message: string | null
  error_at: number | null
}

function parseEditors(json: string): string[] {
  const value: unknown = JSON.parse(json)
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : []
}

export function toState(row: EditingRow): EditingState {
  const lastError: SaveError | null =
    row.error_status === null || row.error_at === null
      ? null
      : {
          status: row.error_status,
          documentKey: row.error_key ?? '',
          message: row.error_message ?? '',
          at: row.error_at,
        }
  return {
    fileId: row.file_id,
    documentKey: row.document_key,
    editors: parseEditors(row.editors),
    updatedAt: row.updated_at,
    lastError,
  }
}
