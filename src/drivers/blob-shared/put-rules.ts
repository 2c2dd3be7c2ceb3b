import { createHash, randomBytes } from 'node:crypto'
import { Transform } from 'node:stream'
import type { Readable, Stream } from 'node:stream'

import { DomainError } from '../../core/errors.js'
import type { ByteRange, PutOptions } from '../../ports/blob-store.js'
import { RECLAIM_EVERY_BYTES, reclaimBodyBuffers } from './reclaim.js'

/**
 * The keys every blob driver hands out: 24 random base64url characters today. Only
 * characters that cannot form a path separator or a dot segment, so no key leaves a
 * store's folder or prefix; anything else is treated as a blob that does not exist.
 */
export const KEY_PATTERN = /^[A-Za-z0-9_-]{16,64}$/

/** A fresh random key, as every driver hands out. */
export function newBlobKey(): string {
  return randomBytes(18).toString('base64url')
}

/** Throws INVALID_INPUT unless `key` has the shape of the keys the drivers hand out. */
export function checkChosenKey(key: string): string {
  if (!KEY_PATTERN.test(key)) throw new DomainError('INVALID_INPUT', 'not a blob key')
  return key
}

/** Throws INVALID_INPUT unless the limits are non-negative integers. */
export function checkPutOptions(options: PutOptions): void {
  if (!Number.isSafeInteger(options.maxBytes) || options.maxBytes < 0) {
    throw new DomainError('INVALID_INPUT', 'maxBytes must be a non-negative integer')
  }
  const expected = options.expectedSize
  if (expected !== undefined && (!Number.isSafeInteger(expected) || expected < 0)) {
    throw new DomainError('INVALID_INPUT', 'expectedSize must be a non-negative integer')
  }
}

/** Throws RANGE_NOT_SATISFIABLE for a range no blob could satisfy (negative, reversed). */
export function checkRangeShape(range: ByteRange): void {
  const valid =
    Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end) && range.start >= 0 && range.end >= range.start
  if (!valid) throw rangeNotSatisfiable(range)
}

/** A byte stream being stored: counted, hashed and held to its limits as it passes. */
export interface BlobMeter {
  /** Pass-through that fails with the put's error code once a limit is broken. */
  stream: Transform
  /** Bytes seen so far. */
  size(): number
  /** Lowercase hex SHA-256 of the bytes; call once, after the stream ended. */
  sha256(): string
}

/**
 * Counts and hashes the bytes of a put on their way through, and fails the stream with
 * PAYLOAD_TOO_LARGE as soon as more than maxBytes arrived, or INVALID_INPUT when the
 * body runs past, or ends short of, the declared expectedSize. A short body fails at
 * its end, before the stream ends, so nothing downstream ever sees a clean end.
 */
export function blobMeter(options: PutOptions): BlobMeter {
  const { maxBytes, expectedSize } = options
  const hash = createHash('sha256')
  let size = 0
  const stream = new Transform({
    transform(chunk: unknown, _encoding, callback) {
      try {
        const bytes = toBytes(chunk)
        size += bytes.byteLength
        if (size > maxBytes) throw tooLarge(maxBytes)
        if (expectedSize !== undefined && size > expectedSize) throw sizeMismatch(expectedSize)
        hash.update(bytes)
        // At each 8 MiB boundary the chunks already passed on can be freed.
        const before = size - bytes.byteLength
        if (Math.floor(before / RECLAIM_EVERY_BYTES) < Math.floor(size / RECLAIM_EVERY_BYTES)) {
          reclaimBodyBuffers()
        }
        callback(null, bytes)
      } catch (error) {
        callback(error instanceof Error ? error : new Error(String(error)))
      }
    },
    flush(callback) {
      if (expectedSize !== undefined && size !== expectedSize) {
        callback(sizeMismatch(expectedSize))
        return
      }
      callback()
    },
  })
  return { stream, size: () => size, sha256: () => hash.digest('hex') }
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8')
  throw new DomainError('INVALID_INPUT', 'blob source must yield bytes')
}

export function notFound(): DomainError {
  return new DomainError('NOT_FOUND', 'blob not found')
}

export function tooLarge(maxBytes: number): DomainError {
  return new DomainError('PAYLOAD_TOO_LARGE', `body is larger than ${maxBytes} bytes`)
}

/**
 * The store had no room for the blob (a full disk, a bucket over its quota); `cause` is
 * the store's own error, kept for the log.
 */
export function noSpace(cause?: unknown): DomainError {
  const error = new DomainError(
    'INSUFFICIENT_STORAGE',
    'there is no room left to store the file; delete files or empty the trash, or ask an admin',
  )
  if (cause !== undefined) error.cause = cause
  return error
}

export function sizeMismatch(expectedSize: number): DomainError {
  return new DomainError('INVALID_INPUT', `body length differs from the declared ${expectedSize}`)
}

export function rangeNotSatisfiable(range: ByteRange, size?: number): DomainError {
  const of = size === undefined ? 'the blob' : `a blob of ${size} bytes`
  return new DomainError('RANGE_NOT_SATISFIABLE', `range ${range.start}-${range.end} is outside ${of}`)
}

/** Tells whether a put failed because its request body did. */
export interface BodyFailureWatch {
  /**
   * True when the first failure so far was the body's own (a reset or aborted
   * connection) and not already a client error with its own answer: the put should then
   * fail with bodyEndedEarly() rather than as a fault of the store. Ask before the put
   * destroys any stream itself.
   */
  bodyFailed(): boolean
  /** Watches one more stream the body flows into (one made after the watch began). */
  add(stream: Stream): void
  /** Removes the listeners; call before the put destroys streams of its own accord. */
  stop(): void
}

/**
 * Watches the streams of a put to learn which failed first. A pipeline destroys every
 * stream with the first error, so the source also reports a store's failure (disk
 * full, server gone); only an error the source raised before any of `downstream` did
 * is the body's own. Start it before anything is awaited, so an early error of the
 * source is caught too.
 */
export function watchBodyFailure(source: Readable, downstream: Stream[]): BodyFailureWatch {
  let first: { error: unknown; fromSource: boolean } | undefined
  const onSource = (error: unknown): void => {
    first ??= { error, fromSource: true }
  }
  const onDownstream = (error: unknown): void => {
    first ??= { error, fromSource: false }
  }
  const watched = [...downstream]
  source.once('error', onSource)
  for (const stream of watched) stream.once('error', onDownstream)
  return {
    bodyFailed: () => first !== undefined && first.fromSource && !isClientError(first.error),
    add: (stream) => {
      watched.push(stream)
      stream.once('error', onDownstream)
    },
    stop: () => {
      source.removeListener('error', onSource)
      for (const stream of watched) stream.removeListener('error', onDownstream)
    },
  }
}

/**
 * True for an error the client caused and that already says so: a DomainError, or an
 * error that carries a 4xx status (a body timeout answers 408).
 */
export function isClientError(error: unknown): boolean {
  if (error instanceof DomainError) return true
  if (!(error instanceof Error) || !('statusCode' in error)) return false
  const status = error.statusCode
  return typeof status === 'number' && status >= 400 && status < 500
}

/** The request body failed before its end: the client's doing, not the store's. */
export function bodyEndedEarly(): DomainError {
  return new DomainError('INVALID_INPUT', 'the body ended early (the client closed the connection?)')
}
