import {
  canConvert,
  convertedName,
  isConversionTarget,
  normalizeExtension,
  type ConversionTarget,
} from '../../core/conversion/formats.js'
import { previewFormatOf, type PreviewKind } from '../../core/conversion/preview.js'
import type { FileRecord } from '../../core/entities.js'
import { DomainError } from '../../core/errors.js'
import { extensionOf } from '../../core/names/file-names.js'
import type { Readable } from 'node:stream'
import type { BlobStore } from '../../ports/blob-store.js'
import type { Converter, ConverterStatus } from '../../ports/converter.js'
import type { RenditionRepository } from '../../ports/metadata-store.js'
import type { Principal } from '../access.js'
import { createRenditions } from './renditions.js'
import type { ThumbnailStatus } from './thumbnail-job.js'
import type { OoxmlConversionView } from './to-ooxml.js'

export type { OoxmlConversionView } from './to-ooxml.js'

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
   * converted file's name: made once per stored contents and kept (a rendition), read
   * from the blob store afterwards. NOT_FOUND without read access; CONVERSION_UNSUPPORTED
   * for a pair outside the format table; the converter's own errors otherwise.
   */
  downloadAs(by: Principal, fileId: string, outputType: string): Promise<DownloadedAs>
  /**
   * An image of the current version's first page (PNG, at most 512 px a side), made on the
   * first request and kept like any rendition. Same access and errors as downloadAs.
   */
  thumbnail(by: Principal, fileId: string): Promise<DownloadedAs>
  /**
   * What a browser shows of the current version: a PDF, an image or text as stored, else
   * the PDF rendition (made like a download as). Same access as a download (NOT_FOUND
   * without it); CONVERSION_UNSUPPORTED for a file with no preview; CONVERTER_OFF when a
   * rendition is needed and no converter runs.
   */
  preview(by: Principal, fileId: string): Promise<Preview>
  /**
   * The thumbnail status of files the caller has already read (a listing): 0 waiting,
   * 1 created, 2 not required, 3 error; two queries for any number of files.
   */
  thumbnailStatuses(files: readonly FileRecord[]): Promise<Map<string, ThumbnailStatus>>
  /**
   * Starts converting a legacy or open document to its OOXML twin beside it (a background
   * job; `sync` waits for it). Needs the file's download right and create in its folder.
   */
  startToOoxml(by: Principal, fileId: string, options: { sync: boolean }): Promise<OoxmlConversionView | undefined>
  /** Where `by`'s conversion of the file to OOXML stands (undefined when none was started). */
  toOoxmlStatus(by: Principal, fileId: string): Promise<OoxmlConversionView | undefined>
}

/** A preview: the stored file itself, or its PDF rendition. */
export type Preview =
  | { kind: Exclude<PreviewKind, 'converted'>; contentType: string; file: FileRecord }
  | { kind: 'converted'; contentType: string; converted: DownloadedAs }

/** A converted file on its way to the client. */
export interface DownloadedAs {
  fileName: string
  target: ConversionTarget
  size: number
  stream: Readable
}

/** What the service needs: the converter, the largest result, and the access-checked file read. */
export interface ConversionDependencies {
  converter: Converter
  maxOutputBytes: number
  /** The file when `by` may do `action` on it ('read' for what is shown, 'download' for what is handed out). */
  fileFor(by: Principal, fileId: string, action: 'read' | 'download'): Promise<FileRecord>
  renditions: RenditionRepository
  blobs: BlobStore
  now: () => number
  statuses(files: readonly FileRecord[]): Promise<Map<string, ThumbnailStatus>>
  toOoxml: Pick<ConversionService, 'startToOoxml' | 'toOoxmlStatus'>
}

/** The target an `outputtype` names, or CONVERSION_UNSUPPORTED saying what it can be. */
export function targetOf(outputType: string): ConversionTarget {
  const normalized = normalizeExtension(outputType)
  if (normalized === undefined || !isConversionTarget(normalized)) {
    throw new DomainError(
      'CONVERSION_UNSUPPORTED',
      `Folio cannot convert to ${JSON.stringify(outputType.slice(0, 20))}`,
    )
  }
  return normalized
}

export function createConversionService(deps: ConversionDependencies): ConversionService {
  const renditions = createRenditions(deps)
  return {
    status: () => deps.converter.status(),
    downloadAs: (by, fileId, outputType) => convertCurrent(by, fileId, targetOf(outputType), 'download'),
    // A thumbnail and a preview are what a view shows: a link that denies downloads shows them.
    thumbnail: (by, fileId) => convertCurrent(by, fileId, 'png', 'read'),
    preview: async (by, fileId) => {
      const file = await deps.fileFor(by, fileId, 'read')
      const format = previewFormatOf(extensionOf(file.title))
      if (format === undefined) {
        throw new DomainError(
          'CONVERSION_UNSUPPORTED',
          `Folio shows no preview of a .${extensionOf(file.title) || 'file without an extension'}; download it instead`,
        )
      }
      if (format.kind !== 'converted') return { kind: format.kind, contentType: format.contentType, file }
      return {
        kind: 'converted',
        contentType: format.contentType,
        converted: await convertCurrent(by, fileId, 'pdf', 'read'),
      }
    },
    thumbnailStatuses: (files) => deps.statuses(files),
    startToOoxml: (by, fileId, options) => deps.toOoxml.startToOoxml(by, fileId, options),
    toOoxmlStatus: (by, fileId) => deps.toOoxml.toOoxmlStatus(by, fileId),
  }

  async function convertCurrent(
    by: Principal,
    fileId: string,
    target: ConversionTarget,
    action: 'read' | 'download',
  ): Promise<DownloadedAs> {
    const file = await deps.fileFor(by, fileId, action)
    const extension = extensionOf(file.title)
    if (!canConvert(extension, target)) {
      throw new DomainError(
        'CONVERSION_UNSUPPORTED',
        `a .${extension || 'file without an extension'} cannot be converted to .${target}`,
      )
    }
    const { record, stream } = await renditions.open({ blobKey: file.blobKey, extension }, target)
    return { fileName: convertedName(file.title, target), target, size: record.size, stream }
  }
}

export { NO_CONVERTER } from './no-converter.js'

/**
 * Removes the renditions of contents no version holds any more, rows and blobs, once those
 * contents are freed. A failure leaves an unreferenced blob, which the garbage collector
 * removes later (a rendition's blob counts as used only while its source is).
 */
export async function dropRenditionsOf(
  parts: { store: { renditions: RenditionRepository }; blobs: BlobStore },
  freedSourceKeys: string[],
): Promise<void> {
  if (freedSourceKeys.length === 0) return
  const renditionKeys = await parts.store.renditions.removeBySources(freedSourceKeys)
  await Promise.all(renditionKeys.map((key) => parts.blobs.delete(key).catch(() => undefined)))
}
