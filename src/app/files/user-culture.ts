import { DomainError } from '../../core/errors.js'
import type { UserSettings } from '../../ports/metadata-store.js'
import type { Principal } from '../access.js'
import type { AppContext } from '../context.js'
import { userSettings } from './re-upload.js'

/** A language tag as ONLYOFFICE's cultureName carries it ('de', 'fr-FR', 'es-419'). */
const CULTURE_NAME = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/

/**
 * Stores the language the caller chose for the web interface ('' follows the browser), so
 * it follows them to every browser; answers the settings. Folio keeps the tag as given:
 * the interface decides which of its languages a tag means.
 */
export async function setCultureName(ctx: AppContext, by: Principal, cultureName: string): Promise<UserSettings> {
  if (cultureName !== '' && !CULTURE_NAME.test(cultureName)) {
    throw new DomainError('INVALID_INPUT', `cultureName is a language tag such as 'de' or 'fr-FR', or ''`, {
      field: 'cultureName',
    })
  }
  const settings = { ...(await userSettings(ctx, by)), cultureName }
  await ctx.store.userSettings.set(by.user.id, settings)
  return settings
}
