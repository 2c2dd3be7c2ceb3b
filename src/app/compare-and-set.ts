import { DomainError } from '../core/errors.js'

/** How many times a compare-and-set is retried before giving up (heavy contention). */
export const MAX_CAS_ATTEMPTS = 64

/** What one attempt returns to ask for another one on a fresh read. */
export const RETRY: unique symbol = Symbol('retry')

/**
 * The one retry loop of Folio's compare-and-set writes: `attempt` reads the row, decides,
 * and writes only if the row's revision did not move; it returns the result, or RETRY when
 * the write lost the race (or its decision rested on a stale row), and is then called again
 * with the next attempt number. CONCURRENT_UPDATE after `maxAttempts` lost races.
 */
export async function compareAndSet<T>(
  attempt: (attempt: number) => Promise<T | typeof RETRY>,
  maxAttempts = MAX_CAS_ATTEMPTS,
): Promise<T> {
  for (let n = 0; n < maxAttempts; n++) {
    const result = await attempt(n)
    if (result !== RETRY) return result
  }
  throw new DomainError('CONCURRENT_UPDATE', 'the file is changing too fast; try again')
}
