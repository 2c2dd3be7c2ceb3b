import type { ThrottleRepository, ThrottleState } from '../../ports/metadata-store.js'
import { toThrottleState, type ThrottleRow } from '../metadata-shared/throttle-rows.js'
import type { Database, Queryable } from './database.js'

const COLUMNS = 'failures, window_started_at, last_attempt_at, blocked_until'

// Claims the key: a new row (all zeros, rewritten before commit) when there is none.
// A concurrent claim of the same key waits here until this transaction ends.
const CLAIM = `INSERT INTO login_throttle (key, ${COLUMNS}) VALUES ($1, 0, 0, 0, 0)
  ON CONFLICT (key) DO NOTHING RETURNING key`
const LOCK = `SELECT ${COLUMNS} FROM login_throttle WHERE key = $1 FOR UPDATE`
const WRITE = `UPDATE login_throttle SET failures = $2, window_started_at = $3,
    last_attempt_at = $4, blocked_until = $5 WHERE key = $1`
const DELETE = 'DELETE FROM login_throttle WHERE key = $1'

/** Tries to claim a row that another transaction deleted between the claim and the lock. */
const MAX_CLAIMS = 5

/**
 * Sign-in throttle state in PostgreSQL, shared by every instance on the database.
 * update() runs the read, the pure step and the write in one transaction holding the
 * key's row lock: a missing key is claimed by inserting its row (a concurrent insert of
 * the same key waits for this transaction), an existing one is read FOR UPDATE. So no
 * two updates of a key, from any instances, interleave.
 */
export function createThrottleRepository(db: Database): ThrottleRepository {
  return {
    async update(key, step) {
      return db.transaction(async (tx) => {
        const current = await lockKey(tx, key)
        const { next, result } = step(current)
        if (next === undefined) {
          await tx.query(DELETE, [key])
        } else {
          await tx.query(WRITE, [key, next.failures, next.windowStartedAt, next.lastAttemptAt, next.blockedUntil])
        }
        return result
      })
    },

    async get(key) {
      const { rows } = await db.query<ThrottleRow>(`SELECT ${COLUMNS} FROM login_throttle WHERE key = $1`, [key])
      return rows[0] === undefined ? undefined : toThrottleState(rows[0])
    },

    async clear(key) {
      await db.query(DELETE, [key])
    },

    async purgeStale(now, quietMs) {
      const { rowCount } = await db.query(
        `DELETE FROM login_throttle
          WHERE $1::bigint - GREATEST(last_attempt_at, blocked_until) >= $2::bigint`,
        [now, quietMs],
      )
      return rowCount ?? 0
    },
  }
}

/**
 * Locks the key's row for the rest of the transaction and returns its state, undefined
 * when this transaction has just created it.
 */
async function lockKey(tx: Queryable, key: string): Promise<ThrottleState | undefined> {
  for (let attempt = 0; attempt < MAX_CLAIMS; attempt++) {
    const claimed = await tx.query(CLAIM, [key])
    if ((claimed.rowCount ?? 0) > 0) return undefined
    const { rows } = await tx.query<ThrottleRow>(LOCK, [key])
    if (rows[0] !== undefined) return toThrottleState(rows[0])
    // Deleted by another transaction between the claim and the lock: claim again.
  }
  throw new Error('sign-in throttle key kept disappearing while being locked')
}
