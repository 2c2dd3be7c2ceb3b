/**
 * The ONLYOFFICE portal API envelope. Success:
 * `{count, response, status: 0, statusCode}`; failure:
 * `{error: {message, type}, status: 1, statusCode}`, where `type` is Folio's
 * stable error code (ONLYOFFICE puts an exception type name there).
 */
export interface SuccessEnvelope<T> {
  count: number
  response: T
  status: 0
  statusCode: number
}

export interface ErrorEnvelope {
  count: 0
  error: { message: string; type: string }
  status: 1
  statusCode: number
}

/** Wraps a result: count is the array length, or 1 for a single object. */
export function success<T>(response: T, statusCode = 200): SuccessEnvelope<T> {
  const count = Array.isArray(response) ? response.length : response === null ? 0 : 1
  return { count, response, status: 0, statusCode }
}

/** Wraps an error message with its code. */
export function failure(statusCode: number, type: string, message: string): ErrorEnvelope {
  return { count: 0, error: { message, type }, status: 1, statusCode }
}
