import type { FileOperationKind, FileOperationRecord, OperationItem } from '../../core/entities.js'

/** A row of the file_operations table and its record, the same in every SQL driver. */
export interface OperationRow {
  id: string
  user_id: string
  kind: string
  /** PostgreSQL hands bigint columns back as text. */
  started_at: number | string
  finished_at: number | string | null
  error: string
  files: string
  folders: string
}

export const OPERATION_COLUMNS = 'id, user_id, kind, started_at, finished_at, error, files, folders'

const KINDS: readonly FileOperationKind[] = ['move', 'copy', 'delete', 'download']

function parseItems(json: string): OperationItem[] {
  const value: unknown = JSON.parse(json)
  if (!Array.isArray(value)) return []
  const items: OperationItem[] = []
  for (const entry of value) {
    if (typeof entry !== 'object' || entry === null) continue
    const id: unknown = Reflect.get(entry, 'id')
    const title: unknown = Reflect.get(entry, 'title')
    const convertTo: unknown = Reflect.get(entry, 'convertTo')
    if (typeof id !== 'string' || typeof title !== 'string') continue
    items.push(typeof convertTo === 'string' ? { id, title, convertTo } : { id, title })
  }
  return items
}

/** The items as stored: a JSON array of {id, title}. */
export function itemsJson(items: readonly OperationItem[]): string {
  return JSON.stringify(
    items.map((item) =>
      item.convertTo === undefined
        ? { id: item.id, title: item.title }
        : { id: item.id, title: item.title, convertTo: item.convertTo },
    ),
  )
}

export function toOperation(row: OperationRow): FileOperationRecord {
  return {
    id: row.id,
    userId: row.user_id,
    kind: KINDS.find((kind) => kind === row.kind) ?? 'move',
    startedAt: Number(row.started_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
    error: row.error,
    files: parseItems(row.files),
    folders: parseItems(row.folders),
  }
}
