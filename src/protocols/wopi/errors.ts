/**
 * How the WOPI host answers errors: the one table from domain error codes to WOPI status
 * codes and headers, and the error handler that applies it. Rules it enforces:
 * - every 409 carries X-WOPI-Lock (the current lock, '' when unlocked) and may carry
 *   X-WOPI-LockFailureReason (for logging only);
 * - 400 on RenameFile carries X-WOPI-InvalidFileNameError;
 * - a name clash in PutRelativeFile's specific mode carries X-WOPI-ValidRelativeTarget (UTF-7);
 * - a proof that does not verify is 500 (Microsoft: "if a request isn't signed properly,
 *   the host must return a 500 Internal Server Error");
 * - an unread request body is drained, or the connection closed when it is large, so a
 *   refused upload never hangs or poisons a kept-alive connection.
 */
import { DomainError, type ErrorCode } from '../../core/errors.js'
import { encodeUtf7 } from '../../core/names/utf7.js'
import type { Logger } from '../../app/index.js'
import type { RawReply } from '../http/raw-reply.js'
import type { RawRequest } from '../http/raw-request.js'
import { releaseBody } from './body.js'
import { ProofRejectedError } from './discovery.js'

/** WOPI status of each domain error code. FORBIDDEN is 401: WOPI has no 403 ("token invalid"). */
export const WOPI_STATUS: Record<ErrorCode, number> = {
  INVALID_INPUT: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  TOO_MANY_ATTEMPTS: 429,
  USER_DISABLED: 401,
  FORBIDDEN: 401,
  NOT_FOUND: 404,
  USER_EXISTS: 409,
  NAME_INVALID: 400,
  NAME_TAKEN: 409,
  LOCK_MISMATCH: 409,
  FILE_NOT_EMPTY: 409,
  PAYLOAD_TOO_LARGE: 413,
  PRECONDITION_FAILED: 412,
  RANGE_NOT_SATISFIABLE: 416,
  NOT_SUPPORTED: 501,
  CONCURRENT_UPDATE: 503,
  UPSTREAM_FAILED: 500,
  INSUFFICIENT_STORAGE: 507,
  QUOTA_EXCEEDED: 413,
  CONVERSION_UNSUPPORTED: 415,
  CONVERSION_FAILED: 422,
  CONVERTER_BUSY: 503,
  CONVERTER_OFF: 501,
}

/** Header values must be visible ASCII; anything else is replaced (they are for logs only). */
function headerText(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 512)
}

/** Status and headers for one domain error, given the operation it happened in. */
export function wopiErrorReply(
  error: DomainError,
  operation: string | undefined,
): { status: number; headers: Record<string, string> } {
  const status = WOPI_STATUS[error.code]
  const headers: Record<string, string> = {}
  if (status === 409) {
    // "must always be included on 409 Conflict; ... the empty string when the file is unlocked"
    headers['X-WOPI-Lock'] = error.details.currentLock ?? ''
    if (error.code === 'LOCK_MISMATCH' || error.code === 'FILE_NOT_EMPTY') {
      headers['X-WOPI-LockFailureReason'] = headerText(error.message)
    }
    if (error.code === 'NAME_TAKEN' && error.details.suggestedName !== undefined) {
      headers['X-WOPI-ValidRelativeTarget'] = encodeUtf7(error.details.suggestedName)
    }
  }
  if (status === 400 && operation === 'RenameFile') {
    headers['X-WOPI-InvalidFileNameError'] = headerText(error.message)
  }
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer'
  if (status === 503) headers['Retry-After'] = '1'
  return { status, headers }
}

/** An error that names its own client-error status (a request body that timed out: 408). */
function clientErrorStatus(error: unknown): number | undefined {
  if (!(error instanceof Error) || !('statusCode' in error)) return undefined
  const status = error.statusCode
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined
}

/** The client went away mid-request (node:http ends its request with ECONNRESET 'aborted'). */
function clientGone(error: unknown, request: RawRequest): boolean {
  return !request.raw.complete && error instanceof Error && 'code' in error && error.code === 'ECONNRESET'
}

/**
 * The one place a thrown WOPI error becomes a reply. `operation` is the WOPI operation the
 * request was dispatched to (undefined before dispatch), for operation-specific headers.
 */
export function answerWopiError(
  logger: Logger,
  error: unknown,
  request: RawRequest,
  reply: RawReply,
  operation: string | undefined,
): void {
  releaseBody(request, reply)
  if (reply.sent) {
    // Already answered (a body timeout's 408) or mid-body (a stream that failed): nothing
    // can be said any more; a half-sent body must not look whole, so the connection goes.
    logger.debug({ operation, err: error }, 'WOPI request failed after its answer began')
    if (!reply.res.writableEnded) reply.res.destroy()
    return
  }
  if (error instanceof DomainError) {
    const { status, headers } = wopiErrorReply(error, operation)
    const facts = { code: error.code, operation, status, message: error.message }
    logger.debug(facts, 'WOPI request refused')
    reply.setHeaders(headers).text(status, error.message)
    return
  }
  if (error instanceof ProofRejectedError) {
    logger.warn({ operation, reason: error.reason, url: request.path }, error.message)
    reply.text(500, 'proof verification failed')
    return
  }
  const status = clientErrorStatus(error)
  if (status !== undefined && error instanceof Error) {
    reply.text(status, error.message)
    return
  }
  if (clientGone(error, request)) {
    // Routine (a closed tab, a lost network); guardRawBody logged it at info.
    logger.debug({ operation, url: request.path }, 'WOPI client went away mid-request')
    reply.text(400, 'the request body was cut short')
    return
  }
  logger.error({ err: error, operation, url: request.path }, 'WOPI request failed')
  reply.text(500, 'internal server error')
}
