import type pg from 'pg'
import { DomainError } from '../../core/errors.js'

/** One parameterised statement; what repositories run, on the pool or in a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>
}

/** The pool as the repositories see it. */
export interface Database extends Queryable {
  /**
   * Runs a hot statement as a named prepared statement: each connection parses and plans
   * it once, later runs send only its parameters (same one round trip, less server work).
   * Rows come back as arrays of the select list's values (pg builds no object per row).
   * `name` must be unique to `sql` across Folio.
   */
  prepared<R extends unknown[] = unknown[]>(name: string, sql: string, params: unknown[]): Promise<R[]>
  /**
   * Runs `work` in one transaction on one connection: COMMIT when it resolves, ROLLBACK
   * when it throws (the error is passed on). A connection whose ROLLBACK failed is
   * discarded instead of going back to the pool.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>
}

/**
 * PostgreSQL text cannot hold U+0000 (SQLite can), so a value carrying it is refused
 * as bad input before it reaches the server, instead of failing there as an internal error.
 * Batched statements check each caller's values with it before they join a batch, so one
 * caller's bad value never fails the others' statement.
 */
export function checkText(params: unknown[] | undefined): void {
  for (const value of params ?? []) {
    if (typeof value === 'string' && value.includes('\u0000')) {
      throw new DomainError('INVALID_INPUT', 'text must not contain the NUL character (U+0000)')
    }
  }
}

function checked(target: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]) {
      checkText(params)
      return target.query<R>(sql, params)
    },
  }
}

/** Wraps `pool` as the Database the repositories use. */
export function createDatabase(pool: pg.Pool): Database {
  return {
    ...checked(pool),
    async prepared<R extends unknown[]>(name: string, sql: string, params: unknown[]) {
      checkText(params)
      const result = await pool.query<R>({ name, text: sql, values: params, rowMode: 'array' })
      return result.rows
    },
    async transaction(work) {
      const client = await pool.connect()
      let broken = false
      try {
        await client.query('BEGIN')
        const result = await work(checked(client))
        await client.query('COMMIT')
        return result
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {
          broken = true
        })
        throw error
      } finally {
        client.release(broken)
      }
    },
  }
}
