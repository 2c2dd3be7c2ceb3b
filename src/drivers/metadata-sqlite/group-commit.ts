import type Database from 'better-sqlite3'

/** How a job may run inside its batch. */
export interface JobShape {
  /**
   * The job writes with one statement, its last step: nothing it does before that writes,
   * and nothing after it can fail. A statement that fails is undone by SQLite alone (the
   * rest of the transaction stands), so such a job needs no savepoint of its own: two
   * statements fewer per job (a lock change: about 1.2 µs of 7 in the batch's SQLite work,
   * measured in a loop of batches of 42).
   */
  singleStatement?: boolean
}

/**
 * Runs a write job in the next group commit; resolves once that commit is durable.
 * `afterCommit` (when the job succeeded) runs synchronously right after the COMMIT, before
 * any other code can read: for a memo to take in the write's exact effect (files.ts).
 */
export type GroupCommit = <T>(job: () => T, afterCommit?: (value: T) => void, shape?: JobShape) => Promise<T>

interface QueuedJob {
  /** Runs the write inside the batch; returns what settles its caller after the commit. */
  execute(): () => void
  /** The batch as a whole failed: nothing of it took effect. */
  fail(error: unknown): void
}

/**
 * Group commit over one connection: write jobs queued while the event loop is
 * busy run together in one IMMEDIATE transaction, each in its own savepoint (or, for a
 * job of one statement, in that statement's own atomicity),
 * so N concurrent writes cost one commit (one fsync with synchronous = FULL)
 * instead of N. A job's promise settles only after the shared COMMIT returned,
 * so "resolved" still means "durable". A job that throws is rolled back alone
 * and the others commit; if the transaction itself fails, every job of the
 * batch is rejected and none of them took effect.
 */
export function createGroupCommit(db: Database.Database): GroupCommit {
  let queue: QueuedJob[] = []
  const savepoint = db.transaction((job: () => unknown) => job())
  // better-sqlite3 types a transaction by the one function it wraps; this one returns the job's value.
  const inSavepoint = <T>(job: () => T): T => savepoint(job) as T
  const runBatch = db.transaction((jobs: QueuedJob[]) => jobs.map((job) => job.execute()))

  const flush = () => {
    const jobs = queue
    queue = []
    let settlers: (() => void)[]
    try {
      settlers = runBatch.immediate(jobs)
    } catch (error) {
      for (const job of jobs) job.fail(error)
      return
    }
    for (const settle of settlers) settle()
  }

  return <T>(run: () => T, afterCommit?: (value: T) => void, shape?: JobShape): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const alone = shape?.singleStatement === true
      queue.push({
        execute() {
          try {
            const value = alone ? run() : inSavepoint(run)
            return () => {
              try {
                afterCommit?.(value)
              } catch {
                // The write is durable whatever the observer did, and the batch's other
                // callers must be settled too (the memo counts a write it took in whole only).
              }
              resolve(value)
            }
          } catch (error) {
            // SQLite may have rolled back the whole transaction (disk full, I/O error):
            // then no job of the batch may be reported as done.
            if (!db.inTransaction) throw error
            return () => reject(error)
          }
        },
        fail: reject,
      })
      // After the I/O callbacks and microtasks of this turn, so their writes join the batch.
      if (queue.length === 1) setImmediate(flush)
    })
}
