import type { JobRecord } from '../../ports/job-queue.js'
import type { AppContext } from '../context.js'

/**
 * A kind of background job: its name and what runs one. `run` must be idempotent (a job
 * may run twice: after a crash, or when enqueued again while running) and throws to have
 * the job retried later.
 */
export interface JobKind {
  kind: string
  run(ctx: AppContext, subject: string, job: JobRecord): Promise<void>
  /** True for an error no retry can mend (a document that cannot be converted): failed for good at once. */
  isPermanent?(error: unknown): boolean
}

// Workers of this process, woken when a job is enqueued here (others find it by polling).
const wakers = new WeakMap<object, Set<() => void>>()

/** Registers `wake` to be called when this process enqueues a job on `store`. */
export function onEnqueue(store: object, wake: () => void): () => void {
  let set = wakers.get(store)
  if (set === undefined) {
    set = new Set()
    wakers.set(store, set)
  }
  set.add(wake)
  return () => set.delete(wake)
}

/**
 * Asks for a job, durably (it is in the store when this resolves), and wakes this process's
 * worker. Due at once.
 */
export async function enqueueJob(ctx: AppContext, kind: string, subject: string): Promise<void> {
  await ctx.store.jobs.enqueue(kind, subject, ctx.clock.now())
  for (const wake of wakers.get(ctx.store) ?? []) wake()
}

/** enqueueJob for many subjects at once. */
export async function enqueueJobs(ctx: AppContext, kind: string, subjects: readonly string[]): Promise<void> {
  if (subjects.length === 0) return
  await ctx.store.jobs.enqueueMany(kind, subjects, ctx.clock.now())
  for (const wake of wakers.get(ctx.store) ?? []) wake()
}
