/**
 * CheckFileInfo, RenameFile, DeleteFile and PutUserInfo: the operations on a file's
 * record rather than its bytes or lock.
 */
import type { FastifyReply } from 'fastify'
import { deleteFile as deleteStoredFile, mutateFile } from '../../app/files.js'
import { DomainError, isDomainError } from '../../core/errors.js'
import { decideDelete, decideWrite } from '../../core/lock/lock-rules.js'
import { candidateNames, sanitizeFileName, splitExtension } from '../../core/names/file-names.js'
import type { FileRecord } from '../../ports/metadata-store.js'
import { requireWrite, type WopiCall } from './authorize.js'
import { readSmallBody } from './body.js'
import { readLock, readRequestedName } from './headers.js'
import { lockConflictError } from './lock-operations.js'
import { presentCheckFileInfo } from './presenters.js'

/** Microsoft: the UserInfo string "has a maximum size of 1024 ASCII characters". */
const MAX_USER_INFO_BYTES = 1024

/** GET /wopi/files/{id}: the file, the user and what they may do, in strict JSON types. */
export async function checkFileInfo(call: WopiCall): Promise<FastifyReply> {
  const info = presentCheckFileInfo(call.ctx, call.file, call.user, call.permission)
  return call.reply.code(200).header('Cache-Control', 'no-store').send(info)
}

/**
 * RENAME_FILE: X-WOPI-RequestedName (UTF-7, without extension) plus the file's own
 * extension. An illegal or taken name is turned into the first legal free one
 * ('Report (2).docx'); when none can be derived, 400 with X-WOPI-InvalidFileNameError.
 * Answers {"Name": "<new name without extension>"}.
 */
export async function renameFile(call: WopiCall): Promise<FastifyReply> {
  const { ctx, request, file: original } = call
  requireWrite(call)
  const lockId = readLock(request.headers)
  const requested = readRequestedName(request.headers)
  // The requested base must survive repair on its own, or '\u0001' would become '.docx'.
  const base = requested === undefined ? undefined : sanitizeFileName(requested)
  if (base === undefined) {
    throw new DomainError(
      'NAME_INVALID',
      'X-WOPI-RequestedName is missing or has no usable characters',
      { field: 'X-WOPI-RequestedName' },
    )
  }
  const assertMayRename = (file: FileRecord) => {
    const decision = decideWrite(file.lock, lockId, file.size, ctx.clock.now(), 'rename')
    if (decision.kind === 'conflict') throw lockConflictError(decision)
  }
  assertMayRename(original)
  const extension = splitExtension(original.title).extension
  for (const title of candidateNames(base + extension)) {
    const isOwnName = title.toLowerCase() === original.title.toLowerCase()
    if (!isOwnName && (await ctx.store.files.titleExists(original.ownerId, title))) continue
    try {
      const renamed = await mutateFile(ctx, original.id, (fresh) => {
        assertMayRename(fresh)
        if (fresh.title === title) return undefined
        return { title, updatedAt: ctx.clock.now(), updatedBy: call.user.id }
      })
      return call.reply.code(200).send({ Name: splitExtension(renamed.title).base })
    } catch (error) {
      // Taken by another file between the check and the write: try the next name.
      if (isDomainError(error) && error.code === 'NAME_TAKEN') continue
      throw error
    }
  }
  throw new DomainError(
    'NAME_INVALID',
    'no legal, free file name can be derived from the requested name',
    { field: 'X-WOPI-RequestedName' },
  )
}

/**
 * DELETE (POST with X-WOPI-Override: DELETE): 409 with the current lock when the file is
 * locked (Microsoft's DeleteFile), otherwise the file and all its versions are removed.
 * The lock is judged on the row the delete is conditional on, so a Lock that lands in
 * between makes the delete decide again (409) instead of removing a locked file.
 */
export async function deleteFile(call: WopiCall): Promise<FastifyReply> {
  const { ctx } = call
  requireWrite(call)
  await deleteStoredFile(ctx, call.file.id, {
    precondition: (fresh) => {
      const decision = decideDelete(fresh.lock, ctx.clock.now())
      if (decision.kind === 'conflict') throw lockConflictError(decision)
    },
  })
  return call.reply.code(200).send()
}

/**
 * PUT_USER_INFO: stores the body (at most 1024 bytes of UTF-8) on the token's user;
 * CheckFileInfo returns it as UserInfo. Allowed with a read-only token, since it changes
 * the user's own data, not the file.
 */
export async function putUserInfo(call: WopiCall): Promise<FastifyReply> {
  const { ctx, request, user } = call
  const body = await readSmallBody(request, MAX_USER_INFO_BYTES)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body)
  } catch {
    throw new DomainError('INVALID_INPUT', 'UserInfo must be UTF-8 text')
  }
  await ctx.store.users.update(user.id, { wopiUserInfo: text, updatedAt: ctx.clock.now() })
  return call.reply.code(200).send()
}
