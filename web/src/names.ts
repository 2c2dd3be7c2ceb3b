import { repairName } from '../../src/core/names/name-rules.js'
import { t } from './i18n/index.js'

/**
 * The name Folio will store for a typed name: the server's own rule (illegal characters
 * become '_', as ONLYOFFICE does), shared with the web build so the dialogs can say it
 * before anything is saved. undefined when no legal name can be made of it.
 */
export function storedName(wanted: string): string | undefined {
  try {
    return repairName(wanted.trim())
  } catch {
    return undefined
  }
}

/** The line under a name field: what the name becomes, when it is not what was typed. */
export function namePreview(wanted: string): string {
  const typed = wanted.trim()
  if (typed === '') return ''
  const stored = storedName(typed)
  if (stored === undefined) return t('names.unusable')
  return stored === typed ? '' : t('names.willBeSavedAs', { name: stored })
}
