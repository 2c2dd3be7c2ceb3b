/**
 * PutRelativeFile (PUT_RELATIVE): a new file from the body, next to the current one when
 * the user may create in its folder, else in his own documents; a file he may not edit is
 * never replaced, and a name he cannot see answers as a free one (app/file-changes.ts).
 *
 * Two modes (Microsoft's PutRelativeFile; exactly one of the two headers, else 400):
 * - suggested (X-WOPI-SuggestedTarget): '.ext' means original base + ext, anything else is
 *   the full name; Folio repairs an illegal name and picks a free one ('Name (2).ext'),
 *   never overwriting, keeping the extension;
 * - specific (X-WOPI-RelativeTarget): the name is used exactly; 400 when illegal; 409 with
 *   X-WOPI-ValidRelativeTarget when taken, unless X-WOPI-OverwriteRelativeTarget: true, in
 *   which case the existing file gets a new version, refused with 409 and its lock while
 *   it is locked.
 * The source file's lock: no X-WOPI-Lock proceeds (ONLYOFFICE Docs' Save As sends none while
 * it holds the lock), the matching ID proceeds, a different ID is 409 (app/lock-policy.ts). A token that may not write gets 501, as CheckFileInfo's UserCanNotWriteRelative
 * announced. The answer is {Name, Url, HostViewUrl, HostEditUrl}; Url carries a new token
 * for the new file with the caller's user and permission.
 */
import type { RelativeTarget } from '../../app/index.js'
import { DomainError } from '../../core/errors.js'
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
import { presentRelativeFile } from './presenters.js'

/** POST /wopi/files/{id} with X-WOPI-Override: PUT_RELATIVE. */
export async function putRelativeFile(call: WopiCall): Promise<void> {
  const { ctx, request, file: source } = call
  if (call.permission !== 'write') {
    throw new DomainError('NOT_SUPPORTED', 'a read-only token may not write relative files')
  }
  const lockId = readLock(request.headers)
  const expectedSize = readExpectedBodySize(request.headers)
  const fileConversion = readFileConversion(request.headers)
  const written = await ctx.app.files.putRelative(source, {
    by: call.principal,
    target: () => readTarget(call),
    body: bodyStream(request),
    ...(expectedSize !== undefined ? { expectedSize } : {}),
    claim: { kind: 'wopi', lockId },
    meta: {
      operation: 'PutRelativeFile',
      sourceFileId: source.id,
      sourceVersion: source.version,
      ...(fileConversion ? { fileConversion: true } : {}),
    },
  })
  const { token } = ctx.app.wopi.issueToken(call.principal, written.id, call.permission)
  call.reply.json(200, JSON.stringify(presentRelativeFile(ctx, written, token)))
}

/** Reads the two target headers: exactly one of them, else 400. */
function readTarget(call: WopiCall): RelativeTarget {
  const { request } = call
  const suggested = readSuggestedTarget(request.headers)
  const relative = readRelativeTarget(request.headers)
  if ((suggested === undefined) === (relative === undefined)) {
    throw new DomainError('INVALID_INPUT', 'send exactly one of X-WOPI-SuggestedTarget and X-WOPI-RelativeTarget', {
      field: 'X-WOPI-SuggestedTarget',
    })
  }
  if (suggested !== undefined) {
    if (suggested.trim() === '') {
      throw new DomainError('INVALID_INPUT', 'X-WOPI-SuggestedTarget is empty', {
        field: 'X-WOPI-SuggestedTarget',
      })
    }
    return { mode: 'suggested', name: suggested }
  }
  return { mode: 'specific', name: relative ?? '', overwrite: readOverwriteRelativeTarget(request.headers) }
}
