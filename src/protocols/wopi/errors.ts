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
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { DomainError, type ErrorCode } from '../../core/errors.js'
import { encodeUtf7 } from '../../core/names/utf7.js'
import type { Logger } from '../../app/create-app.js'
import { releaseBody } from './body.js'
import { ProofRejectedError } from './discovery.js'

/** WOPI status of each domain error code. FORBIDDEN is 401: WOPI has no 403 ("token invalid"). */
export const WOPI_STATUS: Record<ErrorCode, number> = {
  INVALID_INPUT: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  TOO_MANY_ATTEMPTS: 429,
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
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The WOPI operation a request was dispatched to ('' before dispatch), for error headers. */
    wopiOperation: string
  }
}

/** Remembers which WOPI operation (CheckFileInfo, RenameFile, ...) a request is. */
export function markOperation(request: FastifyRequest, operation: string): void {
  request.wopiOperation = operation
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

function isFastifyClientError(error: unknown): error is FastifyError {
  return (
    error instanceof Error &&
    'statusCode' in error &&
    typeof error.statusCode === 'number' &&
    error.statusCode >= 400 &&
    error.statusCode < 500
  )
}

/** The WOPI context's error handler: the one place a thrown error becomes a reply. */
export function wopiErrorHandler(logger: Logger) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    releaseBody(request, reply)
    const operation = request.wopiOperation || undefined
    if (error instanceof DomainError) {
      const { status, headers } = wopiErrorReply(error, operation)
      const facts = { code: error.code, operation, status, message: error.message }
      logger.debug(facts, 'WOPI request refused')
      return reply.code(status).headers(headers).type('text/plain').send(error.message)
    }
    if (error instanceof ProofRejectedError) {
      const path = request.url.split('?')[0]
      logger.warn({ operation, reason: error.reason, url: path }, error.message)
      return reply.code(500).type('text/plain').send('proof verification failed')
    }
    if (isFastifyClientError(error)) {
      return reply.code(error.statusCode ?? 400).type('text/plain').send(error.message)
    }
    logger.error({ err: error, operation, url: request.url.split('?')[0] }, 'WOPI request failed')
    return reply.code(500).type('text/plain').send('internal server error')
  }
}
