import { DomainError, isDomainError } from '../../core/errors.js'
import { newId } from '../../core/ids.js'
import type { FileOperationKind, FileOperationRecord, OperationItem } from '../../core/entities.js'
import type { Principal } from '../access.js'
import type { AppContext } from '../context.js'
import { newProgress, type OperationProgress, type OperationResult } from './file-ops.js'

/**
 * An operation a call started, with the records it left (for the reply of that call);
 * `result` is absent while it still runs, which it does when it outlasted the caller's wait.
 */
export type StartedOperation = FileOperationRecord & { result?: OperationResult }

/** How long a finished operation nobody asked about is kept (ms). */
export const FINISHED_OPERATION_TTL_MS = 60 * 60 * 1000

/**
 * How long an operation may stay marked running before it counts as abandoned (its
 * process died mid-way) and is dropped (ms). Far above what any one operation takes.
 */
export const RUNNING_OPERATION_TTL_MS = 24 * 60 * 60 * 1000

/** How a call waits for the operation it starts. */
export interface OperationWait {
  /**
   * How long the call waits before it is answered with the operation still running (it
   * then runs on and is recorded when it ends; clients poll the operations, as
   * ONLYOFFICE's do); 0 answers at once. Left out: the call waits for the end.
   */
  waitMs?: number
  /** Holds the operations still running after their call was answered, for a graceful stop. */
  inFlight?: Set<Promise<unknown>>
  /** How often the heartbeat is written (OPERATION_HEARTBEAT_MS unless a test says). */
  heartbeatMs?: number
}

/** How often the process running an operation records that it is alive (ms). */
export const OPERATION_HEARTBEAT_MS = 10_000

/**
 * A running operation whose process has not recorded a heartbeat for this long is taken
 * for dead (a crash, a kill, a lost machine) and reported ended with an error, instead of
 * running on for the clients that poll it until it expires (ms). Six missed heartbeats.
 */
export const SILENT_OPERATION_MS = 60_000

/** What a client reads of an operation whose process died mid-way. */
export const INTERRUPTED_MESSAGE =
  'the operation was interrupted (its server stopped); the items it had done are kept, run it again for the rest'

const itemsOf = (items: ReadonlyArray<{ id: string; title: string; convertTo?: string }>): OperationItem[] =>
  items.map((item) =>
    item.convertTo === undefined
      ? { id: item.id, title: item.title }
      : { id: item.id, title: item.title, convertTo: item.convertTo },
  )

const STILL_RUNNING: unique symbol = Symbol('still running')

/** `work`'s value, or STILL_RUNNING once `waitMs` passed first. */
async function within<T>(work: Promise<T>, waitMs: number): Promise<T | typeof STILL_RUNNING> {
  let timer: NodeJS.Timeout | undefined
  const timeUp = new Promise<typeof STILL_RUNNING>((resolve) => {
    timer = setTimeout(resolve, waitMs, STILL_RUNNING)
  })
  try {
    return await Promise.race([work, timeUp])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Runs a file operation and records it in the store, running first and then finished
 * (with its items, or its error), so `GET files/fileops` on any instance reports it.
 * The call waits up to `wait.waitMs` for the end: an operation that ends by then is
 * answered as before (a failure is passed on to the caller, whose reply carries it);
 * one that takes longer is answered still running, and its end (its items, or its
 * error's message) is recorded for the clients that poll. Expired operations are
 * dropped on the way, by their stored times.
 */
export async function runOperation(
  ctx: AppContext,
  by: Principal,
  kind: FileOperationKind,
  run: (progress: OperationProgress) => Promise<OperationResult>,
  wait: OperationWait = {},
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
  // While it runs, the operation's row says its process is alive (see SILENT_OPERATION_MS).
  const heartbeat = setInterval(() => {
    ctx.store.operations.beat(op.id, ctx.clock.now()).catch((error: unknown) => {
      ctx.logger.warn({ err: error, operation: op.id }, 'file operation heartbeat not recorded')
    })
  }, wait.heartbeatMs ?? OPERATION_HEARTBEAT_MS)
  heartbeat.unref()
  let failureRecorded = false
  const ended = (async (): Promise<StartedOperation> => {
    let result: OperationResult
    const progress = newProgress()
    try {
      result = await run(progress)
    } catch (error) {
      const stopped = stoppedError(kind, error, progress)
      await ctx.store.operations.finish(op.id, {
        finishedAt: ctx.clock.now(),
        error: stopped.message,
        files: itemsOf(progress.result.files),
        folders: itemsOf(progress.result.folders),
      })
      failureRecorded = true
      throw stopped === error || !isDomainError(error) ? error : stopped
    }
    const outcome = {
      finishedAt: ctx.clock.now(),
      error: '',
      files: itemsOf(result.files),
      folders: itemsOf(result.folders),
    }
    await ctx.store.operations.finish(op.id, outcome)
    return { ...op, ...outcome, result }
  })().finally(() => clearInterval(heartbeat))
  if (wait.waitMs === undefined) return ended
  // 0: answered at once, the operation running (FOLIO_OPERATION_WAIT=0).
  const first = wait.waitMs === 0 ? STILL_RUNNING : await within(ended, wait.waitMs)
  if (first !== STILL_RUNNING) return first
  // Nobody waits for it any more: its failure goes to the log here (while the caller waited,
  // the reply's error handler logged it).
  const onItsOwn: Promise<void> = ended
    .then(
      () => undefined,
      (error: unknown) => {
        if (!failureRecorded) {
          // The store refused the record: the operation stays reported running until it expires.
          ctx.logger.error({ err: error, operation: op.id, kind }, 'file operation could not be recorded')
        } else if (!isDomainError(error)) {
          ctx.logger.error({ err: error, operation: op.id, kind }, 'file operation failed')
        }
      },
    )
    .finally(() => wait.inFlight?.delete(onItsOwn))
  wait.inFlight?.add(onItsOwn)
  return op
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`

/**
 * The error an operation that failed part-way reports: it stopped, what it had done (every
 * file and folder at any depth, the finished selected items listed beside it) and why; an
 * operation that did nothing reports its refusal as it was. Only a refusal's message is
 * the user's to read; anything else goes to the log.
 */
function stoppedError(kind: FileOperationKind, error: unknown, progress: OperationProgress): Error {
  const reason = isDomainError(error) ? error.message : 'the operation failed'
  if (progress.files + progress.folders === 0) return isDomainError(error) ? error : new Error(reason)
  const done = `${count(progress.files, 'file')} and ${count(progress.folders, 'folder')}`
  const message = `the ${kind} stopped after ${done}: ${reason}`
  return isDomainError(error) ? new DomainError(error.code, message, error.details) : new Error(message)
}

/**
 * The operations of `by` to report now, oldest first: the running ones, and each finished
 * one once (it is dropped as it is reported), leaving out those expired by their times.
 * Finished ones in `keep` stay for the next report: the reply of the call that started an
 * operation keeps it, because ONLYOFFICE's apps look for it, finished, in the poll that
 * follows that reply.
 * Running operations whose process fell silent are ended first, with INTERRUPTED_MESSAGE.
 */
export async function takeOperations(
  ctx: AppContext,
  by: Principal,
  keep: readonly string[] = [],
): Promise<FileOperationRecord[]> {
  const now = ctx.clock.now()
  await ctx.store.operations.endSilent(now - SILENT_OPERATION_MS, now, INTERRUPTED_MESSAGE)
  const taken = await ctx.store.operations.take(by.user.id, keep)
  return taken.filter((op) =>
    op.finishedAt === null
      ? op.startedAt >= now - RUNNING_OPERATION_TTL_MS
      : op.finishedAt >= now - FINISHED_OPERATION_TTL_MS,
  )
}
