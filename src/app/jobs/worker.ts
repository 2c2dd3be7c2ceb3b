import { newId } from '../../core/ids.js'
import type { JobKindFilter, JobRecord } from '../../ports/job-queue.js'
import type { AppContext } from '../context.js'
import { onEnqueue, type JobKind } from './index.js'

/** How long a taken job is held before another instance may take it (its taker died). */
export const JOB_LEASE_MS = 5 * 60_000
/** How often an idle worker looks for jobs other instances enqueued. */
export const JOB_POLL_MS = 1000
/** Runs a failing job gets before it is kept failed for good. */
export const JOB_MAX_ATTEMPTS = 5

/** Lets requests waiting on the event loop run before the next job. */
function yieldToRequests(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** Retry delay after the n-th failed attempt: 2 s, 8 s, 32 s, ... */
function retryDelay(attempts: number): number {
  return 2000 * 4 ** Math.max(0, attempts - 1)
}

/**
 * Runs one due job, if any: takes it with a lease, runs its kind, completes or fails it.
 * Returns false when no job was due.
 */
export async function runOneJob(
  ctx: AppContext,
  kinds: ReadonlyMap<string, JobKind>,
  worker: string,
  filter?: JobKindFilter,
): Promise<boolean> {
  const job = await ctx.store.jobs.take(worker, ctx.clock.now(), JOB_LEASE_MS, filter)
  if (job === undefined) return false
  const kind = kinds.get(job.kind)
  if (kind === undefined) {
    await ctx.store.jobs.fail(job, `no handler for jobs of kind ${job.kind}`, undefined)
    return true
  }
  try {
    await kind.run(ctx, job.subject, job)
    await ctx.store.jobs.complete(job)
  } catch (error) {
    await failJob(ctx, job, error, kind.isPermanent?.(error) ?? false)
  }
  return true
}

async function failJob(ctx: AppContext, job: JobRecord, error: unknown, permanent: boolean): Promise<void> {
  const message = error instanceof Error ? error.message : String(error)
  const retryAt = permanent || job.attempts >= JOB_MAX_ATTEMPTS ? undefined : ctx.clock.now() + retryDelay(job.attempts)
  ctx.logger.warn({ kind: job.kind, subject: job.subject, attempts: job.attempts, err: error }, 'background job failed')
  await ctx.store.jobs.fail(job, message.slice(0, 500), retryAt)
}

/** A running worker loop. */
export interface JobWorker {
  /** The id it takes jobs under. */
  id: string
  /** Ends the loop after the job in hand. */
  stop(): Promise<void>
}

/**
 * Starts this instance's worker: one job at a time, yielding to requests between jobs;
 * when no job is due it waits for one enqueued in this process or JOB_POLL_MS. Every
 * instance runs one; the store's leases share the work among them.
 */
export function startJobWorker(ctx: AppContext, kinds: readonly JobKind[], filter?: JobKindFilter): JobWorker {
  const byKind = new Map(kinds.map((kind) => [kind.kind, kind]))
  const id = `worker-${newId()}`
  let stopped = false
  // Set by an enqueue while the loop is busy, so the idle wait that follows ends at once.
  let woken = false
  let wake: (() => void) | undefined
  const unsubscribe = onEnqueue(ctx.store, () => {
    woken = true
    wake?.()
  })
  const idle = () =>
    new Promise<void>((resolve) => {
      if (woken || stopped) {
        woken = false
        resolve()
        return
      }
      const timer = setTimeout(done, JOB_POLL_MS)
      timer.unref()
      function done() {
        clearTimeout(timer)
        wake = undefined
        woken = false
        resolve()
      }
      wake = done
    })
  const loop = (async () => {
    while (!stopped) {
      let ran = false
      try {
        ran = await runOneJob(ctx, byKind, id, filter)
      } catch (error) {
        // The store itself failed (a restart of the database): wait, then try again.
        ctx.logger.warn({ err: error }, 'background jobs: cannot reach the store')
      }
      if (stopped) break
      if (ran) await yieldToRequests()
      else await idle()
    }
  })()
  return {
    id,
    stop: async () => {
      stopped = true
      unsubscribe()
      wake?.()
      await loop
    },
  }
}
