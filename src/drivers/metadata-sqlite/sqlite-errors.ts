import Database from 'better-sqlite3'

/**
 * True when `error` is SQLite refusing a duplicate in the unique index or key
 * that covers `column` (written `table.column`, as SQLite names it).
 */
export function isUniqueViolation(error: unknown, column: string): boolean {
  if (!(error instanceof Database.SqliteError)) return false
  const unique = error.code === 'SQLITE_CONSTRAINT_UNIQUE' || error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  return unique && error.message.includes(column)
}

/** True when `error` is SQLite refusing a row whose foreign key points nowhere. */
export function isForeignKeyViolation(error: unknown): boolean {
  return error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY'
}

/** SQLite has no boolean type; flags are bound as 0/1. */
export function toFlag(value: boolean): number {
  return value ? 1 : 0
}
