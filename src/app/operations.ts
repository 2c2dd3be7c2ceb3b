import { isDomainError } from '../core/errors.js'
import { newId } from '../core/ids.js'
import type { FileOperationKind, FileOperationRecord, OperationItem } from '../core/entities.js'
import type { Principal } from './access.js'
import type { AppContext } from './context.js'
import type { OperationResult } from './file-ops.js'

/** An operation just run, with the records it left (for the reply of the call that ran it). */
export type StartedOperation = FileOperationRecord & { result: OperationResult }

/** How long a finished operation nobody asked about is kept (ms). */
export const FINISHED_OPERATION_TTL_MS = 60 * 60 * 1000

/**
 * How long an operation may stay marked running before it counts as abandoned (its
 * process died mid-way) and is dropped (ms). Far above what any one operation takes.
 */
export const RUNNING_OPERATION_TTL_MS = 24 * 60 * 60 * 1000

const itemsOf = (items: ReadonlyArray<{ id: string; title: string }>): OperationItem[] =>
  items.map((item) => ({ id: item.id, title: item.title }))

/**
 * Runs a file operation and records it in the store, running first and then finished
 * (with its items, or its error), so `GET files/fileops` on any instance reports it.
 * A failure is recorded and passed on to the caller, whose reply carries it. Expired
 * operations are dropped on the way, by their stored times.
 */
export async function runOperation(
  ctx: AppContext,
  by: Principal,
  kind: FileOperationKind,
  run: () => Promise<OperationResult>,
): Promise<StartedOperation> {
  const startedAt = ctx.clock.now()
  await ctx.store.operations.purge(startedAt - FINISHED_OPERATION_TTL_MS, startedAt - RUNNING_OPERATION_TTL_MS)
  const op: FileOperationRecord = {
    id: newId(),
    userId: by.user.id,
    kind,
    startedAt,
    finishedAt: null,
    error: '',
    files: [],
    folders: [],
  }
  await ctx.store.operations.start(op)
  let result: OperationResult
  try {
    result = await run()
  } catch (error) {
    // Only a refusal's message is the user's to read; anything else stays in the log.
    const message = isDomainError(error) ? error.message : 'the operation failed'
    await ctx.store.operations.finish(op.id, { finishedAt: ctx.clock.now(), error: message, files: [], folders: [] })
    throw error
  }
  const outcome = {
    finishedAt: ctx.clock.now(),
    error: '',
    files: itemsOf(result.files),
    folders: itemsOf(result.folders),
  }
  await ctx.store.operations.finish(op.id, outcome)
  return { ...op, ...outcome, result }
}

/**
 * The operations of `by` to report now, oldest first: the running ones, and each finished
 * one once (it is dropped as it is reported), leaving out those expired by their times.
 */
export async function takeOperations(ctx: AppContext, by: Principal): Promise<FileOperationRecord[]> {
  const now = ctx.clock.now()
  const taken = await ctx.store.operations.take(by.user.id)
  return taken.filter((op) =>
    op.finishedAt === null ? op.startedAt >= now - RUNNING_OPERATION_TTL_MS : op.finishedAt >= now - FINISHED_OPERATION_TTL_MS,
  )
}
