import { DomainError } from '../errors.js'
import { normalizeFileName, sanitizeFileName, validateFileName } from './file-names.js'

/**
 * The three ways a name from a caller becomes a stored name, each throwing NAME_INVALID
 * with the field it came from. Every door (portal, WOPI, web UI, CLI) goes through these.
 */

/**
 * Repairs a name for a new file or folder: characters illegal on common systems become
 * '_' (see file-names.ts). NAME_INVALID when nothing usable is left.
 */
export function repairName(title: string, field = 'title'): string {
  const repaired = sanitizeFileName(normalizeFileName(title))
  if (repaired === undefined) {
    throw new DomainError('NAME_INVALID', 'no legal name can be derived from this title', { field })
  }
  return repaired
}

/** NAME_INVALID unless `title` is a legal name as it stands (for explicit renames). */
export function assertLegalName(title: string, field = 'title'): void {
  const check = validateFileName(title)
  if (!check.ok) throw new DomainError('NAME_INVALID', `invalid name: ${check.reason}`, { field })
}

/**
 * The title composed to Unicode NFC (so a name typed in NFD is the same name, not a
 * refused one); throws NAME_INVALID unless that is a legal file name.
 */
export function assertValidTitle(title: string, field = 'title'): string {
  const composed = normalizeFileName(title)
  const check = validateFileName(composed)
  if (!check.ok) throw new DomainError('NAME_INVALID', `invalid file name: ${check.reason}`, { field })
  return composed
}
