import type { JobKindFilter, JobRecord, JobState } from '../../ports/job-queue.js'

/** A row of the jobs table, the same in every SQL driver. */
export interface JobRow {
  kind: string
  subject: string
  state: string
  attempts: number | string
  run_after: number | string
  taken_by: string | null
  taken_at: number | string | null
  last_error: string
}

export const JOB_COLUMNS = 'kind, subject, state, attempts, run_after, taken_by, taken_at, last_error'

export function isJobState(value: string): value is JobState {
  return value === 'pending' || value === 'running' || value === 'failed'
}

export function toJob(row: JobRow): JobRecord {
  if (!isJobState(row.state)) throw new Error(`job ${row.kind}/${row.subject} has unknown state ${row.state}`)
  return {
    kind: row.kind,
    subject: row.subject,
    state: row.state,
    attempts: Number(row.attempts),
    runAfter: Number(row.run_after),
    takenBy: row.taken_by,
    takenAt: row.taken_at === null ? null : Number(row.taken_at),
    lastError: row.last_error,
  }
}

/** The kinds a filter names (no filter: every kind, as `except: []`). */
export function kindList(kinds: JobKindFilter | undefined): readonly string[] {
  if (kinds === undefined) return []
  return 'only' in kinds ? kinds.only : kinds.except
}
