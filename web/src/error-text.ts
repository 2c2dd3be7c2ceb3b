import { ApiError } from './api'

/**
 * A failed call in words for people. NOT_FOUND on something that was on screen means it
 * went away under the reader: deleted, moved, or no longer shared with them.
 */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.type === 'NAME_TAKEN') return 'An item with that name already exists here. Choose another name.'
    if (error.type === 'NAME_INVALID') {
      return `That name is not allowed: ${error.message.replace(/^invalid (file )?name: /, '')}.`
    }
    if (error.status === 404) {
      return 'You no longer have access to this item: it was deleted, moved, or is no longer shared with you.'
    }
    if (error.status === 403) return `You are not allowed to do that: ${error.message}.`
    return error.message
  }
  return 'Something went wrong. Try again.'
}
