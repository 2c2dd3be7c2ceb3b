import { DomainError } from '../../core/errors.js'

/**
 * Refuses a page that is not whole numbers from 0: offset and limit reach LIMIT/OFFSET as
 * parameters, and a fraction or a negative number there is an error of the database, not
 * a 400 with the field named.
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
  | (R & { list_total: number | string })
  | { list_total: number | string; id: null }

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
