import { ApiError } from './api'
import { t } from './i18n'

/**
 * A failed call in words for people. NOT_FOUND on something that was on screen means it
 * went away under the reader: deleted, moved, or no longer shared with them.
 */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.type === 'NAME_TAKEN') return t('errors.nameTaken')
    if (error.type === 'NAME_INVALID') {
      return t('errors.nameInvalid', { reason: error.message.replace(/^invalid (file )?name: /, '') })
    }
    if (error.status === 404) return t('errors.gone')
    if (error.status === 403) return t('errors.forbidden', { reason: error.message })
    return error.message
  }
  return t('errors.generic')
}
