import {
  runStartedAt,
  SQUASH_STARTED_AT,
  squashes,
  versionsToDrop,
  type IncomingVersion,
  type RetentionPolicy,
} from '../../core/documents/version-retention.js'
import type { FileRecord, VersionRecord } from '../../core/entities.js'
import type { AppContext } from '../context.js'
import { dropRenditionsOf } from '../conversion/index.js'

/** The retention policy of the configuration. */
export function retentionPolicy(ctx: Pick<AppContext, 'config'>): RetentionPolicy {
  return { squashWindowMs: ctx.config.versionSquashWindowMs, keep: ctx.config.versionsKeep }
}

/** What committing a version on top of a file's current ones does to them. */
export interface RetentionPlan {
  /** Versions to drop in the commit's transaction. */
  drop: VersionRecord[]
  /** Meta facts to add to the incoming version (when it squashes the head: when its run began). */
  meta: Record<string, unknown>
}

/**
 * Plans the retention of one commit on `file` as read (the commit's compare-and-set on the
 * file's revision guarantees the versions read here are still the file's when it lands).
 * Reads only the head version unless a version limit is set.
 */
export async function planRetention(
  ctx: AppContext,
  file: FileRecord,
  incoming: IncomingVersion,
): Promise<RetentionPlan> {
  const policy = retentionPolicy(ctx)
  if (policy.squashWindowMs <= 0 && policy.keep === undefined) return { drop: [], meta: {} }
  const existing =
    policy.keep === undefined
      ? [await ctx.store.files.getVersion(file.id, file.version)].filter((v) => v !== undefined)
      : await ctx.store.files.listVersions(file.id)
  const head = existing.at(-1)
  const numbers = new Set(versionsToDrop(existing, incoming, policy))
  const meta = head !== undefined && squashes(head, incoming, policy) ? { [SQUASH_STARTED_AT]: runStartedAt(head) } : {}
  return { drop: existing.filter((v) => numbers.has(v.version)), meta }
}

/** Blobs a version names in its meta beside its contents (an editor save's changes.zip). */
function attachedBlobKeys(version: VersionRecord): string[] {
  const key = version.meta.changesBlobKey
  return typeof key === 'string' ? [key] : []
}

/**
 * Frees the bytes of versions a commit dropped: their contents unless another version
 * still uses the same blob, and their attachments. The metadata is gone already, so a
 * failure here leaves an unreferenced blob for the garbage collector, never a dangling row.
 */
export async function freeDroppedVersions(ctx: AppContext, dropped: readonly VersionRecord[]): Promise<void> {
  if (dropped.length === 0) return
  const contents = dropped.map((v) => v.blobKey)
  const inUse = await ctx.store.files.blobKeysInUse(contents)
  const keys = [...new Set([...contents.filter((key) => !inUse.has(key)), ...dropped.flatMap(attachedBlobKeys)])]
  await dropRenditionsOf(
    ctx,
    contents.filter((key) => !inUse.has(key)),
  )
  await Promise.all(
    keys.map((key) =>
      ctx.blobs.delete(key).catch((error: unknown) => {
        ctx.logger.warn({ err: error, blobKey: key }, 'could not delete the blob of a dropped version')
      }),
    ),
  )
}
