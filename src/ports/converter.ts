import type { Readable } from 'node:stream'
import type { ConversionTarget } from '../core/conversion/formats.js'

/**
 * Document conversion (PDF, OOXML, open formats, text, thumbnails), implemented by the
 * LibreOffice pool and by ONLYOFFICE Docs' conversion service. Every conversion is
 * bounded in time and output size and fails with one of these codes:
 * - CONVERSION_UNSUPPORTED: the pair is not in the format table (core/conversion/formats.ts);
 * - CONVERSION_FAILED: the document could not be read or converted in time, or its result
 *   was too large (a bad or hostile document: the client's problem, with a message);
 * - CONVERTER_BUSY: the queue is full; `details.retryAfterSeconds` says when to retry;
 * - CONVERTER_OFF: no converter runs; the message says how to turn one on.
 */

/** The document to convert: a stored blob, or a stream. `extension` is the source's format. */
export type ConversionSource =
  { kind: 'blob'; blobKey: string; extension: string } | { kind: 'stream'; stream: Readable; extension: string }

export interface ConversionRequest {
  source: ConversionSource
  target: ConversionTarget
  /** Refuse (CONVERSION_FAILED) a result larger than this; the driver's own limit when lower. */
  maxOutputBytes?: number
  /** Cancels the conversion (a client that went away); the request then rejects. */
  signal?: AbortSignal
}

/**
 * A finished conversion, held in a temporary file until read. Read `stream` to its end
 * or call `discard`; either removes the temporary file.
 */
export interface ConvertedDocument {
  target: ConversionTarget
  size: number
  stream(): Readable
  discard(): Promise<void>
}

/** Which converter runs, for /readyz and the start-up log. */
export interface ConverterStatus {
  kind: 'libreoffice' | 'docs' | 'off'
  /** A short human description: the worker count, the Docs address, or how to turn it on. */
  detail: string
}

export interface Converter {
  status(): ConverterStatus
  convert(request: ConversionRequest): Promise<ConvertedDocument>
  /** Stops the converter's processes and removes its temporary files. */
  close(): Promise<void>
}
