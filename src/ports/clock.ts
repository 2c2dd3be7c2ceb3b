/** Time as milliseconds since the epoch. Injected so tests can move time. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }
