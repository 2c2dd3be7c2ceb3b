import type Database from 'better-sqlite3'
import type { ThrottleRepository, ThrottleWindow } from '../../ports/metadata-store.js'

interface ThrottleRow {
  failures: number
  window_started_at: number
}

interface FailureParams {
  key: string
  now: number
  windowMs: number
}

function toWindow(row: ThrottleRow): ThrottleWindow {
  return { failures: row.failures, windowStartedAt: row.window_started_at }
}

/**
 * Failed-login counters in SQLite. A window restarts on the first failure
 * recorded more than windowMs after it started (`now - windowStartedAt > windowMs`).
 */
export function createThrottleRepository(db: Database.Database): ThrottleRepository {
  // One statement, so two instances counting the same key cannot lose a failure.
  // In SET, window_started_at on the right-hand side is still the old value.
  const record = db.prepare<FailureParams, ThrottleRow>(`INSERT INTO login_throttle
      (key, failures, window_started_at) VALUES (@key, 1, @now)
    ON CONFLICT (key) DO UPDATE SET
      failures = CASE WHEN @now - window_started_at > @windowMs THEN 1 ELSE failures + 1 END,
      window_started_at = CASE WHEN @now - window_started_at > @windowMs
        THEN @now ELSE window_started_at END
    RETURNING failures, window_started_at`)
  const byKey = db.prepare<[string], ThrottleRow>(
    'SELECT failures, window_started_at FROM login_throttle WHERE key = ?',
  )
  const deleteKey = db.prepare<[string]>('DELETE FROM login_throttle WHERE key = ?')

  return {
    async recordFailure(key, now, windowMs) {
      const row = record.get({ key, now, windowMs })
      if (row === undefined) throw new Error('SQLite returned no row from an upsert')
      return toWindow(row)
    },

    async get(key) {
      const row = byKey.get(key)
      return row === undefined ? undefined : toWindow(row)
    },

    async clear(key) {
      deleteKey.run(key)
    },
  }
}
