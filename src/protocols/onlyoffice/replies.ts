/**
 * How the ONLYOFFICE adapter answers errors: one table per kind of caller, from domain
 * error codes to HTTP statuses. Docs is the only caller of both routes.
 */
import type { FastifyReply } from 'fastify'
import type { DomainError, ErrorCode } from '../../core/errors.js'

/**
 * The editing callback's HTTP status per code. Docs retries a 5xx (a status 2 after 1, 2
 * and 4 s) and gives up on a 4xx, keeping the edited file as "forgotten"; only 200 with
 * `{"error":0}` is success. So:
 * - refusals no retry can mend are 4xx: a bad body 400, a bad credential or link 403, a
 *   file over the size limit 413;
 * - a file deleted while open is 200: there is nothing left to save, nor to retry;
 * - failures a retry may mend (fetching or storing the save, contention) are 500;
 * - no room to store the save is 507: a 5xx, so Docs retries (space may be freed
 *   meanwhile) and then keeps the document rather than dropping it; the same for a save
 *   that would take the file's owner past his storage quota.
 */
export const CALLBACK_STATUS: Record<ErrorCode, number> = {
  INVALID_INPUT: 400,
  UNAUTHENTICATED: 403,
  INVALID_CREDENTIALS: 403,
  TOO_MANY_ATTEMPTS: 429,
  USER_DISABLED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 200,
  USER_EXISTS: 409,
  NAME_INVALID: 400,
  NAME_TAKEN: 409,
  LOCK_MISMATCH: 409,
  FILE_NOT_EMPTY: 409,
  PAYLOAD_TOO_LARGE: 413,
  PRECONDITION_FAILED: 412,
  RANGE_NOT_SATISFIABLE: 416,
  NOT_SUPPORTED: 403,
  CONCURRENT_UPDATE: 500,
  UPSTREAM_FAILED: 500,
  INSUFFICIENT_STORAGE: 507,
  QUOTA_EXCEEDED: 507,
  CONVERSION_UNSUPPORTED: 500,
  CONVERSION_FAILED: 500,
  CONVERTER_BUSY: 500,
  CONVERTER_OFF: 500,
}

/** A callback answer: `{"error":0}` for a 2xx, else `{"error":1,"message":...}`. */
export function sendCallbackReply(reply: FastifyReply, status: number, message?: string): FastifyReply {
  const body = status >= 200 && status < 300 ? { error: 0 } : { error: 1, message: message ?? 'refused' }
  return reply.code(status).header('Cache-Control', 'no-store').send(body)
}

/** The callback answer to a domain error. */
export function sendCallbackError(reply: FastifyReply, error: DomainError): FastifyReply {
  return sendCallbackReply(reply, CALLBACK_STATUS[error.code], error.message)
}

/**
 * The download links' HTTP status per code: a link that is not valid (bad, expired, for
 * another file) is 403, a file or version that is gone 404, anything else 500.
 */
export const DOWNLOAD_STATUS: Record<ErrorCode, number> = {
  INVALID_INPUT: 403,
  UNAUTHENTICATED: 403,
  INVALID_CREDENTIALS: 403,
  TOO_MANY_ATTEMPTS: 500,
  USER_DISABLED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  USER_EXISTS: 500,
  NAME_INVALID: 500,
  NAME_TAKEN: 500,
  LOCK_MISMATCH: 500,
  FILE_NOT_EMPTY: 500,
  PAYLOAD_TOO_LARGE: 500,
  PRECONDITION_FAILED: 500,
  RANGE_NOT_SATISFIABLE: 416,
  NOT_SUPPORTED: 500,
  CONCURRENT_UPDATE: 500,
  UPSTREAM_FAILED: 500,
  INSUFFICIENT_STORAGE: 500,
  QUOTA_EXCEEDED: 500,
  CONVERSION_UNSUPPORTED: 500,
  CONVERSION_FAILED: 500,
  CONVERTER_BUSY: 500,
  CONVERTER_OFF: 500,
}

/** Plain texts of the download answers; nothing about the file is told. */
const DOWNLOAD_TEXT: Record<number, string> = {
  403: 'this link is not valid (expired or not for this file)',
  404: 'not found',
  416: 'requested range not satisfiable',
  500: 'internal error',
}

/** A download refusal with the plain text of its status. */
export function sendDownloadRefusal(reply: FastifyReply, status: number): FastifyReply {
  return reply
    .code(status)
    .type('text/plain; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .send(DOWNLOAD_TEXT[status] ?? 'internal error')
}
