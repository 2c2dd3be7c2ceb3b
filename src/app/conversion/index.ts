import {
  canConvert,
  convertedName,
  isConversionTarget,
  normalizeExtension,
  type ConversionTarget,
} from '../../core/conversion/formats.js'
import type { FileRecord } from '../../core/entities.js'
import { DomainError } from '../../core/errors.js'
import { extensionOf } from '../../core/names/file-names.js'
import type { ConvertedDocument, Converter, ConverterStatus } from '../../ports/converter.js'
import type { Principal } from '../access.js'

/**
 * Conversion as the application offers it. Every use case reads the file through the one
 * access policy (the caller passes it in as `fileFor`), so a conversion is refused exactly
 * where a download is.
 */
export interface ConversionService {
  /** Which converter runs. */
  status(): ConverterStatus
  /**
   * The current version of a file converted to `outputType` ('.pdf' or 'pdf'), with the
   * converted file's name. NOT_FOUND without read access; CONVERSION_UNSUPPORTED for a
   * pair outside the format table; the converter's own errors otherwise.
   */
  downloadAs(by: Principal, fileId: string, outputType: string): Promise<{ fileName: string; document: ConvertedDocument }>
}

/** What the service needs: the converter, the largest result, and the access-checked file read. */
export interface ConversionDependencies {
  converter: Converter
  maxOutputBytes: number
  fileFor(by: Principal, fileId: string): Promise<FileRecord>
}

/** The target an `outputtype` names, or CONVERSION_UNSUPPORTED saying what it can be. */
export function targetOf(outputType: string): ConversionTarget {
  const normalized = normalizeExtension(outputType)
  if (normalized === undefined || !isConversionTarget(normalized)) {
    throw new DomainError('CONVERSION_UNSUPPORTED', `Folio cannot convert to ${JSON.stringify(outputType.slice(0, 20))}`)
  }
  return normalized
}

export function createConversionService(deps: ConversionDependencies): ConversionService {
  return {
    status: () => deps.converter.status(),
    async downloadAs(by, fileId, outputType) {
      const target = targetOf(outputType)
      const file = await deps.fileFor(by, fileId)
      const extension = extensionOf(file.title)
      if (!canConvert(extension, target)) {
        throw new DomainError(
          'CONVERSION_UNSUPPORTED',
          `a .${extension || 'file without an extension'} cannot be converted to .${target}`,
        )
      }
      const document = await deps.converter.convert({
        source: { kind: 'blob', blobKey: file.blobKey, extension },
        target,
        maxOutputBytes: deps.maxOutputBytes,
      })
      return { fileName: convertedName(file.title, target), document }
    },
  }
}

/** The converter of an application built without one (a command-line tool): every conversion is CONVERTER_OFF. */
export const NO_CONVERTER: Converter = {
  status: () => ({ kind: 'off', detail: 'no converter in this process' }),
  convert: () => Promise.reject(new DomainError('CONVERTER_OFF', 'document conversion is not available here; it runs in folio serve')),
  close: () => Promise.resolve(),
}
