/** A SQL type a parameter is cast to where the database cannot infer it (PostgreSQL). */
export type ParamType = 'boolean' | 'text' | 'bigint'

/**
 * What differs between the SQL drivers in a statement both run: how a parameter is written
 * and what stands for true and false. Statements built with it number their parameters in
 * the order they appear in the text, each used once, so the same list of values binds to
 * SQLite's `?` and to PostgreSQL's `$n`.
 */
export interface Dialect {
  /** The parameter at `index` (from 1), cast to `type` where the database needs it. */
  param(index: number, type?: ParamType): string
  /** What the database stores for true and false. */
  flag(value: boolean): boolean | number
}

/** SQLite: anonymous `?` parameters, flags as 1 and 0 (it has no boolean type). */
export const SQLITE_DIALECT: Dialect = {
  param: () => '?',
  flag: (value) => (value ? 1 : 0),
}

/** PostgreSQL: numbered `$n` parameters, cast where a CASE would leave the type open. */
export const POSTGRES_DIALECT: Dialect = {
  param: (index, type) => (type === undefined ? `$${index}` : `$${index}::${type}`),
  flag: (value) => value,
}

/** The parameters 1..count, comma-separated (the VALUES of an insert). */
export function paramList(dialect: Dialect, count: number): string {
  return Array.from({ length: count }, (_, i) => dialect.param(i + 1)).join(', ')
}
