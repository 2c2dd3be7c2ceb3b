import { DomainError } from '../../core/errors.js'
import type { Converter } from '../../ports/converter.js'

/** The converter of an application built without one (a command-line tool): every conversion is CONVERTER_OFF. */
export const NO_CONVERTER: Converter = {
  status: () => ({ kind: 'off', detail: 'no converter in this process' }),
  convert: () =>
    Promise.reject(
      new DomainError('CONVERTER_OFF', 'document conversion is not available here; it runs in folio serve'),
    ),
  close: () => Promise.resolve(),
}
