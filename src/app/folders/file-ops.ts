import { DomainError, isDomainError } from '../../core/errors.js'
import { newId } from '../../core/ids.js'
import { candidateNames } from '../../core/names/file-names.js'
import type { FileRecord, FolderRecord, VersionRecord } from '../../core/entities.js'
import { allows } from '../../core/sharing/access-levels.js'
import { accessLevel, authorize, authorizeFolder, fileFor, folderView, type Principal } from '../access.js'
import { fileSubject, principalActor, recordAudit } from '../audit.js'
import { compareAndSet, RETRY } from '../compare-and-set.js'
import type { AppContext } from '../context.js'
import { prepareDrop } from '../editor-notices.js'
import { deleteBlobsOf, deleteFile as removeFile, mutateFile, withFreeName } from '../files/files.js'
import { folderFor, ownRoot, pathOf, type FolderRef } from './folders.js'
import { assertLockAllows, NO_LOCK_CLAIM } from '../lock-policy.js'
import { rootFolder } from '../roots.js'
import { enqueueIndexing } from '../search/index-version-job.js'
import { enqueueThumbnail } from '../conversion/thumbnail-job.js'
import { assertRoomFor } from '../accounts/quota.js'

/** What to do when the destination holds an item of the same name (Workspace's numbers). */
export type ConflictResolution = 'skip' | 'overwrite' | 'duplicate'

/** Which items an operation acts on. */
export interface ItemSelection {
  folderIds: readonly string[]
  fileIds: readonly string[]
  /** For a download: files sent converted, by id, to the format named ('.pdf' or 'pdf'). */
  convert?: ReadonlyMap<string, string>
}

/**
 * What an operation has done so far, counted as it goes: `result` holds the selected items
 * finished (the operation's result when it ends), `files` and `folders` count every item
 * written, moved or deleted at any depth, so one that stops early can say what it did.
 */
export interface OperationProgress {
  result: OperationResult
  files: number
  folders: number
}

/** A progress with nothing done yet. */
export function newProgress(): OperationProgress {
  return { result: { files: [], folders: [], skipped: 0 }, files: 0, folders: 0 }
}

/** What an operation did: the items it left at their destination (or deleted). */
export interface OperationResult {
  /** With `convertTo` on the files a download sends converted. */
  files: Array<FileRecord & { convertTo?: string }>
  folders: FolderRecord[]
  /** Items it left alone (a name clash under 'skip'). */
  skipped: number
}

/** True when `by` may see `file` (a Restrict entry or no share hides it). */
async function sees(ctx: AppContext, by: Principal, file: FileRecord): Promise<boolean> {
  return file.ownerId === by.user.id || (await accessLevel(ctx, by, file)) !== 'none'
}

/** True when `by` may see `folder`. */
async function seesFolder(ctx: AppContext, by: Principal, folder: FolderRecord): Promise<boolean> {
  return folder.ownerId === by.user.id || (await folderView(ctx, by, folder)).level !== 'none'
}

/** True when `by` may add to `folder` now (ReadWrite or owner), read when it is reached. */
async function mayWriteInto(ctx: AppContext, by: Principal, folder: FolderRecord): Promise<boolean> {
  if (folder.ownerId === by.user.id && by.kind === 'user' && by.grant !== 'read') return true
  try {
    await authorizeFolder(ctx, by, 'create', folder)
    return true
  } catch (error) {
    if (isDomainError(error) && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN')) return false
    throw error
  }
}

async function destinationOf(ctx: AppContext, by: Principal, ref: FolderRef) {
  const folder = await folderFor(ctx, by, ref, 'create')
  const { rootType } = await pathOf(ctx, folder.id)
  return { folder, inTrash: rootType === 'trash' }
}

/** The first name of `wanted`'s series no folder under `parentId` has. */
async function freeFolderName(ctx: AppContext, parentId: string, wanted: string): Promise<string> {
  for (const name of candidateNames(wanted)) {
    if (!(await ctx.store.folders.titleExists(parentId, name))) return name
  }
  throw new DomainError('NAME_TAKEN', 'no free name could be derived from this title')
}

/**
 * Moves a file into `dest`, keeping its id, versions, lock and editing sessions (a move
 * changes the row's folder only). Into a trash it records when and where from; out of
 * one it forgets both. Undefined when skipped.
 */
async function moveFile(
  ctx: AppContext,
  by: Principal,
  file: FileRecord,
  dest: { folder: FolderRecord; inTrash: boolean },
  conflict: ConflictResolution,
  progress: OperationProgress,
): Promise<FileRecord | undefined> {
  const now = ctx.clock.now()
  const place = (fresh: FileRecord, title: string) => ({
    folderId: dest.folder.id,
    title,
    trashedAt: dest.inTrash ? (fresh.trashedAt ?? now) : null,
    originFolderId: dest.inTrash ? (fresh.originFolderId ?? fresh.folderId) : null,
  })
  const write = async (title: string) => {
    const moved = await mutateFile(ctx, file.id, (fresh) => {
      if (fresh.folderId === dest.folder.id && fresh.title === title) return undefined
      return place(fresh, title)
    })
    progress.files++
    return moved
  }
  if (file.folderId === dest.folder.id) return file
  const existing = await ctx.store.files.findByTitle(dest.folder.id, file.title)
  if (existing !== undefined && conflict === 'skip') return undefined
  if (existing !== undefined && conflict === 'overwrite') {
    await deleteForGood(ctx, by, existing, progress)
    return write(file.title)
  }
  return withFreeName(ctx, dest.folder.id, file.title, write)
}

/** The folder directly under `parentId` named `title` (compared without regard to case). */
async function folderNamed(ctx: AppContext, parentId: string, title: string): Promise<FolderRecord | undefined> {
  const wanted = title.toLowerCase()
  const page = 500
  for (let offset = 0; ; offset += page) {
    const found = await ctx.store.folders.list({
      parentId,
      offset,
      limit: page,
      sortBy: 'title',
      descending: false,
      titleContains: title,
    })
    const match = found.items.find((folder) => folder.title.toLowerCase() === wanted)
    if (match !== undefined) return match
    if (found.items.length < page) return undefined
  }
}

/**
 * Moves a folder (one row update: its content follows) into `dest`. With 'overwrite' and a
 * folder of the same name there, the two are merged as Workspace does: the content moves
 * into the existing folder (files of the same name replaced, folders of the same name
 * merged in turn) and the emptied folder goes. A merge is item by item: a crash midway
 * leaves each item whole, in one folder or the other.
 */
async function moveFolder(
  ctx: AppContext,
  by: Principal,
  folder: FolderRecord,
  dest: { folder: FolderRecord; inTrash: boolean },
  conflict: ConflictResolution,
  progress: OperationProgress,
): Promise<FolderRecord | undefined> {
  if (folder.parentId === dest.folder.id) return folder
  if (conflict === 'skip' && (await ctx.store.folders.titleExists(dest.folder.id, folder.title))) {
    return undefined
  }
  if (conflict === 'overwrite') {
    const existing = await folderNamed(ctx, dest.folder.id, folder.title)
    if (existing !== undefined && existing.id !== folder.id) {
      return mergeFolder(ctx, by, folder, existing, dest.inTrash, progress)
    }
  }
  const now = ctx.clock.now()
  const moved = await compareAndSet(async () => {
    const fresh = await ctx.store.folders.findById(folder.id)
    if (fresh === undefined) throw new DomainError('NOT_FOUND', 'folder not found')
    const title = await freeFolderName(ctx, dest.folder.id, fresh.title)
    try {
      const moved = await ctx.store.folders.update(fresh.id, fresh.revision, {
        parentId: dest.folder.id,
        title,
        trashedAt: dest.inTrash ? (fresh.trashedAt ?? now) : null,
        originFolderId: dest.inTrash ? (fresh.originFolderId ?? fresh.parentId) : null,
      })
      return moved ?? RETRY
    } catch (error) {
      if (isDomainError(error) && error.code === 'NAME_TAKEN') return RETRY
      throw error
    }
  })
  progress.folders++
  return moved
}

/** Moves everything in `source` into `target` with 'overwrite', then removes `source`. */
async function mergeFolder(
  ctx: AppContext,
  by: Principal,
  source: FolderRecord,
  target: FolderRecord,
  inTrash: boolean,
  progress: OperationProgress,
): Promise<FolderRecord> {
  const { path } = await pathOf(ctx, target.id)
  if (path.some((f) => f.id === source.id)) {
    throw new DomainError('INVALID_INPUT', 'a folder cannot be moved into itself or its sub-folders')
  }
  const into = { folder: target, inTrash }
  const page = { offset: 0, limit: 500, sortBy: 'title', descending: false } as const
  // Each pass moves what it read out of `source`, so the next one starts at the top again.
  for (;;) {
    const files = await ctx.store.files.list({ ...page, folderId: source.id })
    for (const file of files.items) await moveFile(ctx, by, file, into, 'overwrite', progress)
    if (files.items.length < page.limit) break
  }
  for (;;) {
    const folders = await ctx.store.folders.list({ ...page, parentId: source.id })
    for (const folder of folders.items) await moveFolder(ctx, by, folder, into, 'overwrite', progress)
    if (folders.items.length < page.limit) break
  }
  // Empty now; anything that arrived meanwhile stays (the revision check refuses).
  const emptied = await ctx.store.folders.findById(source.id)
  if (emptied !== undefined) await deleteFolderForGood(ctx, emptied, progress, true)
  return target
}

/**
 * The files a move or copy of `items` into `destRef` would replace with 'overwrite' (or
 * leave alone with 'skip'): files of the same name in the destination, and inside folders
 * the destination holds under the same name, the same again (Workspace's
 * `GET files/fileops/move`). Changes nothing. Lists only what `by` may see, and looks
 * only into folders `by` may see: a name inside a hidden folder, or of a hidden file,
 * answers as a free name does.
 */
export async function moveConflicts(
  ctx: AppContext,
  by: Principal,
  items: ItemSelection,
  destRef: FolderRef,
): Promise<FileRecord[]> {
  const dest = await destinationOf(ctx, by, destRef)
  const found: FileRecord[] = []
  const limit = 1000
  const inFolder = async (source: FolderRecord, target: FolderRecord): Promise<void> => {
    const page = { offset: 0, limit: 500, sortBy: 'title', descending: false } as const
    for (let offset = 0; found.length < limit; offset += page.limit) {
      const files = await ctx.store.files.list({ ...page, offset, folderId: source.id })
      for (const file of files.items) {
        if (!(await sees(ctx, by, file))) continue
        const clash = await ctx.store.files.findByTitle(target.id, file.title)
        if (clash !== undefined && (await sees(ctx, by, clash))) found.push(clash)
      }
      if (files.items.length < page.limit) break
    }
    for (let offset = 0; found.length < limit; offset += page.limit) {
      const folders = await ctx.store.folders.list({ ...page, offset, parentId: source.id })
      for (const folder of folders.items) {
        if (!(await seesFolder(ctx, by, folder))) continue
        const twin = await folderNamed(ctx, target.id, folder.title)
        if (twin !== undefined && twin.id !== folder.id && (await seesFolder(ctx, by, twin)))
          await inFolder(folder, twin)
      }
      if (folders.items.length < page.limit) break
    }
  }
  for (const fileId of items.fileIds) {
    const file = await fileFor(ctx, by, fileId, 'read')
    const clash = await ctx.store.files.findByTitle(dest.folder.id, file.title)
    if (clash !== undefined && clash.id !== file.id && (await sees(ctx, by, clash))) found.push(clash)
  }
  for (const folderId of items.folderIds) {
    const folder = await folderFor(ctx, by, folderId, 'read')
    const twin = await folderNamed(ctx, dest.folder.id, folder.title)
    if (twin !== undefined && twin.id !== folder.id && (await seesFolder(ctx, by, twin))) await inFolder(folder, twin)
  }
  return found.slice(0, limit)
}

/** Moves files and folders into `destRef` (restoring them when they come out of a trash). */
export async function moveItems(
  ctx: AppContext,
  by: Principal,
  items: ItemSelection,
  destRef: FolderRef,
  conflict: ConflictResolution,
  progress: OperationProgress = newProgress(),
): Promise<OperationResult> {
  const dest = await destinationOf(ctx, by, destRef)
  // Only owners move (see access-levels), and never into another person's tree, where the
  // item would lie in a folder whose owner could not see it: a sharee copies instead.
  if (dest.folder.ownerId !== by.user.id) {
    throw new DomainError('FORBIDDEN', 'items can only be moved into your own folders; copy them instead')
  }
  const { result } = progress
  for (const folderId of items.folderIds) {
    const folder = await folderFor(ctx, by, folderId, 'move')
    const moved = await moveFolder(ctx, by, folder, dest, conflict, progress)
    if (moved === undefined) result.skipped++
    else result.folders.push(moved)
  }
  for (const fileId of items.fileIds) {
    const file = await fileFor(ctx, by, fileId, 'move')
    const moved = await moveFile(ctx, by, file, dest, conflict, progress)
    if (moved === undefined) result.skipped++
    else result.files.push(moved)
  }
  return result
}

/**
 * Copies one file into `dest`: a new file whose first version shares the source's
 * current blob (bytes are deleted only when no version of any file uses them any more).
 */
async function copyFile(
  ctx: AppContext,
  by: Principal,
  source: FileRecord,
  dest: FolderRecord,
  conflict: ConflictResolution,
  progress: OperationProgress,
): Promise<FileRecord | undefined> {
  const destId = dest.id
  const existing = await ctx.store.files.findByTitle(destId, source.title)
  if (existing !== undefined && conflict === 'skip') return undefined
  // A copy into the file's own folder always gets a free name; no overwrite of itself.
  if (existing !== undefined && existing.id !== source.id && conflict === 'overwrite') {
    // A file the caller may not delete (hidden from him, or not his) is left alone, and the
    // copy is skipped: it is not replaced, and no other name tells it is there.
    if (!(await sees(ctx, by, existing)) || !allows(await accessLevel(ctx, by, existing), 'delete')) return undefined
    await deleteForGood(ctx, by, existing, progress)
  }
  const now = ctx.clock.now()
  const create = async (title: string) => {
    const file: FileRecord = {
      id: newId(),
      // A copy belongs to whoever owns the folder it lands in (a sharee copying into a
      // folder shared with them ReadWrite adds to the owner's tree).
      ownerId: dest.ownerId,
      folderId: destId,
      title,
      version: 1,
      size: source.size,
      sha256: source.sha256,
      blobKey: source.blobKey,
      createdAt: now,
      createdBy: by.user.id,
      updatedAt: now,
      updatedBy: by.user.id,
      lock: null,
      keyVersion: 1,
      revision: 0,
      trashedAt: null,
      originFolderId: null,
    }
    const version: VersionRecord = {
      fileId: file.id,
      version: 1,
      blobKey: source.blobKey,
      size: source.size,
      sha256: source.sha256,
      createdAt: now,
      createdBy: by.user.id,
      source: 'copy',
      meta: { copiedFrom: source.id, copiedVersion: source.version },
    }
    // A copy adds its bytes to the destination owner's used space (blob shared or not).
    await assertRoomFor(ctx, dest.ownerId, source.size)
    await ctx.store.files.create(file, version)
    progress.files++
    void enqueueIndexing(ctx, file.id)
    void enqueueThumbnail(ctx, file.id)
    return file
  }
  return withFreeName(ctx, destId, source.title, create)
}

/**
 * Copies a folder's tree into `dest`, folder by folder. With 'overwrite' and a folder of
 * the same name there, the content is copied into that folder (files of the same name
 * replaced, folders of the same name merged in turn), as Workspace does.
 */
async function copyFolder(
  ctx: AppContext,
  by: Principal,
  source: FolderRecord,
  dest: FolderRecord,
  conflict: ConflictResolution,
  progress: OperationProgress,
): Promise<FolderRecord | undefined> {
  const destId = dest.id
  if (conflict === 'skip' && (await ctx.store.folders.titleExists(destId, source.title))) return undefined
  if (conflict === 'overwrite') {
    const existing = await folderNamed(ctx, destId, source.title)
    if (existing !== undefined && existing.id !== source.id) {
      // Merged into only when the caller may add to it now: a folder marked Restrict or
      // Read for him is not written into, and the copy of this folder is skipped.
      if (!(await mayWriteInto(ctx, by, existing))) return undefined
      await copyContents(ctx, by, source, existing, 'overwrite', progress)
      return existing
    }
  }
  const now = ctx.clock.now()
  const copy: FolderRecord = {
    id: newId(),
    ownerId: dest.ownerId,
    parentId: destId,
    title: await freeFolderName(ctx, destId, source.title),
    rootType: null,
    createdAt: now,
    createdBy: by.user.id,
    updatedAt: now,
    updatedBy: by.user.id,
    revision: 1,
    trashedAt: null,
    originFolderId: null,
  }
  await ctx.store.folders.create(copy)
  progress.folders++
  await copyContents(ctx, by, source, copy, 'duplicate', progress)
  return copy
}

/** Copies the files and folders of `source` into `into`, resolving clashes by `conflict`. */
async function copyContents(
  ctx: AppContext,
  by: Principal,
  source: FolderRecord,
  into: FolderRecord,
  conflict: ConflictResolution,
  progress: OperationProgress,
): Promise<void> {
  const page = 500
  // Decided again at every item, as access may end mid-way: the folder written into must
  // still take the caller's items (NOT_FOUND or FORBIDDEN stops the copy), and an item he
  // cannot see is skipped when a Restrict entry hides it, or stops the copy when his access
  // to the folder it comes from has ended.
  const stillWritable = async () => {
    if (into.ownerId !== by.user.id) await authorizeFolder(ctx, by, 'create', into)
  }
  const hiddenOrRevoked = () => authorizeFolder(ctx, by, 'read', source)
  for (let offset = 0; ; offset += page) {
    const files = await ctx.store.files.list({
      folderId: source.id,
      offset,
      limit: page,
      sortBy: 'title',
      descending: false,
    })
    for (const file of files.items) {
      // A sharee copies only what they can see (a Restrict entry hides a file).
      if (!(await sees(ctx, by, file))) {
        await hiddenOrRevoked()
        continue
      }
      await stillWritable()
      await copyFile(ctx, by, file, into, conflict, progress)
    }
    if (files.items.length < page) break
  }
  for (let offset = 0; ; offset += page) {
    const folders = await ctx.store.folders.list({
      parentId: source.id,
      offset,
      limit: page,
      sortBy: 'title',
      descending: false,
    })
    for (const folder of folders.items) {
      if (folder.id === into.id) continue
      if (!(await seesFolder(ctx, by, folder))) {
        await hiddenOrRevoked()
        continue
      }
      await stillWritable()
      await copyFolder(ctx, by, folder, into, conflict, progress)
    }
    if (folders.items.length < page) break
  }
}

/** Copies files and folders into `destRef` (not into a trash). */
export async function copyItems(
  ctx: AppContext,
  by: Principal,
  items: ItemSelection,
  destRef: FolderRef,
  conflict: ConflictResolution,
  progress: OperationProgress = newProgress(),
): Promise<OperationResult> {
  const dest = await destinationOf(ctx, by, destRef)
  if (dest.inTrash) throw new DomainError('INVALID_INPUT', 'items cannot be copied into the trash')
  const { result } = progress
  for (const folderId of items.folderIds) {
    const folder = await folderFor(ctx, by, folderId, 'read')
    const { path } = await pathOf(ctx, dest.folder.id)
    if (path.some((f) => f.id === folder.id)) {
      throw new DomainError('INVALID_INPUT', 'a folder cannot be copied into itself or its sub-folders')
    }
    const copy = await copyFolder(ctx, by, folder, dest.folder, conflict, progress)
    if (copy === undefined) result.skipped++
    else result.folders.push(copy)
  }
  for (const fileId of items.fileIds) {
    const file = await fileFor(ctx, by, fileId, 'read')
    const copy = await copyFile(ctx, by, file, dest.folder, conflict, progress)
    if (copy === undefined) result.skipped++
    else result.files.push(copy)
  }
  return result
}

/** Deletes a file, its versions and the bytes no other file uses, for good. */
async function deleteForGood(
  ctx: AppContext,
  by: Principal,
  file: FileRecord,
  progress: OperationProgress,
): Promise<void> {
  await authorize(ctx, by, 'delete', file)
  const dropEditors = await prepareDrop(ctx, file)
  await removeFile(ctx, file.id, {
    precondition: (fresh) => assertLockAllows(fresh, NO_LOCK_CLAIM, 'delete', ctx.clock.now()),
  })
  progress.files++
  dropEditors()
  await recordAudit(ctx, 'file-deleted', principalActor(by), fileSubject(file))
}

/**
 * Deletes a folder's tree, its files and the bytes no other file uses, for good. With
 * `onlyAsRead` nothing goes if the folder changed since it was read (say, restored).
 */
async function deleteFolderForGood(
  ctx: AppContext,
  folder: FolderRecord,
  progress: OperationProgress,
  onlyAsRead = false,
): Promise<void> {
  const deletion = await ctx.store.folders.delete(folder.id, onlyAsRead ? folder.revision : undefined)
  if (deletion.outcome !== 'deleted') return
  progress.folders++
  await deleteBlobsOf(ctx, deletion.blobKeys)
}

/**
 * Before a folder is deleted (into the trash or for good): the step that tells the
 * ONLYOFFICE editors of every file inside it that their file is gone, as a single file's
 * delete does. The rule is the single file's: the portal's delete is not refused by a
 * WOPI lock (that lock judges WOPI clients' writes); a trashed file keeps its lock and
 * answers 404 to WOPI until it is restored, a file deleted for good is gone with it.
 */
async function prepareFolderDrop(ctx: AppContext, folder: FolderRecord): Promise<() => void> {
  const steps: Array<() => void> = []
  for (const file of await ctx.store.folders.busyFilesInside(folder.id, ctx.clock.now())) {
    steps.push(await prepareDrop(ctx, file))
  }
  return () => {
    for (const step of steps) step()
  }
}

/**
 * Moves a file to its owner's trash, as the lock policy judges a delete through this door
 * (a portal delete is not refused by a WOPI lock; the file keeps it, and WOPI answers 404
 * until it is restored). Editors that have it open are told it is gone.
 */
async function trashFile(
  ctx: AppContext,
  by: Principal,
  file: FileRecord,
  progress: OperationProgress,
): Promise<FileRecord> {
  assertLockAllows(file, NO_LOCK_CLAIM, 'delete', ctx.clock.now())
  const trash = { folder: await rootFolder(ctx, file.ownerId, 'trash'), inTrash: true }
  const dropEditors = await prepareDrop(ctx, file)
  const moved = await moveFile(ctx, by, file, trash, 'duplicate', progress)
  if (moved === undefined) throw new Error('a move into the trash was skipped')
  dropEditors()
  await recordAudit(ctx, 'file-deleted', principalActor(by), fileSubject(moved), 'to the trash')
  return moved
}

/**
 * Deletes files and folders: into the owner's trash, or for good when `immediately` or
 * when they are in a trash already (freeing bytes no other file uses).
 */
export async function deleteItems(
  ctx: AppContext,
  by: Principal,
  items: ItemSelection,
  immediately: boolean,
  progress: OperationProgress = newProgress(),
): Promise<OperationResult> {
  const { result } = progress
  for (const folderId of items.folderIds) {
    // Into the trash needs 'trash' (full access inside a shared folder will do); for good,
    // 'delete' (the owner's alone; a sharee never reaches a trash).
    const folder = await folderFor(ctx, by, folderId, immediately ? 'delete' : 'trash')
    if (folder.parentId === null) throw new DomainError('INVALID_INPUT', 'a root folder cannot be deleted')
    const { rootType } = await pathOf(ctx, folder.id)
    const dropEditors = await prepareFolderDrop(ctx, folder)
    if (immediately || rootType === 'trash') {
      await deleteFolderForGood(ctx, folder, progress)
      result.folders.push(folder)
    } else {
      const trash = { folder: await rootFolder(ctx, folder.ownerId, 'trash'), inTrash: true }
      const moved = await moveFolder(ctx, by, folder, trash, 'duplicate', progress)
      if (moved !== undefined) result.folders.push(moved)
    }
    dropEditors()
  }
  for (const fileId of items.fileIds) {
    const file = await fileFor(ctx, by, fileId, immediately ? 'delete' : 'trash')
    const inTrash = file.trashedAt !== null || (await pathOf(ctx, file.folderId)).rootType === 'trash'
    if (immediately || inTrash) {
      await deleteForGood(ctx, by, file, progress)
      result.files.push(file)
    } else {
      result.files.push(await trashFile(ctx, by, file, progress))
    }
  }
  return result
}

/** Deletes everything in `by`'s trash for good. */
export async function emptyTrash(
  ctx: AppContext,
  by: Principal,
  progress: OperationProgress = newProgress(),
): Promise<OperationResult> {
  const trash = await ownRoot(ctx, by, 'trash')
  await authorizeFolder(ctx, by, 'delete', trash)
  const { result } = progress
  const page = { offset: 0, limit: 500, sortBy: 'title', descending: false } as const
  for (;;) {
    const folders = await ctx.store.folders.list({ ...page, parentId: trash.id })
    for (const folder of folders.items) {
      await deleteFolderForGood(ctx, folder, progress)
      result.folders.push(folder)
    }
    if (folders.items.length < page.limit) break
  }
  for (;;) {
    const files = await ctx.store.files.list({ ...page, folderId: trash.id })
    let progressed = false
    for (const file of files.items) {
      try {
        await deleteForGood(ctx, by, file, progress)
        result.files.push(file)
        progressed = true
      } catch (error) {
        // A locked file stays (its lock holder may still save it); the rest goes.
        if (!isDomainError(error) || error.code !== 'LOCK_MISMATCH') throw error
        result.skipped++
      }
    }
    if (files.items.length < page.limit || !progressed) break
  }
  return result
}

/**
 * Puts trashed items back where they came from: their origin folder when it still exists
 * outside a trash, else the owner's 'my' root (a free name when the old one is taken).
 */
export async function restoreItems(
  ctx: AppContext,
  by: Principal,
  items: ItemSelection,
  progress: OperationProgress = newProgress(),
): Promise<OperationResult> {
  const { result } = progress
  const targetOf = async (ownerId: string, originId: string | null) => {
    if (originId !== null) {
      const origin = await ctx.store.folders.findById(originId)
      if (origin !== undefined && origin.ownerId === ownerId) {
        const { rootType } = await pathOf(ctx, origin.id)
        if (rootType === 'my') return { folder: origin, inTrash: false }
      }
    }
    return { folder: await rootFolder(ctx, ownerId, 'my'), inTrash: false }
  }
  for (const folderId of items.folderIds) {
    const folder = await folderFor(ctx, by, folderId, 'move')
    const target = await targetOf(folder.ownerId, folder.originFolderId)
    const moved = await moveFolder(ctx, by, folder, target, 'duplicate', progress)
    if (moved !== undefined) result.folders.push(moved)
  }
  for (const fileId of items.fileIds) {
    const file = await fileFor(ctx, by, fileId, 'delete')
    const moved = await moveFile(
      ctx,
      by,
      file,
      await targetOf(file.ownerId, file.originFolderId),
      'duplicate',
      progress,
    )
    if (moved !== undefined) result.files.push(moved)
  }
  return result
}
