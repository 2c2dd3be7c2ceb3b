import { assertRoomFor } from '../accounts/quota.js'
import type { Readable } from 'node:stream'
import { isDomainError } from '../../core/errors.js'
import type { FileRecord, FolderRecord } from '../../core/entities.js'
import type { StoredBlob } from '../../ports/blob-store.js'
import type { UserSettings } from '../../ports/metadata-store.js'
import { authorize, type Principal } from '../access.js'
import type { AppContext } from '../context.js'
import { storeNewContents } from './file-changes.js'
import { createFileFromBlob, storeBody } from './files.js'
import { repairName } from '../../core/names/name-rules.js'

/**
 * An upload under a name its folder holds already: a new version of that file, or a new
 * file beside it under the next free name ('Report (2).docx'). The caller says which
 * (`createNewIfExist`, as ONLYOFFICE's upload takes it); when it does not, the user's own
 * setting decides (`files/updateifexist`). A multipart form may name the choice after the
 * file's bytes, so an upload is staged first (its bytes stored) and settled afterwards.
 */

/** What a user who never changed a setting has: a same-named upload keeps both files. */
export const DEFAULT_USER_SETTINGS: UserSettings = { updateIfExist: false, cultureName: '' }

/** The user's portal settings (the defaults until they change one). */
export async function userSettings(ctx: AppContext, by: Principal): Promise<UserSettings> {
  return (await ctx.store.userSettings.get(by.user.id)) ?? DEFAULT_USER_SETTINGS
}

/** Stores whether the user's same-named uploads become new versions; answers the settings. */
export async function setUpdateIfExist(ctx: AppContext, by: Principal, value: boolean): Promise<UserSettings> {
  const settings = { ...(await userSettings(ctx, by)), updateIfExist: value }
  await ctx.store.userSettings.set(by.user.id, settings)
  return settings
}

/** An upload whose bytes are stored and whose place is not settled yet. */
export interface StagedUpload {
  by: Principal
  folder: FolderRecord
  title: string
  blob: StoredBlob
}

/** Stores an upload's bytes for `folder` (already checked writable for `by`), its name repaired. */
export async function stageUpload(
  ctx: AppContext,
  by: Principal,
  folder: FolderRecord,
  wanted: string,
  body: Readable,
  expectedSize: number | undefined,
): Promise<StagedUpload> {
  let title: string
  try {
    title = repairName(wanted)
  } catch (error) {
    body.resume()
    throw error
  }
  if (expectedSize !== undefined) {
    // A declared size past the owner's quota is refused before its bytes are stored.
    try {
      await assertRoomFor(ctx, folder.ownerId, expectedSize)
    } catch (error) {
      body.resume()
      throw error
    }
  }
  return { by, folder, title, blob: await storeBody(ctx, body, expectedSize) }
}

/** Drops a staged upload that will not be settled (the request failed). */
export async function discardUpload(ctx: AppContext, staged: StagedUpload): Promise<void> {
  await ctx.blobs.delete(staged.blob.key).catch(() => undefined)
}

/** True when `by` may store a new version of `file` (the access policy's 'edit'). */
async function mayEdit(ctx: AppContext, by: Principal, file: FileRecord): Promise<boolean> {
  try {
    await authorize(ctx, by, 'edit', file)
    return true
  } catch (error) {
    if (isDomainError(error) && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN')) return false
    throw error
  }
}

/**
 * Settles a staged upload. With `createNewIfExist` false (or left out while the user's
 * setting says so) a file of the same name that the uploader may edit gets the bytes as
 * its newest version, through the same "store new contents" as every other save (the
 * access and lock policies asked there); otherwise a new file is made under the first
 * free name of the series.
 */
export async function settleUpload(
  ctx: AppContext,
  staged: StagedUpload,
  createNewIfExist: boolean | undefined,
): Promise<FileRecord> {
  const { by, folder, title, blob } = staged
  let existing: FileRecord | undefined
  try {
    const keepBoth = createNewIfExist ?? !(await userSettings(ctx, by)).updateIfExist
    existing = keepBoth ? undefined : await ctx.store.files.findByTitle(folder.id, title)
    if (existing !== undefined && !(await mayEdit(ctx, by, existing))) existing = undefined
  } catch (error) {
    await discardUpload(ctx, staged)
    throw error
  }
  if (existing !== undefined) {
    return storeNewContents(ctx, existing.id, { by, body: blob, source: 'upload', current: existing })
  }
  return createFileFromBlob(ctx, {
    ownerId: folder.ownerId,
    folderId: folder.id,
    title,
    blob,
    source: 'upload',
    userId: by.user.id,
  })
}

/**
 * Settles the uploads of one request, all or nothing as far as the rules go: their bytes
 * together must fit each owner's quota before any is placed, so a batch past the quota
 * stores none of them; then each is settled in order, and a failure drops the rest (a
 * storage failure keeps those placed before it).
 */
export async function settleUploads(
  ctx: AppContext,
  staged: readonly StagedUpload[],
  createNewIfExist: boolean | undefined,
): Promise<FileRecord[]> {
  const bytesByOwner = new Map<string, number>()
  for (const upload of staged) {
    bytesByOwner.set(upload.folder.ownerId, (bytesByOwner.get(upload.folder.ownerId) ?? 0) + upload.blob.size)
  }
  try {
    for (const [ownerId, bytes] of bytesByOwner) await assertRoomFor(ctx, ownerId, bytes)
  } catch (error) {
    await Promise.all(staged.map((upload) => discardUpload(ctx, upload)))
    throw error
  }
  const stored: FileRecord[] = []
  for (const [index, upload] of staged.entries()) {
    try {
      stored.push(await settleUpload(ctx, upload, createNewIfExist))
    } catch (error) {
      await Promise.all(staged.slice(index + 1).map((rest) => discardUpload(ctx, rest)))
      throw error
    }
  }
  return stored
}
