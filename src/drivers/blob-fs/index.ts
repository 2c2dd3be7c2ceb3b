import { randomBytes } from 'node:crypto'
import { close as closeCallback, fstat as fstatCallback, open as openCallback, read as readCallback } from 'node:fs'
import { mkdir, open, opendir, readdir, rename, stat, statfs, unlink } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'

import {
  SMALL_BLOB_BYTES,
  type BlobListing,
  type BlobStore,
  type ByteRange,
  type DiskSpace,
  type PutOptions,
  type StoredBlob,
  type SweepReport,
} from '../../ports/blob-store.js'
import {
  blobMeter,
  bodyEndedEarly,
  checkChosenKey,
  checkPutOptions,
  checkRangeShape,
  KEY_PATTERN,
  newBlobKey,
  noSpace,
  notFound,
  rangeNotSatisfiable,
  tooLarge,
  watchBodyFailure,
} from '../blob-shared/put-rules.js'
import { blobReadStream } from './blob-read-stream.js'
import { createSmallBlobCache, type SmallBlobCache } from './small-blob-cache.js'

/** Folders and files are private to Folio's account, whatever the umask. */
const DIR_MODE = 0o700
const FILE_MODE = 0o600

export interface FsBlobStoreOptions {
  /** Folder that holds `blobs/` and `tmp/`; created when missing. */
  root: string
  /** Memory for the bytes of recently read small blobs (default 8 MiB; 0 turns it off). */
  smallBlobCacheBytes?: number
}

/** Blobs up to this size may be kept in memory once read (most documents are larger). */
const CACHED_BLOB_BYTES = SMALL_BLOB_BYTES

/**
 * Opens the filesystem blob store under `root`. A put streams into `tmp/`, is
 * fsynced and then renamed into `blobs/<2 chars>/<key>`, so a blob is either
 * whole and durable or absent; sweepTemporary removes what a crash left in `tmp/`. Folders
 * are created 0700 and files 0600 (only Folio's account may read them).
 */
export async function openFsBlobStore(options: FsBlobStoreOptions): Promise<BlobStore> {
  const blobsDir = join(options.root, 'blobs')
  const tmpDir = join(options.root, 'tmp')
  await mkdir(blobsDir, { recursive: true, mode: DIR_MODE })
  await mkdir(tmpDir, { recursive: true, mode: DIR_MODE })

  const blobPath = (key: string): string => join(blobsDir, key.slice(0, 2), key)
  // A GetFile of a small document an editor polls then costs no trip to the disk's thread pool.
  const cache = createSmallBlobCache({
    maxBlobBytes: CACHED_BLOB_BYTES,
    maxTotalBytes: options.smallBlobCacheBytes ?? 8 * 1024 * 1024,
  })

  /** Streams `source` into the blob `key`: temp file, fsync, rename, fsync of the folder. */
  async function write(key: string, source: Readable, putOptions: PutOptions): Promise<StoredBlob> {
    checkPutOptions(putOptions)
    const { maxBytes, expectedSize } = putOptions
    // Refuse before reading anything, so the caller can still answer on an intact connection.
    if (expectedSize !== undefined && expectedSize > maxBytes) {
      throw tooLarge(maxBytes)
    }

    // A random suffix: two writes of one chosen key never share a temp file.
    const tmpPath = join(tmpDir, `${key}.${randomBytes(4).toString('hex')}.tmp`)
    const finalPath = blobPath(key)
    const meter = blobMeter(putOptions)
    let handle: FileHandle | undefined
    let newShard = false

    // An error of the source itself (the client went away mid-body) is the client's
    // doing, not the store's: it becomes INVALID_INPUT below. Disk errors stay as they are.
    const watch = watchBodyFailure(source, [meter.stream])

    try {
      handle = await open(tmpPath, 'wx', FILE_MODE)
      const sink = fileSink(handle)
      watch.add(sink.stream)
      // Chunks are counted and hashed as they arrive, while earlier ones are still being
      // written: hashing and disk writes overlap instead of taking turns.
      await pipeline(source, meter.stream, sink.stream)
      await sink.settle()
      await handle.sync()
      await handle.close()
      handle = undefined
      newShard = (await mkdir(dirname(finalPath), { recursive: true, mode: DIR_MODE })) !== undefined
      await rename(tmpPath, finalPath)
      // putWithKey may replace a blob whose old bytes are remembered.
      cache.delete(key)
    } catch (error) {
      await handle?.close().catch(() => undefined)
      await unlinkIfPresent(tmpPath)
      if (watch.bodyFailed()) throw bodyEndedEarly()
      // Out of room part-way: the temp file is gone again, and the caller is told so plainly.
      if (hasCode(error, 'ENOSPC') || hasCode(error, 'EDQUOT')) throw noSpace(error)
      throw error
    } finally {
      watch.stop()
    }

    try {
      // The rename is only durable once the directory entry itself is on disk.
      await syncDirectory(dirname(finalPath))
      if (newShard) await syncDirectory(blobsDir)
    } catch (error) {
      await unlinkIfPresent(finalPath)
      throw error
    }
    return { key, size: meter.size(), sha256: meter.sha256() }
  }

  return {
    put: (source: Readable, putOptions: PutOptions) => write(newBlobKey(), source, putOptions),

    putWithKey: async (key: string, source: Readable, putOptions: PutOptions) =>
      write(checkChosenKey(key), source, putOptions),

    async get(key: string, range?: ByteRange): Promise<Readable> {
      if (!KEY_PATTERN.test(key)) throw notFound()
      if (range === undefined) {
        const cached = cache.get(key)
        if (cached !== undefined) return Readable.from([cached], { objectMode: false })
        return readWhole(blobPath(key), key, cache)
      }
      let fd: number
      try {
        fd = await openFile(blobPath(key), 'r')
      } catch (error) {
        if (hasCode(error, 'ENOENT')) throw notFound()
        throw error
      }
      try {
        const { size } = await fstatFile(fd)
        checkRangeShape(range)
        if (range.start >= size) throw rangeNotSatisfiable(range, size)
        // An end past the last byte is clamped by the stream, as HTTP clamps it.
        return blobReadStream(fd, range.start, range.end)
      } catch (error) {
        closeQuietly(fd)
        throw error
      }
    },

    async getSmall(key: string): Promise<Buffer | undefined> {
      if (!KEY_PATTERN.test(key)) throw notFound()
      return cache.get(key) ?? readSmall(blobPath(key), key, cache)
    },

    async delete(key: string): Promise<void> {
      if (!KEY_PATTERN.test(key)) return
      cache.delete(key)
      await unlinkIfPresent(blobPath(key))
    },

    async exists(key: string): Promise<boolean> {
      if (!KEY_PATTERN.test(key)) return false
      try {
        return (await stat(blobPath(key))).isFile()
      } catch (error) {
        if (hasCode(error, 'ENOENT')) return false
        throw error
      }
    },

    list(): AsyncIterable<BlobListing> {
      return listBlobs(blobsDir)
    },

    async sweepTemporary(olderThan: number): Promise<SweepReport> {
      return sweepTemps(tmpDir, olderThan)
    },

    async freeSpace(): Promise<DiskSpace> {
      const figures = await statfs(options.root)
      // bavail, not bfree: the blocks a filesystem keeps for root are not Folio's to use.
      return { freeBytes: figures.bavail * figures.bsize, totalBytes: figures.blocks * figures.bsize }
    },
  }
}

/** Every blob under blobs/<shard>/; names that are not keys (strays) are skipped. */
async function* listBlobs(blobsDir: string): AsyncGenerator<BlobListing> {
  for await (const shard of await opendir(blobsDir)) {
    if (!shard.isDirectory()) continue
    let entries
    try {
      entries = await opendir(join(blobsDir, shard.name))
    } catch (error) {
      if (hasCode(error, 'ENOENT')) continue
      throw error
    }
    for await (const entry of entries) {
      if (!entry.isFile() || !KEY_PATTERN.test(entry.name)) continue
      try {
        const info = await stat(join(blobsDir, shard.name, entry.name))
        yield { key: entry.name, modifiedAt: info.mtimeMs, size: info.size }
      } catch (error) {
        // Deleted since the directory was read.
        if (!hasCode(error, 'ENOENT')) throw error
      }
    }
  }
}

/** Removes temp files last modified before `olderThan`; a running upload keeps touching its own. */
async function sweepTemps(tmpDir: string, olderThan: number): Promise<SweepReport> {
  const report = { files: 0, bytes: 0 }
  for (const name of await readdir(tmpDir)) {
    const path = join(tmpDir, name)
    try {
      const info = await stat(path)
      if (info.isFile() && info.mtimeMs < olderThan) {
        await unlink(path)
        report.files++
        report.bytes += info.size
      }
    } catch (error) {
      // Another instance may have swept or finished the same file meanwhile.
      if (!hasCode(error, 'ENOENT')) throw error
    }
  }
  return report
}

/** How much may wait in memory for the disk while a write is under way (per upload). */
const SINK_BUFFER_BYTES = 1024 * 1024

/**
 * Bytes written between two early flushes of a big blob. The final fsync then waits only
 * for the tail instead of the whole body: in bench scenario 3 the fsync after the stream
 * of a 1 GiB upload took 450-570 ms before, 10-50 ms with it; after 100 MiB, 45-55 ms
 * before, 10-40 with it. The data is written once either way, only sooner.
 */
const EARLY_FLUSH_BYTES = 16 * 1024 * 1024

/** A Writable into an open file, and what the caller awaits before its own fsync. */
interface FileSink {
  stream: Writable
  /** Waits for an early flush still running; throws if one failed. */
  settle(): Promise<void>
}

/**
 * A Writable over an open file that writes whatever has queued up meanwhile in one
 * writev, one write at a time, and never closes the file (the caller fsyncs it). Every
 * EARLY_FLUSH_BYTES it starts an fdatasync in the background while the body keeps
 * flowing. Its failure fails the put: Linux reports a failed writeback once, so a later
 * fsync could succeed over lost bytes.
 */
function fileSink(handle: FileHandle): FileSink {
  let sinceFlush = 0
  let flushing: Promise<void> | undefined
  let flushError: Error | undefined
  const wrote = (bytes: number, callback: (error?: Error | null) => void) => {
    if (flushError) return callback(flushError)
    sinceFlush += bytes
    if (sinceFlush >= EARLY_FLUSH_BYTES && flushing === undefined) {
      sinceFlush = 0
      flushing = handle.datasync().then(
        () => {
          flushing = undefined
        },
        (error: Error) => {
          flushError ??= error
          flushing = undefined
        },
      )
    }
    callback()
  }
  const stream = new Writable({
    highWaterMark: SINK_BUFFER_BYTES,
    write(chunk: Uint8Array, _encoding, callback) {
      writeAll(handle, chunk).then(() => wrote(chunk.byteLength, callback), callback)
    },
    writev(chunks, callback) {
      const bytes = chunks.map((entry): Uint8Array => entry.chunk)
      const total = bytes.reduce((sum, chunk) => sum + chunk.byteLength, 0)
      writeAllv(handle, bytes).then(() => wrote(total, callback), callback)
    },
  })
  return {
    stream,
    async settle() {
      await flushing
      if (flushError) throw flushError
    },
  }
}

/**
 * Blobs shorter than this are read in one read; larger ones stream on after that read. One
 * byte over SMALL_BLOB_BYTES, so that a blob of exactly that size reads short and is whole.
 */
const FIRST_READ_BYTES = SMALL_BLOB_BYTES + 1

/** Idle 64 KiB read buffers, reused so a small read does not allocate (and GC) 64 KiB. */
const readBuffers: Buffer[] = []
const MAX_IDLE_READ_BUFFERS = 16

const openFile = promisify(openCallback)
const readAt = promisify(readCallback)
const fstatFile = promisify(fstatCallback)

/** An open blob's descriptor and its first bytes; `complete` when those are all of it. */
interface BlobHead {
  fd: number
  head: Buffer
  complete: boolean
}

/**
 * Opens a blob and reads up to its first 64 KiB in one read: a small blob (most documents
 * an editor opens) is then complete without the further trips to the thread pool of a file
 * stream (read to EOF, close awaited). Plain fs calls on a descriptor rather than a
 * FileHandle: on the GetFile path they cost about a quarter less CPU per call.
 */
async function readHead(path: string): Promise<BlobHead> {
  let fd: number
  try {
    fd = await openFile(path, 'r')
  } catch (error) {
    if (hasCode(error, 'ENOENT')) throw notFound()
    throw error
  }
  const first = readBuffers.pop() ?? Buffer.allocUnsafe(FIRST_READ_BYTES)
  try {
    const { bytesRead } = await readAt(fd, first, 0, first.length, 0)
    // A copy, so the read buffer can go back to the pool.
    const head = Buffer.allocUnsafe(bytesRead)
    first.copy(head, 0, 0, bytesRead)
    // A regular file reads short only at its end.
    return { fd, head, complete: bytesRead < first.length }
  } catch (error) {
    closeQuietly(fd)
    throw error
  } finally {
    if (readBuffers.length < MAX_IDLE_READ_BUFFERS) readBuffers.push(first)
  }
}

/** A small blob whole (remembered once read), or undefined when it is larger than one read. */
async function readSmall(path: string, key: string, cache: SmallBlobCache): Promise<Buffer | undefined> {
  const { fd, head, complete } = await readHead(path)
  closeQuietly(fd)
  if (!complete) return undefined
  cache.set(key, head)
  return head
}

/**
 * A whole blob as a stream: complete after readHead for a small one, and a larger one
 * streams on from where that read ended. Memory per call stays bounded (64 KiB plus the
 * stream's own buffer) whatever the blob's size.
 */
async function readWhole(path: string, key: string, cache: SmallBlobCache): Promise<Readable> {
  const { fd, head, complete } = await readHead(path)
  if (complete) {
    closeQuietly(fd)
    cache.set(key, head)
    return Readable.from([head], { objectMode: false })
  }
  // The stream owns the descriptor from here and closes it when it ends or is destroyed.
  const rest = blobReadStream(fd, head.length)
  rest.unshift(head)
  return rest
}

/** Closes without waiting: nothing depends on the close of a file that was only read. */
function closeQuietly(fd: number): void {
  closeCallback(fd, () => undefined)
}

async function writeAllv(handle: FileHandle, chunks: Uint8Array[]): Promise<void> {
  const total = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0)
  const { bytesWritten } = await handle.writev(chunks)
  // A short write is rare on a regular file; finish it the simple way.
  if (bytesWritten < total) await writeAll(handle, Buffer.concat(chunks).subarray(bytesWritten))
}

async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0
  while (offset < bytes.byteLength) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.byteLength - offset)
    offset += bytesWritten
  }
}

async function syncDirectory(path: string): Promise<void> {
  // Windows cannot open a directory for fsync; NTFS journals the rename anyway.
  if (process.platform === 'win32') return
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path)
  } catch (error) {
    if (!hasCode(error, 'ENOENT')) throw error
  }
}

function hasCode(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code
}
