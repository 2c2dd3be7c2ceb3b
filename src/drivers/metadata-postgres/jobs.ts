import type { JobRepository, JobState } from '../../ports/job-queue.js'
import { isJobState, JOB_COLUMNS, kindList, toJob, type JobRow } from '../metadata-shared/job-rows.js'
import type { Database, Queryable } from './database.js'

const ENQUEUE = `INSERT INTO jobs (kind, subject, state, attempts, run_after) VALUES ($1, $2, 'pending', 0, $3)
  ON CONFLICT (kind, subject) DO UPDATE SET state = 'pending', attempts = 0, run_after = excluded.run_after,
    taken_by = NULL, taken_at = NULL, last_error = ''`

async function enqueue(db: Queryable, kind: string, subject: string, runAfter: number): Promise<void> {
  await db.query(ENQUEUE, [kind, subject, runAfter])
}

/** Background jobs in PostgreSQL (table `jobs`). */
export function createJobRepository(db: Database): JobRepository {
  return {
    enqueue: (kind, subject, runAfter) => enqueue(db, kind, subject, runAfter),
    async enqueueMany(kind, subjects, runAfter) {
      if (subjects.length === 0) return
      await db.query(
        `INSERT INTO jobs (kind, subject, state, attempts, run_after)
            SELECT $1, subject, 'pending', 0, $3 FROM unnest($2::text[]) AS subject
          ON CONFLICT (kind, subject) DO UPDATE SET state = 'pending', attempts = 0, run_after = excluded.run_after,
            taken_by = NULL, taken_at = NULL, last_error = ''`,
        [kind, subjects, runAfter],
      )
    },
    async take(worker, now, leaseMs, kinds) {
      // SKIP LOCKED: instances taking at once each get another job instead of waiting.
      const { rows } = await db.query<JobRow>(
        `UPDATE jobs SET state = 'running', taken_by = $1, taken_at = $2, attempts = attempts + 1
          WHERE (kind, subject) = (SELECT kind, subject FROM jobs
            WHERE ((state = 'pending' AND run_after <= $2) OR (state = 'running' AND taken_at < $3))
              AND (kind = ANY($4::text[])) = $5
            ORDER BY run_after LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING ${JOB_COLUMNS}`,
        [worker, now, now - leaseMs, kindList(kinds), kinds !== undefined && 'only' in kinds],
      )
      const row = rows[0]
      return row === undefined ? undefined : toJob(row)
    },
    async complete(job) {
      if (job.takenBy === null || job.takenAt === null) return false
      const result = await db.query(
        `DELETE FROM jobs WHERE kind = $1 AND subject = $2 AND state = 'running' AND taken_by = $3 AND taken_at = $4`,
        [job.kind, job.subject, job.takenBy, job.takenAt],
      )
      return (result.rowCount ?? 0) > 0
    },
    async fail(job, error, retryAt) {
      if (job.takenBy === null || job.takenAt === null) return false
      const state: JobState = retryAt === undefined ? 'failed' : 'pending'
      const result = await db.query(
        `UPDATE jobs SET state = $1, run_after = coalesce($2, run_after), taken_by = NULL, taken_at = NULL, last_error = $3
          WHERE kind = $4 AND subject = $5 AND state = 'running' AND taken_by = $6 AND taken_at = $7`,
        [state, retryAt ?? null, error.replaceAll('\u0000', ''), job.kind, job.subject, job.takenBy, job.takenAt],
      )
      return (result.rowCount ?? 0) > 0
    },
    async find(kind, subjects) {
      if (subjects.length === 0) return []
      const { rows } = await db.query<JobRow>(
        `SELECT ${JOB_COLUMNS} FROM jobs WHERE kind = $1 AND subject = ANY($2::text[])`,
        [kind, subjects],
      )
      return rows.map(toJob)
    },
    async counts() {
      const { rows } = await db.query<{ kind: string; state: string; count: number }>(
        'SELECT kind, state, count(*) AS count FROM jobs GROUP BY kind, state ORDER BY kind, state',
      )
      return rows.flatMap((row) =>
        isJobState(row.state) ? [{ kind: row.kind, state: row.state, count: row.count }] : [],
      )
    },
  }
}
