/**
 * The catalog of domain errors. Core and app code throw these; each protocol
 * adapter maps a code to its own wire form exactly once (portal envelope, WOPI
 * status + headers, callback reply). No HTTP status lives here.
 */
export const ERROR_CODES = [
  'INVALID_INPUT',
  'UNAUTHENTICATED',
  'INVALID_CREDENTIALS',
  'TOO_MANY_ATTEMPTS',
  'USER_DISABLED',
  'FORBIDDEN',
  'NOT_FOUND',
  'USER_EXISTS',
  'NAME_INVALID',
  'NAME_TAKEN',
  'LOCK_MISMATCH',
  'FILE_NOT_EMPTY',
  'PAYLOAD_TOO_LARGE',
  'PRECONDITION_FAILED',
  'RANGE_NOT_SATISFIABLE',
  'NOT_SUPPORTED',
  'CONCURRENT_UPDATE',
  'UPSTREAM_FAILED',
  'INSUFFICIENT_STORAGE',
  'QUOTA_EXCEEDED',
  'CONVERSION_UNSUPPORTED',
  'CONVERSION_FAILED',
  'CONVERTER_BUSY',
  'CONVERTER_OFF',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

/** Extra facts an adapter may need to render an error (never user secrets). */
export interface ErrorDetails {
  /** LOCK_MISMATCH: the lock currently held, '' when the file is unlocked. */
  currentLock?: string
  /** TOO_MANY_ATTEMPTS, CONVERTER_BUSY: seconds until another attempt is allowed. */
  retryAfterSeconds?: number
  /** INVALID_INPUT / NAME_INVALID: which field or header was wrong. */
  field?: string
  /** NAME_TAKEN: a free name the caller could use instead. */
  suggestedName?: string
}

export class DomainError extends Error {
  readonly code: ErrorCode
  readonly details: ErrorDetails

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message)
    this.name = 'DomainError'
    this.code = code
    this.details = details
  }
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError
}
