/**
 * PutRelativeFile (PUT_RELATIVE): a new file from the body, next to the current one.
 *
 * Two modes (Microsoft's PutRelativeFile; exactly one of the two headers, else 400):
 * - suggested (X-WOPI-SuggestedTarget): '.ext' means original base + ext, anything else is
 *   the full name; Folio repairs an illegal name and picks a free one ('Name (2).ext'),
 *   never overwriting, keeping the extension;
 * - specific (X-WOPI-RelativeTarget): the name is used exactly; 400 when illegal; 409 with
 *   X-WOPI-ValidRelativeTarget when taken, unless X-WOPI-OverwriteRelativeTarget: true, in
 *   which case the existing file gets a new version, refused with 409 and its lock while
 *   it is locked.
 * The source file's lock (seed rule 1, fact sheet B4): no X-WOPI-Lock proceeds (ONLYOFFICE
 * Docs' Save As sends none while it holds the lock), the matching ID proceeds, a different
 * ID is 409. A token that may not write gets 501, as CheckFileInfo's UserCanNotWriteRelative
 * announced. The answer is {Name, Url, HostViewUrl, HostEditUrl}; Url carries a new token
 * for the new file with the caller's user and permission.
 */
import type { FastifyReply } from 'fastify'
import type { AppContext } from '../../app/context.js'
import { commitNewVersion, createFileFromBlob, storeBody } from '../../app/files.js'
import { DomainError } from '../../core/errors.js'
import { newId } from '../../core/ids.js'
import { currentLock, decideWrite } from '../../core/lock/lock-rules.js'
import {
  candidateNames,
  resolveSuggestedTarget,
  sanitizeFileName,
  splitExtension,
  validateFileName,
} from '../../core/names/file-names.js'
import type { StoredBlob } from '../../ports/blob-store.js'
import type { FileRecord, VersionRecord } from '../../ports/metadata-store.js'
import { issueWopiToken } from './access-token.js'
import type { WopiCall } from './authorize.js'
import { bodyStream } from './body.js'
import {
  readExpectedBodySize,
  readFileConversion,
  readLock,
  readOverwriteRelativeTarget,
  readRelativeTarget,
  readSuggestedTarget,
} from './headers.js'
import { lockConflictError } from './lock-operations.js'
import { presentRelativeFile } from './presenters.js'

type Target =
  | { mode: 'suggested'; name: string }
  | { mode: 'specific'; name: string; existing?: FileRecord }

/** POST /wopi/files/{id} with X-WOPI-Override: PUT_RELATIVE. */
export async function putRelativeFile(call: WopiCall): Promise<FastifyReply> {
  const { ctx, request, file: source } = call
  if (call.permission !== 'write') {
    throw new DomainError('NOT_SUPPORTED', 'a read-only token may not write relative files')
  }
  const lockId = readLock(request.headers)
  const expectedSize = readExpectedBodySize(request.headers)
  const fileConversion = readFileConversion(request.headers)
  // Seed rule 1 comes first: a different lock ID on the source is 409 whatever the target.
  const sourceCheck = decideWrite(source.lock, lockId, source.size, ctx.clock.now(), 'put-relative')
  if (sourceCheck.kind === 'conflict') throw lockConflictError(sourceCheck)
  const target = await resolveTarget(call)
  if (target.mode === 'specific' && target.existing) assertUnlocked(ctx, target.existing)

  const blob = await storeBody(ctx, bodyStream(request), expectedSize)
  const meta = {
    operation: 'PutRelativeFile',
    sourceFileId: source.id,
    sourceVersion: source.version,
    ...(fileConversion ? { fileConversion: true } : {}),
  }
  let written: FileRecord
  if (target.mode === 'suggested') {
    written = await createFileFromBlob(ctx, {
      ownerId: source.ownerId,
      title: target.name,
      blob,
      source: 'wopi',
      meta,
    })
  } else if (target.existing) {
    written = await commitNewVersion(ctx, target.existing.id, {
      blob,
      userId: call.user.id,
      source: 'wopi',
      meta,
      precondition: (fresh) => assertUnlocked(ctx, fresh),
    })
  } else {
    written = await createExactFile(ctx, source.ownerId, call.user.id, target.name, blob, meta)
  }
  const { token } = issueWopiToken(ctx, written.id, call.user.id, call.permission)
  return call.reply.code(200).send(presentRelativeFile(ctx, written, token))
}

/** Reads the two target headers and settles the name (before any byte is read). */
async function resolveTarget(call: WopiCall): Promise<Target> {
  const { ctx, request, file: source } = call
  const suggested = readSuggestedTarget(request.headers)
  const relative = readRelativeTarget(request.headers)
  if ((suggested === undefined) === (relative === undefined)) {
    throw new DomainError(
      'INVALID_INPUT',
      'send exactly one of X-WOPI-SuggestedTarget and X-WOPI-RelativeTarget',
      { field: 'X-WOPI-SuggestedTarget' },
    )
  }
  if (suggested !== undefined) {
    if (suggested.trim() === '') {
      throw new DomainError('INVALID_INPUT', 'X-WOPI-SuggestedTarget is empty', {
        field: 'X-WOPI-SuggestedTarget',
      })
    }
    return { mode: 'suggested', name: repairSuggestedName(source.title, suggested) }
  }
  const name = relative ?? ''
  const check = validateFileName(name)
  if (!check.ok) {
    throw new DomainError('NAME_INVALID', `X-WOPI-RelativeTarget: ${check.reason}`, {
      field: 'X-WOPI-RelativeTarget',
    })
  }
  const overwrite = readOverwriteRelativeTarget(request.headers)
  const existing = await findByTitle(ctx, source.ownerId, name)
  if (existing && !overwrite) throw await nameTakenError(ctx, source.ownerId, name, existing)
  return existing ? { mode: 'specific', name, existing } : { mode: 'specific', name }
}

/**
 * The name suggested mode will store: the resolved suggestion made legal. When its base has
 * nothing usable (say '\u0001.docx'), the source's base name is used with its extension.
 */
function repairSuggestedName(sourceTitle: string, suggested: string): string {
  const { base, extension } = splitExtension(resolveSuggestedTarget(sourceTitle, suggested))
  const usableBase = sanitizeFileName(base) ?? sanitizeFileName(splitExtension(sourceTitle).base)
  const repaired = usableBase === undefined ? undefined : sanitizeFileName(usableBase + extension)
  if (repaired !== undefined) return repaired
  throw new DomainError(
    'NAME_INVALID',
    'no legal file name can be derived from X-WOPI-SuggestedTarget',
    { field: 'X-WOPI-SuggestedTarget' },
  )
}

/** 409 with the target's lock while it is locked (overwriting must respect the lock). */
function assertUnlocked(ctx: AppContext, file: FileRecord): void {
  const view = currentLock(file.lock, ctx.clock.now())
  if (view.state === 'locked') {
    throw new DomainError('LOCK_MISMATCH', 'the target file is locked', {
      currentLock: view.lockId,
    })
  }
}

/** The owner's file with this exact name (names are unique without regard to case). */
async function findByTitle(
  ctx: AppContext,
  ownerId: string,
  title: string,
): Promise<FileRecord | undefined> {
  if (!(await ctx.store.files.titleExists(ownerId, title))) return undefined
  const wanted = title.toLowerCase()
  const pageSize = 1000
  for (let offset = 0; ; offset += pageSize) {
    const page = await ctx.store.files.list({
      ownerId,
      offset,
      limit: pageSize,
      sortBy: 'title',
      descending: false,
      titleContains: title,
    })
    const hit = page.items.find((file) => file.title.toLowerCase() === wanted)
    if (hit) return hit
    if (offset + pageSize >= page.total) return undefined
  }
}

/** 409 for a taken specific name, suggesting the first free variant (ValidRelativeTarget). */
async function nameTakenError(
  ctx: AppContext,
  ownerId: string,
  name: string,
  existing: FileRecord | undefined,
): Promise<DomainError> {
  let suggestedName: string | undefined
  for (const candidate of candidateNames(name)) {
    if (!(await ctx.store.files.titleExists(ownerId, candidate))) {
      suggestedName = candidate
      break
    }
  }
  const lock = existing ? currentLock(existing.lock, ctx.clock.now()) : undefined
  return new DomainError('NAME_TAKEN', `a file named ${JSON.stringify(name)} exists`, {
    ...(suggestedName !== undefined ? { suggestedName } : {}),
    currentLock: lock?.state === 'locked' ? lock.lockId : '',
  })
}

/**
 * Creates a file under exactly `title` (specific mode must not change the name). A clash
 * that appears after the check is a 409 like any other; the blob is removed on failure.
 */
async function createExactFile(
  ctx: AppContext,
  ownerId: string,
  userId: string,
  title: string,
  blob: StoredBlob,
  meta: Record<string, unknown>,
): Promise<FileRecord> {
  const now = ctx.clock.now()
  const file: FileRecord = {
    id: newId(),
    ownerId,
    title,
    version: 1,
    size: blob.size,
    sha256: blob.sha256,
    blobKey: blob.key,
    createdAt: now,
    createdBy: userId,
    updatedAt: now,
    updatedBy: userId,
    lock: null,
    keyVersion: 1,
    revision: 0,
  }
  const version: VersionRecord = {
    fileId: file.id,
    version: 1,
    blobKey: blob.key,
    size: blob.size,
    sha256: blob.sha256,
    createdAt: now,
    createdBy: userId,
    source: 'wopi',
    meta,
  }
  try {
    await ctx.store.files.create(file, version)
    return file
  } catch (error) {
    await ctx.blobs.delete(blob.key).catch(() => undefined)
    if (error instanceof DomainError && error.code === 'NAME_TAKEN') {
      throw await nameTakenError(ctx, ownerId, title, await findByTitle(ctx, ownerId, title))
    }
    throw error
  }
}
