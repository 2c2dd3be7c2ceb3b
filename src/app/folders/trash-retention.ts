import type { BlobStore } from '../../ports/blob-store.js'
import type { MetadataStore } from '../../ports/metadata-store.js'
import { dropRenditionsOf } from '../conversion/index.js'

/** What the automatic emptying of trashes needs. */
export interface TrashRetentionDeps {
  store: MetadataStore
  blobs: BlobStore
}

/** What one run of the automatic emptying removed. */
export interface TrashPurgeReport {
  trashedFilesPurged: number
  trashedFoldersPurged: number
}

/** Blobs an editor save keeps beside its contents (changes.zip), named in the version's meta. */
function attachedBlobKeys(meta: Record<string, unknown>): string[] {
  const key = meta.changesBlobKey
  return typeof key === 'string' ? [key] : []
}

async function deleteUnused(deps: TrashRetentionDeps, blobKeys: string[]): Promise<void> {
  const inUse = await deps.store.files.blobKeysInUse(blobKeys)
  for (const key of new Set(blobKeys)) {
    // A failure leaves an unreferenced blob, which the garbage collector removes later.
    if (!inUse.has(key)) await deps.blobs.delete(key).catch(() => undefined)
  }
  await dropRenditionsOf(
    deps,
    blobKeys.filter((key) => !inUse.has(key)),
  )
}

/**
 * Deletes for good every file and folder put in a trash at or before `before`, with the
 * bytes no other file uses. Each item goes only while it is as read (a compare-and-set
 * on its revision), so one restored meanwhile stays. At most `limit` of each a run.
 */
export async function purgeTrash(deps: TrashRetentionDeps, before: number, limit = 500): Promise<TrashPurgeReport> {
  let trashedFoldersPurged = 0
  for (const folder of await deps.store.folders.trashedBefore(before, limit)) {
    const deletion = await deps.store.folders.delete(folder.id, folder.revision)
    if (deletion.outcome !== 'deleted') continue
    await deleteUnused(deps, deletion.blobKeys)
    trashedFoldersPurged++
  }
  let trashedFilesPurged = 0
  for (const file of await deps.store.files.trashedBefore(before, limit)) {
    const attached = (await deps.store.files.listVersions(file.id)).flatMap((v) => attachedBlobKeys(v.meta))
    const deletion = await deps.store.files.delete(file.id, file.revision)
    if (deletion.outcome !== 'deleted') continue
    await deleteUnused(deps, [...deletion.blobKeys, ...attached])
    trashedFilesPurged++
  }
  return { trashedFilesPurged, trashedFoldersPurged }
}
