/**
 * Background jobs kept in the metadata store, so a crash or a restart loses none and every
 * instance on the store shares the work. A job is named by its kind and subject (one job
 * per pair: enqueuing again is idempotent), and is taken with a lease: a job whose taker
 * died is taken again once the lease has run out.
 */

/** What a job is doing. */
export type JobState = 'pending' | 'running' | 'failed'

export interface JobRecord {
  /** What to do ('index-version', ...): which handler runs it. */
  kind: string
  /** What to do it to (a file id, ...). */
  subject: string
  state: JobState
  /** Times it has been taken. */
  attempts: number
  /** Not taken before this time (ms since the epoch). */
  runAfter: number
  /** The worker holding it while running. */
  takenBy: string | null
  /** When it was taken; with takenBy, names this run (complete and fail check it). */
  takenAt: number | null
  /** The last failure's message ('' when none). */
  lastError: string
}

/** Which kinds of job a worker takes. */
export type JobKindFilter = { only: readonly string[] } | { except: readonly string[] }

/** How many jobs of a kind are in a state. */
export interface JobCount {
  kind: string
  state: JobState
  count: number
}

export interface JobRepository {
  /**
   * Asks for (kind, subject) to run at or after `runAfter`. A pending or failed job of the
   * pair is made pending again with that time and no attempts; a running one is too, so it
   * runs once more after its current run (which no longer completes it).
   */
  enqueue(kind: string, subject: string, runAfter: number): Promise<void>
  /** enqueue for many subjects of one kind in one transaction. */
  enqueueMany(kind: string, subjects: readonly string[], runAfter: number): Promise<void>
  /**
   * Takes the job due first (pending with runAfter at or before `now`, or running with a
   * lease older than `leaseMs`), marks it running for `worker` at `now` and counts an
   * attempt; undefined when none is due. With `kinds`, only jobs of those kinds (`only`) or
   * of every other kind (`except`) are taken: slow conversions run in a loop of their own
   * and never hold up indexing. Two takers never get the same run.
   */
  take(worker: string, now: number, leaseMs: number, kinds?: JobKindFilter): Promise<JobRecord | undefined>
  /** Ends the run `job` names (removes the job); false when it is no longer that run. */
  complete(job: JobRecord): Promise<boolean>
  /**
   * Ends the run `job` names with an error: pending again at `retryAt`, or failed for
   * good when retryAt is undefined. False when it is no longer that run.
   */
  fail(job: JobRecord, error: string, retryAt: number | undefined): Promise<boolean>
  /** The jobs of a kind among these subjects, in any state (one query, for listings). */
  find(kind: string, subjects: readonly string[]): Promise<JobRecord[]>
  /** Jobs by kind and state (the backlog). */
  counts(): Promise<JobCount[]>
}
