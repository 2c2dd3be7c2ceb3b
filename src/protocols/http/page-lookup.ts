import { isDomainError } from '../../core/errors.js'

/**
 * What a page (the editor, the WOPI host page, a shared link) shows of a file looked up by
 * the id in its URL: the file, or undefined for the "not here" page when there is no such
 * file for this person, or when the id cannot name one at all (PostgreSQL refuses a NUL in
 * text as bad input). Any other failure is passed on.
 */
export async function foundOrUndefined<T>(lookup: Promise<T>): Promise<T | undefined> {
  try {
    return await lookup
  } catch (error) {
    if (isDomainError(error) && (error.code === 'NOT_FOUND' || error.code === 'INVALID_INPUT')) return undefined
    throw error
  }
}
