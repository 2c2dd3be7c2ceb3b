import type { ThrottleState } from '../../ports/metadata-store.js'

/** A row of `login_throttle` without its key (bigint columns arrive as numbers in both drivers). */
export interface ThrottleRow {
  failures: number
  window_started_at: number
  last_attempt_at: number
  blocked_until: number
}

export function toThrottleState(row: ThrottleRow): ThrottleState {
  return {
    failures: row.failures,
    windowStartedAt: row.window_started_at,
    lastAttemptAt: row.last_attempt_at,
    blockedUntil: row.blocked_until,
  }
}
