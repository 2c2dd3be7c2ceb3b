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
import {
  commitNewVersion,
  createFileFromBlob,
  storeBody,
  type NewFileInput,
} from '../../app/files.js'
import { DomainError, isDomainError } from '../../core/errors.js'
import { currentLock, decideWrite } from '../../core/lock/lock-rules.js'
import {
  candidateNames,
  resolveSuggestedTarget,
  sanitizeFileName,
  splitExtension,
  validateFileName,
} from '../../core/names/file-names.js'
import type { FileRecord } from '../../ports/metadata-store.js'
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
  if (target.mode === 'specific' && target.existing) {
    written = await commitNewVersion(ctx, target.existing.id, {
      blob,
      userId: call.user.id,
      source: 'wopi',
      meta,
      precondition: (fresh) => assertUnlocked(ctx, fresh),
    })
  } else {
    const newFile: NewFileInput = {
      ownerId: source.ownerId,
      title: target.name,
      blob,
      source: 'wopi',
      meta,
      userId: call.user.id,
    }
    written = target.mode === 'suggested'
      ? await createFileFromBlob(ctx, newFile)
      : await createExactFile(ctx, newFile)
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
  const existing = await ctx.store.files.findByTitle(source.ownerId, name)
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
 * Creates the file under exactly its title (specific mode never changes the name). A clash
 * that appears after resolveTarget's check is a 409 like any other; the blob is removed
 * either way (createFileFromBlob cleans up after itself).
 */
async function createExactFile(ctx: AppContext, input: NewFileInput): Promise<FileRecord> {
  try {
    return await createFileFromBlob(ctx, { ...input, exactTitle: true })
  } catch (error) {
    if (!isDomainError(error) || error.code !== 'NAME_TAKEN') throw error
    const existing = await ctx.store.files.findByTitle(input.ownerId, input.title)
    throw await nameTakenError(ctx, input.ownerId, input.title, existing)
  }
}
