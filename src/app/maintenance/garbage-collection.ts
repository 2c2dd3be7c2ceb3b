import type { BlobListing, BlobStore } from '../../ports/blob-store.js'
import type { Clock } from '../../ports/clock.js'
import type { MetadataStore } from '../../ports/metadata-store.js'
import { purgeExpiredAccountsState } from '../accounts/accounts.js'
import { purgeTrash, type TrashPurgeReport } from '../folders/trash-retention.js'
import type { AppContext } from '../context.js'
import { dropRenditionsOf } from '../conversion/index.js'

/**
 * How old a blob or temporary file must be before the collector may remove it. A write
 * in progress stores its blob first and commits the version that references it right
 * after (seconds at most), and an upload keeps touching its temporary file; an hour
 * leaves a wide margin, so collecting is safe while the server writes.
 */
export const GC_MIN_AGE_MS = 60 * 60 * 1000

/** What one collection removed. */
export interface GarbageReport {
  /** Blobs looked at (every stored one). */
  blobsScanned: number
  /** Blobs no version referenced, removed, and the bytes they held. */
  blobsRemoved: number
  blobBytesFreed: number
  /** Temporary files left by interrupted writes, removed, and their bytes. */
  tempFilesRemoved: number
  tempBytesFreed: number
}

export interface GarbageCollectionDeps {
  store: MetadataStore
  blobs: BlobStore
  clock: Clock
}

/** Keys checked against the metadata store per query. */
const BATCH = 500

/**
 * Removes what crashes leave behind: temporary files of interrupted writes, and blobs
 * that no version of any file references (a crash between storing the blob and
 * committing its version), both only when older than `minAgeMs`. Reports what it freed.
 */
export async function collectGarbage(
  deps: GarbageCollectionDeps,
  options: { minAgeMs?: number } = {},
): Promise<GarbageReport> {
  const cutoff = deps.clock.now() - (options.minAgeMs ?? GC_MIN_AGE_MS)
  const temp = await deps.blobs.sweepTemporary(cutoff)
  const report: GarbageReport = {
    blobsScanned: 0,
    blobsRemoved: 0,
    blobBytesFreed: 0,
    tempFilesRemoved: temp.files,
    tempBytesFreed: temp.bytes,
  }
  let candidates: BlobListing[] = []
  const settle = async (): Promise<void> => {
    const inUse = await deps.store.files.blobKeysInUse(candidates.map((blob) => blob.key))
    const removed: string[] = []
    for (const blob of candidates) {
      if (inUse.has(blob.key)) continue
      await deps.blobs.delete(blob.key)
      removed.push(blob.key)
      report.blobsRemoved++
      report.blobBytesFreed += blob.size
    }
    // Renditions of removed contents go with them, rows and blobs.
    await dropRenditionsOf(deps, removed)
    candidates = []
  }
  for await (const blob of deps.blobs.list()) {
    report.blobsScanned++
    if (blob.modifiedAt >= cutoff) continue
    candidates.push(blob)
    if (candidates.length >= BATCH) await settle()
  }
  if (candidates.length > 0) await settle()
  return report
}

/** What one housekeeping run did: the collection, and the expired rows purged. */
export interface HousekeepingReport extends GarbageReport, TrashPurgeReport {
  sessionsPurged: number
  throttleKeysPurged: number
}

/**
 * One housekeeping run: deletes expired sessions and sign-in throttle keys that have
 * started over, empties what has been in a trash longer than config.trashRetentionMs
 * (see purgeTrash), then collects garbage (see collectGarbage).
 */
export async function runHousekeeping(
  ctx: GarbageCollectionDeps & Pick<AppContext, 'config'>,
  options: { minAgeMs?: number } = {},
): Promise<HousekeepingReport> {
  const purged = await purgeExpiredAccountsState(ctx)
  const trash = await purgeTrash(ctx, ctx.clock.now() - ctx.config.trashRetentionMs)
  const report = await collectGarbage(ctx, options)
  return {
    ...report,
    ...trash,
    sessionsPurged: purged.sessions,
    throttleKeysPurged: purged.throttleKeys,
  }
}

/** How often a running server does its housekeeping. */
export const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000

/**
 * Runs housekeeping now (in the background) and then every HOUSEKEEPING_INTERVAL_MS on
 * a timer that does not keep the process alive; logs what each run freed (info when
 * something was removed). stop() ends the timer and waits for a run under way.
 */
export function startHousekeeping(ctx: AppContext): { stop(): Promise<void> } {
  let running: Promise<void> | undefined
  const run = (): void => {
    if (running) return
    running = runHousekeeping(ctx)
      .then((report) => {
        const freed =
          report.blobsRemoved + report.tempFilesRemoved + report.trashedFilesPurged + report.trashedFoldersPurged > 0
        ctx.logger[freed ? 'info' : 'debug'](report, 'housekeeping: garbage collected')
      })
      .catch((error: unknown) => ctx.logger.warn({ err: error }, 'housekeeping failed'))
      .finally(() => {
        running = undefined
      })
  }
  run()
  const timer = setInterval(run, HOUSEKEEPING_INTERVAL_MS)
  timer.unref()
  return {
    stop: async () => {
      clearInterval(timer)
      await running
    },
  }
}
