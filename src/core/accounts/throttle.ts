
/** Failures counted for one key (a user name or a client address). */
export interface ThrottleWindow {
  failures: number
  windowStartedAt: number
}

/** Failed-login policy: `maxFailures` within `windowMs` locks the key out until the window ends. */
export interface ThrottlePolicy {
  maxFailures: number
  windowMs: number
}

/** Seconds until another attempt is allowed for this window, or 0 when it is allowed now. */
export function throttleWait(
  window: ThrottleWindow | undefined,
  policy: ThrottlePolicy,
  now: number,
): number {
  if (!window) return 0
  const endsAt = window.windowStartedAt + policy.windowMs
  if (now >= endsAt || window.failures < policy.maxFailures) return 0
  return Math.max(1, Math.ceil((endsAt - now) / 1000))
}
