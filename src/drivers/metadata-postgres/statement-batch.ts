/** One caller waiting for its share of a batched statement. */
export interface Waiting<I, O> {
  input: I
  resolve(output: O): void
  reject(error: unknown): void
}

/** How a batcher runs its statements. */
export interface BatchOptions<I, O> {
  /** Runs one statement for `batch` and settles every caller in it (never throws). */
  run(batch: Waiting<I, O>[]): Promise<void>
  /** The most callers one statement carries. */
  maxBatch: number
  /** How many statements may be on their way at once. */
  inFlight: number
}

/**
 * Turns calls into statements that serve many callers: a call made while `inFlight`
 * statements are already on their way waits, and the calls that waited go together as
 * the next statement. A call never joins a statement that started before it, so each
 * still sees every change committed before it was made. With no load every call is its
 * own statement at once; under load PostgreSQL parses, plans, executes (and for writes
 * flushes to disk) once for many calls, which on a busy machine is most of the cost.
 */
export function createBatcher<I, O>(options: BatchOptions<I, O>): (input: I) => Promise<O> {
  let queue: Waiting<I, O>[] = []
  let running = 0

  const drain = async (): Promise<void> => {
    running++
    while (queue.length > 0) {
      const batch = queue.slice(0, options.maxBatch)
      queue = queue.slice(batch.length)
      await options.run(batch)
    }
    running--
  }

  return (input) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ input, resolve, reject })
      if (running < options.inFlight) void drain()
    })
}
