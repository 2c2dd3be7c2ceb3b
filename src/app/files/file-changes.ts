import { Readable } from 'node:stream'
import { DomainError, isDomainError } from '../../core/errors.js'
import {
  candidateNames,
  normalizeFileName,
  resolveSuggestedTarget,
  sanitizeFileName,
  splitExtension,
  validateFileName,
} from '../../core/names/file-names.js'
import { currentLock } from '../../core/lock/lock-rules.js'
import { assertValidTitle } from '../../core/names/name-rules.js'
import type { FileRecord, FolderRecord, VersionSource } from '../../core/entities.js'
import { allows } from '../../core/sharing/access-levels.js'
import { accessLevel, authorize, authorizeFolder, fileFor, type FileAction, type Principal } from '../access.js'
import { fileSubject, principalActor, recordAudit } from '../audit.js'
import type { StoredBlob } from '../../ports/blob-store.js'
import type { AppContext } from '../context.js'
import { announceRename, dropStaleEditors, prepareDrop } from '../editor-notices.js'
import {
  commitNewVersion,
  createFileFromBlob,
  deleteFile as removeFile,
  getFile,
  mutateFile,
  storeBody,
  withFreeName,
  type NewFileInput,
} from './files.js'
import { assertLockAllows, NO_LOCK_CLAIM, type LockClaim } from '../lock-policy.js'
import { rootFolder } from '../roots.js'
import { enqueueIndexing } from '../search/index-version-job.js'

/**
 * The changes to a file every door shares: one rename, one delete, one "store new
 * contents" and the WOPI "put relative". Each asks the access policy, honours the lock
 * policy for its claim and tells open editors about renames and deletes.
 */

export { fileFor } from '../access.js'

/** How a rename treats a name the owner has already. */
export type NameClash = 'refuse' | 'next-free'

export interface RenameInput {
  by: Principal
  title: string
  /** 'refuse' (NAME_TAKEN, the portal) or 'next-free' ('Report (2).docx', WOPI). */
  onClash: NameClash
  claim?: LockClaim
  /** The record the caller read already (its first decision starts from it). */
  current?: FileRecord
}

/**
 * Renames a file. NAME_INVALID for an illegal name; on a clash, NAME_TAKEN or the first
 * free name of the series (see withFreeName), as `onClash` says; LOCK_MISMATCH when the
 * lock policy refuses. Open editors are told the new title.
 */
export async function renameFile(ctx: AppContext, fileId: string, input: RenameInput): Promise<FileRecord> {
  const original = input.current ?? (await getFile(ctx, fileId))
  await authorize(ctx, input.by, 'rename', original)
  // A 'next-free' title was repaired by the caller; its variants are legal by construction.
  // Either way the name is composed to NFC first: typed in NFD it is the same name.
  const wanted = input.onClash === 'refuse' ? assertValidTitle(input.title) : normalizeFileName(input.title)
  const claim = input.claim ?? NO_LOCK_CLAIM
  assertLockAllows(original, claim, 'rename', ctx.clock.now())
  const rename = (title: string) =>
    mutateFile(ctx, original.id, (fresh) => {
      assertLockAllows(fresh, claim, 'rename', ctx.clock.now())
      if (fresh.title === title) return undefined
      return { title, updatedAt: ctx.clock.now(), updatedBy: input.by.user.id }
    })
  let renamed: FileRecord
  if (input.onClash === 'refuse') {
    renamed = await rename(wanted)
  } else {
    try {
      renamed = await withFreeName(ctx, original.folderId, wanted, rename, original.title)
    } catch (error) {
      if (!isDomainError(error) || error.code !== 'NAME_TAKEN') throw error
      throw new DomainError('NAME_INVALID', 'no legal, free file name can be derived from the requested name', {
        field: 'title',
      })
    }
  }
  announceRename(ctx, renamed)
  // The index holds the title's words too.
  if (renamed.title !== original.title) void enqueueIndexing(ctx, renamed.id)
  return renamed
}

/**
 * Deletes a file, its versions and their contents; LOCK_MISMATCH while the lock policy
 * refuses (judged on the row the delete is conditional on, so a Lock landing in between
 * makes the delete decide again). Open editors lose the right to save.
 */
export async function deleteFile(
  ctx: AppContext,
  fileId: string,
  input: { by: Principal; claim?: LockClaim },
): Promise<void> {
  const file = await fileFor(ctx, input.by, fileId, 'delete')
  const claim = input.claim ?? NO_LOCK_CLAIM
  const dropEditors = await prepareDrop(ctx, file)
  await removeFile(ctx, fileId, {
    precondition: (fresh) => assertLockAllows(fresh, claim, 'delete', ctx.clock.now()),
  })
  dropEditors()
  await recordAudit(ctx, 'file-deleted', principalActor(input.by), fileSubject(file))
}

export interface NewContentsInput {
  by: Principal
  /** The new contents, or contents already in the blob store (deleted if the save is refused). */
  body: Readable | StoredBlob
  /** Declared size of the body, when known (refused at once when over the limit). */
  expectedSize?: number
  source: VersionSource
  meta?: Record<string, unknown>
  claim?: LockClaim
  /** The record the caller read already (its first decision starts from it). */
  current?: FileRecord
}

/**
 * Stores new contents as the file's newest version: the lock policy is asked before the
 * body is read (a doomed upload is refused at once) and again on the fresh row inside the
 * commit. A failed save leaves the previous contents and version as they were.
 */
export async function storeNewContents(ctx: AppContext, fileId: string, input: NewContentsInput): Promise<FileRecord> {
  const { body } = input
  let file: FileRecord
  const claim = input.claim ?? NO_LOCK_CLAIM
  try {
    file = input.current ?? (await getFile(ctx, fileId))
    await authorize(ctx, input.by, 'edit', file)
    assertLockAllows(file, claim, 'put', ctx.clock.now())
  } catch (error) {
    if (!(body instanceof Readable)) await ctx.blobs.delete(body.key).catch(() => undefined)
    throw error
  }
  const blob = body instanceof Readable ? await storeBody(ctx, body, input.expectedSize) : body
  const stored = await commitNewVersion(ctx, file.id, {
    blob,
    userId: input.by.user.id,
    source: input.source,
    ...(input.meta ? { meta: input.meta } : {}),
    precondition: (fresh) => assertLockAllows(fresh, claim, 'put', ctx.clock.now()),
    ...(input.current ? { current: input.current } : {}),
  })
  dropStaleEditors(ctx, stored, `new contents stored (${input.source})`)
  return stored
}

/** Where PutRelativeFile puts its file. */
export type RelativeTarget =
  /** A suggestion: repaired when illegal, the next free name when taken, never overwrites. */
  | { mode: 'suggested'; name: string }
  /** Exactly this name: NAME_TAKEN when taken, unless `overwrite`. */
  | { mode: 'specific'; name: string; overwrite: boolean }

export interface PutRelativeInput {
  by: Principal
  /** Read once the source's lock has been judged (a lock conflict answers first). */
  target: () => RelativeTarget
  body: Readable
  expectedSize?: number
  claim: LockClaim
  meta: Record<string, unknown>
}

/**
 * A new file from a body, next to `source` (WOPI PutRelativeFile). The source's lock comes
 * first; then the place and the name are settled before any byte is read (see
 * settleTarget): a suggestion is made legal and free, a specific name is used exactly
 * (NAME_TAKEN with a suggestedName and the target's lock when taken, unless overwriting,
 * which adds a version to the existing file and is refused while that file is locked).
 */
export async function putRelative(ctx: AppContext, source: FileRecord, input: PutRelativeInput): Promise<FileRecord> {
  await authorize(ctx, input.by, 'edit', source)
  // A link opens one file: a guest makes no new files beside it in the owner's folder.
  if (input.by.kind === 'link') throw new DomainError('FORBIDDEN', 'a share link does not allow saving a copy')
  assertLockAllows(source, input.claim, 'put-relative', ctx.clock.now())
  const wanted = input.target()
  const target = await settleTarget(ctx, input.by, source, wanted)
  if (target.existing) assertLockAllows(target.existing, input.claim, 'overwrite', ctx.clock.now())
  const blob = await storeBody(ctx, input.body, input.expectedSize)
  if (target.existing) {
    return commitNewVersion(ctx, target.existing.id, {
      blob,
      userId: input.by.user.id,
      source: 'wopi',
      meta: input.meta,
      precondition: (fresh) => assertLockAllows(fresh, input.claim, 'overwrite', ctx.clock.now()),
    })
  }
  const newFile: NewFileInput = {
    // The file belongs to the owner of the folder it lands in; who made it is the caller.
    ownerId: target.folder.ownerId,
    folderId: target.folder.id,
    title: target.name,
    blob,
    source: 'wopi',
    meta: input.meta,
    userId: input.by.user.id,
  }
  if (wanted.mode === 'suggested') return createFileFromBlob(ctx, newFile)
  try {
    return await createFileFromBlob(ctx, { ...newFile, exactTitle: true })
  } catch (error) {
    // Taken after the check: a clash like any other (the blob is removed either way).
    if (!isDomainError(error) || error.code !== 'NAME_TAKEN') throw error
    const existing = await ctx.store.files.findByTitle(target.folder.id, newFile.title)
    throw await nameTakenError(ctx, input.by, target.folder.id, newFile.title, existing)
  }
}

interface RelativePlace {
  folder: FolderRecord
  name: string
  /** The file a specific name with overwrite adds a version to (`by` may edit it). */
  existing?: FileRecord
}

/**
 * Where a relative file goes: the source's folder when `by` may create there, else his
 * own documents (as ONLYOFFICE puts a Save As it cannot place beside the original).
 */
async function relativeHome(ctx: AppContext, by: Principal, source: FileRecord): Promise<FolderRecord> {
  const folder = await ctx.store.folders.findById(source.folderId)
  if (folder !== undefined) {
    try {
      await authorizeFolder(ctx, by, 'create', folder)
      return folder
    } catch (error) {
      if (!isDomainError(error) || (error.code !== 'NOT_FOUND' && error.code !== 'FORBIDDEN')) throw error
    }
  }
  return rootFolder(ctx, by.user.id, 'my')
}

/**
 * The folder, name and (when overwriting) the file a relative file is written to. A name
 * taken in the source's folder by a file `by` cannot see is not his to learn of: the file
 * goes to his own documents under that name, answered as a free name would be (no
 * NAME_TAKEN, no suggestion). A file he sees but may not edit is never replaced: its name
 * counts as taken (NAME_TAKEN), overwrite or not.
 */
async function settleTarget(
  ctx: AppContext,
  by: Principal,
  source: FileRecord,
  target: RelativeTarget,
): Promise<RelativePlace> {
  let folder = await relativeHome(ctx, by, source)
  let name: string
  if (target.mode === 'suggested') {
    // A suggestion takes the first name of its series `by` sees free (see firstNameFreeFor).
    const repaired = repairSuggestedName(source.title, target.name)
    name = (await firstNameFreeFor(ctx, by, folder.id, repaired)) ?? repaired
  } else {
    name = specificName(target.name)
  }
  let existing = await ctx.store.files.findByTitle(folder.id, name)
  if (existing !== undefined && (await accessLevel(ctx, by, existing)) === 'none') {
    folder = await rootFolder(ctx, by.user.id, 'my')
    existing = await ctx.store.files.findByTitle(folder.id, name)
  }
  // A suggestion never overwrites: createFileFromBlob picks the next free name.
  if (target.mode === 'suggested' || existing === undefined) return { folder, name }
  if (!target.overwrite || !allows(await accessLevel(ctx, by, existing), 'edit')) {
    throw await nameTakenError(ctx, by, folder.id, name, existing)
  }
  return { folder, name, existing }
}

/** A specific name (X-WOPI-RelativeTarget), composed to NFC; NAME_INVALID when illegal. */
function specificName(requested: string): string {
  const name = normalizeFileName(requested)
  const check = validateFileName(name)
  if (!check.ok) {
    throw new DomainError('NAME_INVALID', `X-WOPI-RelativeTarget: ${check.reason}`, {
      field: 'X-WOPI-RelativeTarget',
    })
  }
  return name
}

/**
 * The name a suggestion stores: the resolved suggestion made legal. When its base has
 * nothing usable (say '\u0001.docx'), the source's base name is used with its extension.
 */
function repairSuggestedName(sourceTitle: string, suggested: string): string {
  const { base, extension } = splitExtension(resolveSuggestedTarget(sourceTitle, suggested))
  const usableBase = sanitizeFileName(base) ?? sanitizeFileName(splitExtension(sourceTitle).base)
  const repaired = usableBase === undefined ? undefined : sanitizeFileName(usableBase + extension)
  if (repaired !== undefined) return repaired
  throw new DomainError('NAME_INVALID', 'no legal file name can be derived from X-WOPI-SuggestedTarget', {
    field: 'X-WOPI-SuggestedTarget',
  })
}

/**
 * The first name of `wanted`'s series ('Report.docx', 'Report (2).docx'...) that `by` sees
 * free in `folderId`. A name taken by a file he cannot see counts as free, so that neither
 * a suggestion nor NAME_TAKEN's suggestedName skips over it and tells it is there (such a
 * name then sends the file to his own documents, see settleTarget).
 */
async function firstNameFreeFor(
  ctx: AppContext,
  by: Principal,
  folderId: string,
  wanted: string,
): Promise<string | undefined> {
  for (const candidate of candidateNames(wanted)) {
    const existing = await ctx.store.files.findByTitle(folderId, candidate)
    if (existing === undefined || (await accessLevel(ctx, by, existing)) === 'none') return candidate
  }
  return undefined
}

/** NAME_TAKEN for a taken specific name, suggesting the first variant `by` sees free and its lock. */
async function nameTakenError(
  ctx: AppContext,
  by: Principal,
  folderId: string,
  name: string,
  existing: FileRecord | undefined,
): Promise<DomainError> {
  const suggestedName = await firstNameFreeFor(ctx, by, folderId, name)
  const lock = existing ? currentLock(existing.lock, ctx.clock.now()) : undefined
  return new DomainError('NAME_TAKEN', `a file named ${JSON.stringify(name)} exists`, {
    ...(suggestedName !== undefined ? { suggestedName } : {}),
    currentLock: lock?.state === 'locked' ? lock.lockId : '',
  })
}
