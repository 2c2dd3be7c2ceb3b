import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { DomainError, type ErrorCode } from '../../core/errors.js'
import type { Logger } from '../../app/index.js'
import { failure } from './envelope.js'

/** Portal HTTP status of each domain error code: the one place this mapping lives. */
export const PORTAL_STATUS: Record<ErrorCode, number> = {
  INVALID_INPUT: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  TOO_MANY_ATTEMPTS: 429,
  USER_DISABLED: 403,
  FORBIDDEN: 403,
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
  UPSTREAM_FAILED: 502,
  INSUFFICIENT_STORAGE: 507,
  QUOTA_EXCEEDED: 413,
  CONVERSION_UNSUPPORTED: 415,
  CONVERSION_FAILED: 422,
  CONVERTER_BUSY: 503,
  CONVERTER_OFF: 501,
}

function isFastifyError(error: unknown): error is FastifyError {
  return error instanceof Error && 'statusCode' in error && typeof error.statusCode === 'number'
}

/** Fastify/multipart errors that are the client's fault, with a message fit for them. */
function clientErrorOf(error: FastifyError): { status: number; type: string; message: string } {
  const status = error.statusCode ?? 500
  if (status === 413 || error.code === 'FST_REQ_FILE_TOO_LARGE') {
    return { status: 413, type: 'PAYLOAD_TOO_LARGE', message: 'the request body is too large' }
  }
  if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return { status: 400, type: 'INVALID_INPUT', message: 'the body is not valid JSON' }
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return { status: 415, type: 'INVALID_INPUT', message: 'unsupported Content-Type' }
  }
  if (error.code === 'FST_ERR_VALIDATION') {
    return { status: 400, type: 'INVALID_INPUT', message: error.message }
  }
  return { status, type: 'INVALID_INPUT', message: error.message }
}

/** True when the error is the client's connection ending mid-request, not a fault of Folio. */
function clientWentAway(error: unknown, request: FastifyRequest): boolean {
  if (request.raw.complete) return false
  if (request.raw.destroyed || request.raw.socket.destroyed) return true
  if (!(error instanceof Error)) return false
  const code = 'code' in error ? error.code : undefined
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || error.message === 'aborted'
}

/** The portal's one error handler: every thrown error becomes an envelope reply. */
export function portalErrorHandler(logger: Logger) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    // A refused request whose body was not read (401 before an upload, say) closes the
    // connection, so the client need not send the rest and nothing waits for it.
    if (!request.raw.complete) reply.header('Connection', 'close')
    if (clientWentAway(error, request)) {
      // Routine (a closed tab, a lost network), never an error with a stack: the body
      // guard (http/body-timeouts.ts) has logged its one info line without the query.
      return reply.code(400).send(failure(400, 'INVALID_INPUT', 'the request was aborted'))
    }
    if (error instanceof DomainError) {
      const status = PORTAL_STATUS[error.code]
      if (error.details.retryAfterSeconds !== undefined) {
        reply.header('Retry-After', String(error.details.retryAfterSeconds))
      }
      if (status === 401) reply.header('WWW-Authenticate', 'Bearer')
      return reply.code(status).send(failure(status, error.code, error.message))
    }
    if (isFastifyError(error) && (error.statusCode ?? 500) < 500) {
      const { status, type, message } = clientErrorOf(error)
      return reply.code(status).send(failure(status, type, message))
    }
    logger.error({ err: error, path: request.url.split('?')[0], method: request.method }, 'portal request failed')
    return reply.code(500).send(failure(500, 'INTERNAL', 'internal server error'))
  }
}
