import { DomainError } from '../../core/errors.js'
import type { Converter } from '../../ports/converter.js'

/** How an administrator turns conversion on; every refusal of the off converter says it. */
export const TURN_ON_CONVERSION =
  'install LibreOffice (Debian: libreoffice-writer-nogui libreoffice-calc-nogui ' +
  'libreoffice-impress-nogui python3-uno) so that soffice is on the PATH, or set FOLIO_DOCS_URL ' +
  'to use ONLYOFFICE Docs, and leave FOLIO_CONVERTER at auto'

/** The converter when none runs: every conversion fails with CONVERTER_OFF and says why. */
export function offConverter(reason: string): Converter {
  return {
    status: () => ({ kind: 'off', detail: `${reason}; to convert documents, ${TURN_ON_CONVERSION}` }),
    convert: () =>
      Promise.reject(new DomainError('CONVERTER_OFF', `document conversion is off (${reason}); ${TURN_ON_CONVERSION}`)),
    close: () => Promise.resolve(),
  }
}
