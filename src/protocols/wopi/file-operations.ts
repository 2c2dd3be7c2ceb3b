/**
 * CheckFileInfo, RenameFile, DeleteFile and PutUserInfo: the operations on a file's
 * record rather than its bytes or lock.
 */
import { DomainError, isDomainError } from '../../core/errors.js'
import { sanitizeFileName, splitExtension } from '../../core/names/file-names.js'
import { requireWrite, type WopiCall } from './authorize.js'
import { checkFileInfoBody } from './check-file-info-memo.js'
import { readSmallBody } from './body.js'
import { readLock, readRequestedName } from './headers.js'

/** Microsoft: the UserInfo string "has a maximum size of 1024 ASCII characters". */
const MAX_USER_INFO_BYTES = 1024

/** GET /wopi/files/{id}: the file, the user and what they may do, in strict JSON types. */
export async function checkFileInfo(call: WopiCall): Promise<void> {
  const guest = call.principal.kind === 'link'
  const body = checkFileInfoBody(call.ctx, call.file, call.user, call.permission, guest, call.viewOnly)
  call.reply.header('Cache-Control', 'no-store').json(200, body.text, body.bytes)
}

/**
 * RENAME_FILE: X-WOPI-RequestedName (UTF-7, without extension) plus the file's own
 * extension. An illegal or taken name is turned into the first legal free one
 * ('Report (2).docx'); when none can be derived, 400 with X-WOPI-InvalidFileNameError.
 * Answers {"Name": "<new name without extension>"}.
 */
export async function renameFile(call: WopiCall): Promise<void> {
  const { ctx, request, file: original } = call
  await requireWrite(call)
  const lockId = readLock(request.headers)
  const requested = readRequestedName(request.headers)
  // The requested base must survive repair on its own, or '\u0001' would become '.docx'.
  const base = requested === undefined ? undefined : sanitizeFileName(requested)
  if (base === undefined) {
    throw new DomainError('NAME_INVALID', 'X-WOPI-RequestedName is missing or has no usable characters', {
      field: 'X-WOPI-RequestedName',
    })
  }
  const extension = splitExtension(original.title).extension
  try {
    const renamed = await ctx.app.files.rename(original.id, {
      by: call.principal,
      title: base + extension,
      onClash: 'next-free',
      claim: { kind: 'wopi', lockId },
      current: original,
    })
    call.reply.json(200, JSON.stringify({ Name: splitExtension(renamed.title).base }))
  } catch (error) {
    if (isDomainError(error) && error.code === 'NAME_INVALID') {
      throw new DomainError('NAME_INVALID', error.message, { field: 'X-WOPI-RequestedName' })
    }
    throw error
  }
}

/**
 * DELETE (POST with X-WOPI-Override: DELETE): 409 with the current lock when the file is
 * locked (Microsoft's DeleteFile), otherwise the file and all its versions are removed and
 * open ONLYOFFICE editors are dropped, exactly as a delete through the portal.
 */
export async function deleteFile(call: WopiCall): Promise<void> {
  await requireWrite(call)
  await call.ctx.app.files.delete(call.file.id, { by: call.principal, claim: { kind: 'wopi', lockId: undefined } })
  call.reply.empty(200)
}

/**
 * PUT_USER_INFO: stores the body (at most 1024 bytes of UTF-8) on the token's user;
 * CheckFileInfo returns it as UserInfo. Allowed with a read-only token, since it changes
 * the user's own data, not the file.
 */
export async function putUserInfo(call: WopiCall): Promise<void> {
  const { ctx, request } = call
  const body = await readSmallBody(request, MAX_USER_INFO_BYTES)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body)
  } catch {
    throw new DomainError('INVALID_INPUT', 'UserInfo must be UTF-8 text')
  }
  await ctx.app.locks.setUserInfo(call.principal, text)
  call.reply.empty(200)
}
