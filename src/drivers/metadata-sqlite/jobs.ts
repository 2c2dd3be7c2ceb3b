import type Database from 'better-sqlite3'
import type { JobCount, JobRepository, JobState } from '../../ports/job-queue.js'
import { isJobState, JOB_COLUMNS, kindList, toJob, type JobRow } from '../metadata-shared/job-rows.js'

/** Background jobs in SQLite (table `jobs`). */
export function createJobRepository(db: Database.Database): JobRepository {
  const enqueue = db.prepare<[string, string, number]>(`INSERT INTO jobs (kind, subject, state, attempts, run_after)
      VALUES (?, ?, 'pending', 0, ?)
    ON CONFLICT (kind, subject) DO UPDATE SET state = 'pending', attempts = 0, run_after = excluded.run_after,
      taken_by = NULL, taken_at = NULL, last_error = ''`)
  // One statement: SQLite runs it whole under its write lock, so two takers never share a run.
  const take = db.prepare<
    { worker: string; now: number; expired: number; kinds: string; only: number },
    JobRow
  >(`UPDATE jobs
      SET state = 'running', taken_by = @worker, taken_at = @now, attempts = attempts + 1
    WHERE rowid = (SELECT rowid FROM jobs
      WHERE ((state = 'pending' AND run_after <= @now) OR (state = 'running' AND taken_at < @expired))
        AND (kind IN (SELECT value FROM json_each(@kinds))) = @only
      ORDER BY run_after LIMIT 1)
    RETURNING ${JOB_COLUMNS}`)
  const complete = db.prepare<[string, string, string, number]>(`DELETE FROM jobs
    WHERE kind = ? AND subject = ? AND state = 'running' AND taken_by = ? AND taken_at = ?`)
  const fail = db.prepare<[string, number | null, string, string, string, string, number]>(`UPDATE jobs
      SET state = ?, run_after = coalesce(?, run_after), taken_by = NULL, taken_at = NULL, last_error = ?
    WHERE kind = ? AND subject = ? AND state = 'running' AND taken_by = ? AND taken_at = ?`)
  const counts = db.prepare<[], { kind: string; state: string; count: number }>(
    'SELECT kind, state, count(*) AS count FROM jobs GROUP BY kind, state ORDER BY kind, state',
  )
  const findAmong = db.prepare<[string, string], JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE kind = ? AND subject IN (SELECT value FROM json_each(?))`,
  )
  const enqueueMany = db.transaction((kind: string, subjects: readonly string[], runAfter: number) => {
    for (const subject of subjects) enqueue.run(kind, subject, runAfter)
  })
  return {
    async enqueue(kind, subject, runAfter) {
      enqueue.run(kind, subject, runAfter)
    },
    async enqueueMany(kind, subjects, runAfter) {
      enqueueMany.immediate(kind, subjects, runAfter)
    },
    async take(worker, now, leaseMs, kinds) {
      const only = kinds !== undefined && 'only' in kinds ? 1 : 0
      const row = take.get({ worker, now, expired: now - leaseMs, kinds: JSON.stringify(kindList(kinds)), only })
      return row === undefined ? undefined : toJob(row)
    },
    async complete(job) {
      if (job.takenBy === null || job.takenAt === null) return false
      return complete.run(job.kind, job.subject, job.takenBy, job.takenAt).changes > 0
    },
    async fail(job, error, retryAt) {
      if (job.takenBy === null || job.takenAt === null) return false
      const state: JobState = retryAt === undefined ? 'failed' : 'pending'
      return fail.run(state, retryAt ?? null, error, job.kind, job.subject, job.takenBy, job.takenAt).changes > 0
    },
    async find(kind, subjects) {
      const found = []
      for (let start = 0; start < subjects.length; start += 500) {
        found.push(...findAmong.all(kind, JSON.stringify(subjects.slice(start, start + 500))).map(toJob))
      }
      return found
    },
    async counts() {
      return counts
        .all()
        .flatMap((row): JobCount[] =>
          isJobState(row.state) ? [{ kind: row.kind, state: row.state, count: row.count }] : [],
        )
    },
  }
}
