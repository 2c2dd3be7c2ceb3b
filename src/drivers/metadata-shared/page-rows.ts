import { DomainError } from '../../core/errors.js'
import type { FileSortField } from '../../ports/metadata-store.js'

/**
 * Refuses a page that is not whole numbers from 0 with INVALID_INPUT naming the field,
 * before it reaches LIMIT/OFFSET, where each database would read it its own way.
 */
export function checkPage(page: { offset: number; limit: number }): void {
  if (!Number.isSafeInteger(page.offset) || page.offset < 0) {
    const message = 'offset must be a whole number >= 0'
    throw new DomainError('INVALID_INPUT', message, { field: 'offset' })
  }
  if (!Number.isSafeInteger(page.limit) || page.limit < 0) {
    throw new DomainError('INVALID_INPUT', 'limit must be a whole number >= 0', { field: 'limit' })
  }
}

/**
 * A row of a listing read with its total in one statement: the total beside the columns
 * of one item, or beside NULLs (id null) when the page holds none, so the total still
 * arrives.
 */
export type PageRow<R extends { id: string }> =
  (R & { list_total: number | string }) | { list_total: number | string; id: null }

type ItemRow<R> = R & { list_total: number | string }

function holdsItem<R extends { id: string }>(row: PageRow<R>): row is ItemRow<R> {
  return row.id !== null
}

/** The page and its total from the rows of such a listing. */
export function pageFromRows<R extends { id: string }, T>(
  rows: readonly PageRow<R>[],
  toItem: (row: R) => T,
): { total: number; items: T[] } {
  const items: T[] = []
  for (const row of rows) {
    if (holdsItem(row)) items.push(toItem(row))
  }
  return { total: Number(rows[0]?.list_total ?? 0), items }
}

/** Stands in a list of sort keys for the creator's name, which each driver writes its own way. */
const AUTHOR = '(author)'

// The only column names that ever reach ORDER BY. Every sort but 'author' has an index
// led by folder_id; a title key is unique per folder, so the title and type sorts need no
// id to break ties. The creator's name lives in users, so no index of files serves the
// author order: a page costs a sort of the folder's files. A creator since removed sorts
// as ''.
const FILE_SORT_KEYS: Record<FileSortField, readonly string[]> = {
  title: ['title_key'],
  created: ['created_at', 'id'],
  updated: ['updated_at', 'id'],
  size: ['size', 'id'],
  type: ['extension', 'title_key'],
  author: [AUTHOR, 'title_key'],
}

// Folders have no size or type: those sorts fall back to the title. Each but 'author' has
// an index led by parent_id.
const FOLDER_SORT_KEYS: Record<FileSortField, readonly string[]> = {
  title: ['title_key', 'id'],
  created: ['created_at', 'id'],
  updated: ['updated_at', 'id'],
  size: ['title_key', 'id'],
  type: ['title_key', 'id'],
  author: [AUTHOR, 'title_key', 'id'],
}

/** Every sort a listing offers. */
export const SORT_FIELDS: readonly FileSortField[] = ['title', 'created', 'updated', 'size', 'type', 'author']

/** How a driver writes the keys of a listing's ORDER BY. */
export interface SortColumns {
  /** What goes before each column name (`files.`, `page.` or nothing). */
  table: string
  /** The expression of the creator's name (SQL text of the driver, never the caller's). */
  author: string
  descending: boolean
}

function orderBy(keys: readonly string[], columns: SortColumns): string {
  const direction = columns.descending ? 'DESC' : 'ASC'
  return keys.map((key) => `${key === AUTHOR ? columns.author : columns.table + key} ${direction}`).join(', ')
}

/** The ORDER BY keys of a listing of files. */
export function fileOrderBy(sortBy: FileSortField, columns: SortColumns): string {
  return orderBy(FILE_SORT_KEYS[sortBy], columns)
}

/** The ORDER BY keys of a listing of folders. */
export function folderOrderBy(sortBy: FileSortField, columns: SortColumns): string {
  return orderBy(FOLDER_SORT_KEYS[sortBy], columns)
}
