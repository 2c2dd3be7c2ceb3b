/**
 * GetFile and PutFile: the file's bytes. PutFile streams the body into the blob store
 * (never buffered whole) and then makes it the newest version in one compare-and-set, so
 * a failed save (lock mismatch, too large, client gone mid-body) leaves the previous
 * content and version exactly as they were.
 */
import { DomainError } from '../../core/errors.js'
import { contentReply } from '../http/send-content.js'
import { requireWrite, type WopiCall } from './authorize.js'
import { bodyStream } from './body.js'
import { readContentLength, readLock, readMaxExpectedSize, readSaveFacts } from './headers.js'
import { itemVersion, lastModifiedTime } from './presenters.js'

/** Microsoft: without X-WOPI-MaxExpectedSize "use the maximum value of a 4-byte integer". */
const DEFAULT_MAX_EXPECTED_SIZE = 2 ** 31 - 1

/** GET /contents: the whole file (or a Range), 412 when larger than X-WOPI-MaxExpectedSize. */
export async function getFile(call: WopiCall): Promise<void> {
  const { ctx, request, reply, file } = call
  const maxExpected = readMaxExpectedSize(request.headers) ?? DEFAULT_MAX_EXPECTED_SIZE
  if (file.size > maxExpected) {
    throw new DomainError(
      'PRECONDITION_FAILED',
      `the file is ${file.size} bytes, more than X-WOPI-MaxExpectedSize ${maxExpected}`,
    )
  }
  const answer = await contentReply(
    ctx,
    request.headers,
    {
      blobKey: file.blobKey,
      size: file.size,
      sha256: file.sha256,
      fileName: file.title,
      modifiedAt: file.updatedAt,
    },
    { headers: { 'X-WOPI-ItemVersion': itemVersion(file) } },
  )
  reply.setHeaders(answer.headers)
  if (answer.text !== undefined) reply.text(answer.status, answer.text)
  else if (answer.body === undefined) reply.empty(answer.status)
  else if (Buffer.isBuffer(answer.body)) reply.bytes(answer.status, answer.body)
  else reply.stream(answer.status, answer.body)
}

/**
 * POST /contents with X-WOPI-Override: PUT. The application's storeNewContents asks the lock
 * policy before the body is read (a doomed upload is refused at once) and again on the fresh
 * row inside the commit. X-WOPI-Editors and the save flags are kept on the version.
 */
export async function putFile(call: WopiCall): Promise<void> {
  const { ctx, request, reply } = call
  await requireWrite(call)
  const lockId = readLock(request.headers)
  const facts = readSaveFacts(request.headers)
  const expectedSize = readContentLength(request.headers)
  const file = await ctx.app.files.storeNewContents(call.file.id, {
    by: call.principal,
    body: bodyStream(request),
    ...(expectedSize !== undefined ? { expectedSize } : {}),
    source: 'wopi',
    meta: { operation: 'PutFile', ...facts },
    claim: { kind: 'wopi', lockId },
    // The row authorize read: if anything changed it during the upload, the CAS re-reads.
    current: call.file,
  })
  reply
    .header('X-WOPI-ItemVersion', itemVersion(file))
    .json(200, JSON.stringify({ LastModifiedTime: lastModifiedTime(file) }))
}
