import type Database from 'better-sqlite3'
import type { ThrottleRepository } from '../../ports/metadata-store.js'
import { toThrottleState, type ThrottleRow } from '../metadata-shared/throttle-rows.js'

interface ThrottleParams extends ThrottleRow {
  key: string
}

/**
 * Sign-in throttle state in SQLite. update() runs its read, the pure step and the write
 * in one IMMEDIATE transaction: it takes the database's write lock before reading, so
 * neither this process nor another one on the same file can interleave an update of
 * the key (another writer waits for the busy timeout).
 */
export function createThrottleRepository(db: Database.Database): ThrottleRepository {
  const byKey = db.prepare<[string], ThrottleRow>(`SELECT failures, window_started_at,
      last_attempt_at, blocked_until FROM login_throttle WHERE key = ?`)
  const upsert = db.prepare<ThrottleParams>(`INSERT INTO login_throttle
      (key, failures, window_started_at, last_attempt_at, blocked_until)
    VALUES (@key, @failures, @window_started_at, @last_attempt_at, @blocked_until)
    ON CONFLICT (key) DO UPDATE SET failures = excluded.failures,
      window_started_at = excluded.window_started_at,
      last_attempt_at = excluded.last_attempt_at, blocked_until = excluded.blocked_until`)
  const deleteKey = db.prepare<[string]>('DELETE FROM login_throttle WHERE key = ?')
  const deleteStale = db.prepare<{ now: number; quietMs: number }>(`DELETE FROM login_throttle
    WHERE @now - MAX(last_attempt_at, blocked_until) >= @quietMs`)

  return {
    async update(key, step) {
      const run = db.transaction(() => {
        const row = byKey.get(key)
        const { next, result } = step(row === undefined ? undefined : toThrottleState(row))
        if (next === undefined) {
          if (row !== undefined) deleteKey.run(key)
        } else {
          upsert.run({
            key,
            failures: next.failures,
            window_started_at: next.windowStartedAt,
            last_attempt_at: next.lastAttemptAt,
            blocked_until: next.blockedUntil,
          })
        }
        return result
      })
      return run.immediate()
    },

    async get(key) {
      const row = byKey.get(key)
      return row === undefined ? undefined : toThrottleState(row)
    },

    async clear(key) {
      deleteKey.run(key)
    },

    async purgeStale(now, quietMs) {
      return deleteStale.run({ now, quietMs }).changes
    },
  }
}
