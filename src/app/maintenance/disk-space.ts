import { PassThrough, Transform, type Readable } from 'node:stream'

import { DomainError, isDomainError } from '../../core/errors.js'
import type { BlobStore, DiskSpace, PutOptions, StoredBlob } from '../../ports/blob-store.js'
import type { Clock } from '../../ports/clock.js'
import type { Logger } from '../../ports/logger.js'

/** How long one reading of the free space serves puts (a statfs per put would be cheap too, but bursts of saves need none). */
const READING_TTL_MS = 1000

/** The free space of the data folder's disk and the reserve kept on it. */
export interface SpaceReport extends DiskSpace {
  reserveBytes: number
  /** True when the free space is below the reserve: writes of file contents are refused. */
  low: boolean
}

/** The blob store with the reserve applied, and where its free space is read. */
export interface ReservedBlobs {
  blobs: BlobStore
  /** The free space now (read afresh), or undefined for a store without a local disk. */
  space(): Promise<SpaceReport | undefined>
}

/** The refusal of a write that would eat into the reserve. */
function belowReserve(): DomainError {
  return new DomainError(
    'INSUFFICIENT_STORAGE',
    'the server is running out of disk space, so new file contents are not accepted; delete files or empty the trash, or ask an admin',
  )
}

/**
 * `blobs` with a reserve of free space kept on its disk: a put that would leave less than
 * `reserveBytes` free is refused with INSUFFICIENT_STORAGE, up front when its size is
 * declared, else as soon as its bytes pass what is left above the reserve. Everything
 * else Folio writes (metadata rows, the database's log, a lock, a sign-in) is small and
 * never refused here, so it finds room in the reserve, and deleting, which frees space,
 * keeps working. The free space is read at most once a second (a statfs), and the bytes
 * of the puts since that reading, running ones included, are counted against it.
 *
 * For every store, a put out of room (the disk filling up part-way, a bucket's quota) is
 * logged at error with what was written, and the request's body is kept out of the
 * store's stream pipeline, so the adapter can still answer 507 on the connection.
 */
export function withSpaceReserve(
  blobs: BlobStore,
  options: { reserveBytes: number; clock: Clock; logger: Logger },
): ReservedBlobs {
  const { reserveBytes, clock, logger } = options
  const freeSpace = blobs.freeSpace?.bind(blobs)
  /** The last reading, and the bytes puts have sent to the disk since it was taken. */
  let reading: { at: number; space: Promise<DiskSpace>; freeBytes?: number; since: number } | undefined

  const readSpace = (): Promise<DiskSpace> | undefined => {
    if (freeSpace === undefined || reserveBytes === 0) return undefined
    const now = clock.now()
    if (reading === undefined || now - reading.at >= READING_TTL_MS) {
      const space = freeSpace()
      const fresh: NonNullable<typeof reading> = { at: now, space, since: 0 }
      reading = fresh
      space.then(
        (figures) => {
          fresh.freeBytes = figures.freeBytes
        },
        // A failed reading is not kept: the next put reads again.
        () => {
          if (reading === fresh) reading = undefined
        },
      )
    }
    return reading.space
  }
  const forget = () => {
    reading = undefined
  }
  /** Bytes left above the reserve now; Infinity when unknown or no reserve is kept. */
  const room = (): number =>
    reading?.freeBytes === undefined ? Infinity : reading.freeBytes - reading.since - reserveBytes
  const spend = (bytes: number) => {
    if (reading !== undefined) reading.since += bytes
  }

  function refuse(source: Readable, size: number | undefined): never {
    logger.warn(
      { freeBytes: reading?.freeBytes, reserveBytes, size },
      'refused to store file contents: the disk of the data folder is down to its reserve',
    )
    source.resume()
    // Read afresh next time: space freed meanwhile (by a delete, or outside Folio) counts at once.
    forget()
    throw belowReserve()
  }

  async function guarded(
    what: 'put' | 'putWithKey',
    source: Readable,
    putOptions: PutOptions,
    write: (body: Readable) => Promise<StoredBlob>,
  ): Promise<StoredBlob> {
    // A disk whose free space cannot be read is written to as before (the write itself
    // still fails cleanly when it finds no room).
    await readSpace()?.catch((error: unknown) => {
      logger.warn({ err: error }, 'could not read the free space of the data folder')
    })
    const declared = putOptions.expectedSize
    if (room() <= 0 || (declared !== undefined && room() < declared)) refuse(source, declared)
    // A declared size is held to by the store: counted once, here.
    if (declared !== undefined) spend(declared)
    try {
      return await write(shielded(source, declared === undefined ? spend : undefined, room))
    } catch (error) {
      if (isDomainError(error) && error.code === 'INSUFFICIENT_STORAGE') {
        forget()
        if (error.cause !== undefined) {
          logger.error({ err: error.cause, operation: `blob ${what}` }, 'no room left to store file contents')
        }
      }
      throw error
    }
  }

  const reserved: BlobStore = {
    put: (source, putOptions) => guarded('put', source, putOptions, (body) => blobs.put(body, putOptions)),
    putWithKey: (key, source, putOptions) =>
      guarded('putWithKey', source, putOptions, (body) => blobs.putWithKey(key, body, putOptions)),
    delete: async (key) => {
      await blobs.delete(key)
      // Space was freed: the next put reads it afresh.
      forget()
    },
    get: (key, range) => blobs.get(key, range),
    getSmall: (key) => blobs.getSmall(key),
    exists: (key) => blobs.exists(key),
    list: () => blobs.list(),
    sweepTemporary: (olderThan) => blobs.sweepTemporary(olderThan),
    ...(freeSpace ? { freeSpace } : {}),
    ...(blobs.close ? { close: () => blobs.close?.() ?? Promise.resolve() } : {}),
  }

  return {
    blobs: reserved,
    async space() {
      if (freeSpace === undefined) return undefined
      const space = await freeSpace()
      return { ...space, reserveBytes, low: space.freeBytes < reserveBytes }
    },
  }
}

/**
 * The request's bytes through a stream of their own, so a store that fails and destroys
 * its input destroys this one, not the request: the connection stays open for the answer.
 * The request's own failure (the client gone, a body timeout) is passed on. With `spend`
 * (a body of undeclared size) each chunk is counted, and refused once it would eat into
 * the reserve.
 */
function shielded(source: Readable, spend: ((bytes: number) => void) | undefined, room: () => number): Readable {
  const shield: Transform =
    spend === undefined
      ? new PassThrough()
      : new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            if (room() < chunk.length) {
              callback(belowReserve())
              return
            }
            spend(chunk.length)
            callback(null, chunk)
          },
        })
  const onError = (error: Error) => shield.destroy(error)
  // A request that closes before its end without an error (a destroyed stream) would
  // leave the store waiting for bytes that never come: it fails as a cut connection.
  const cut = () => Object.assign(new Error('aborted'), { code: 'ECONNRESET' })
  const onClose = () => {
    if (!source.readableEnded) shield.destroy(cut())
  }
  // A source that failed before it reached here (a multipart part torn down while the
  // upload's folder was being checked) will send neither 'error' nor 'close' again.
  if (source.destroyed && !source.readableEnded) {
    shield.destroy(source.errored ?? cut())
    return shield
  }
  source.once('error', onError)
  source.once('close', onClose)
  shield.once('close', () => {
    source.removeListener('error', onError)
    source.removeListener('close', onClose)
    if (!source.readableEnded) source.unpipe(shield)
  })
  return source.pipe(shield)
}
