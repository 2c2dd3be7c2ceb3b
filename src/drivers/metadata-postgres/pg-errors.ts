import pg from 'pg'

/** SQLSTATE of a unique violation. */
const UNIQUE_VIOLATION = '23505'
/** SQLSTATE of a foreign key violation. */
const FOREIGN_KEY_VIOLATION = '23503'

/** True when `error` is PostgreSQL refusing a duplicate in the constraint or unique index `name`. */
export function isUniqueViolation(error: unknown, name: string): boolean {
  return error instanceof pg.DatabaseError && error.code === UNIQUE_VIOLATION && error.constraint === name
}

/** True when `error` is PostgreSQL refusing a row whose foreign key points nowhere. */
export function isForeignKeyViolation(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.code === FOREIGN_KEY_VIOLATION
}

/** SQLSTATE of a value past one of PostgreSQL's own limits (a tsvector over 1 MiB). */
const PROGRAM_LIMIT_EXCEEDED = '54000'

/** True when `error` is PostgreSQL refusing a value past one of its size limits. */
export function isProgramLimitExceeded(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.code === PROGRAM_LIMIT_EXCEEDED
}
