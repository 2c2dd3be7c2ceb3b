/**
 * The sign-in throttle, as pure rules over one key's state (a user name or a client
 * address). An attempt is counted before the password is checked (reserveAttempt), so
 * a burst of parallel attempts cannot get more than `maxFailures` through; a successful
 * sign-in gives its reservation back (releaseAttempt) or clears the key.
 *
 * The lock-out grows rather than being a fixed wall: the attempt that reaches the limit
 * locks the key for `baseLockMs`, and every further counted attempt doubles that, up to
 * `windowMs`. A key that saw no attempt for a whole `windowMs` after its lock ended
 * starts over.
 */

/** What the store keeps for one key. Times are ms since the epoch. */
export interface ThrottleState {
  /** Attempts counted (reserved and not given back) since the key started over. */
  failures: number
  /** When the first of those attempts was counted. */
  windowStartedAt: number
  /** When the last attempt was counted. */
  lastAttemptAt: number
  /** No attempt is allowed before this time (0 when not locked). */
  blockedUntil: number
}

/** Failed-sign-in policy for one kind of key. */
export interface ThrottlePolicy {
  /** Attempts allowed before the first lock-out. */
  maxFailures: number
  /** Longest lock-out, and how long a key must stay quiet to start over. */
  windowMs: number
  /** Length of the first lock-out (capped at windowMs). */
  baseLockMs: number
}

/** Length of the first lock-out when the policy does not say otherwise. */
export const DEFAULT_BASE_LOCK_MS = 2 * 60_000

/** The outcome of reserveAttempt: the state to store, and whether the attempt may go on. */
export type ThrottleReservation =
  { allowed: true; next: ThrottleState } | { allowed: false; retryAfterSeconds: number; next: ThrottleState }

/** True when the key saw no attempt for a whole window after its last attempt and lock. */
function isStale(state: ThrottleState, policy: ThrottlePolicy, now: number): boolean {
  return now - Math.max(state.lastAttemptAt, state.blockedUntil) >= policy.windowMs
}

/** How long a key with `failures` counted attempts is locked (0 below the limit). */
export function lockDuration(failures: number, policy: ThrottlePolicy): number {
  if (failures < policy.maxFailures) return 0
  const doublings = Math.min(failures - policy.maxFailures, 40)
  return Math.min(policy.windowMs, policy.baseLockMs * 2 ** doublings)
}

/**
 * Counts one attempt on a key, or refuses it while the key is locked. A refused attempt
 * changes nothing (it neither counts nor extends the lock).
 */
export function reserveAttempt(
  current: ThrottleState | undefined,
  policy: ThrottlePolicy,
  now: number,
): ThrottleReservation {
  const state = current === undefined || isStale(current, policy, now) ? undefined : current
  if (state !== undefined && now < state.blockedUntil) {
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((state.blockedUntil - now) / 1000)),
      next: state,
    }
  }
  const failures = (state?.failures ?? 0) + 1
  const lock = lockDuration(failures, policy)
  return {
    allowed: true,
    next: {
      failures,
      windowStartedAt: state?.windowStartedAt ?? now,
      lastAttemptAt: now,
      blockedUntil: lock > 0 ? now + lock : 0,
    },
  }
}

/**
 * Gives back one reserved attempt (the password was right). The lock set by that
 * attempt is lifted when the count falls below the limit again. Undefined means the
 * key can be forgotten.
 */
export function releaseAttempt(
  current: ThrottleState | undefined,
  policy: ThrottlePolicy,
  now: number,
): ThrottleState | undefined {
  if (current === undefined || isStale(current, policy, now)) return undefined
  const failures = Math.max(0, current.failures - 1)
  if (failures === 0) return undefined
  const blockedUntil = failures < policy.maxFailures ? 0 : current.blockedUntil
  return { ...current, failures, blockedUntil }
}

/** True when a stored key may be deleted: it has started over by now (see reserveAttempt). */
export function isThrottleStateStale(state: ThrottleState, policy: ThrottlePolicy, now: number): boolean {
  return isStale(state, policy, now)
}
