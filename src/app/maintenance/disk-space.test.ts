import assert from 'node:assert/strict'
import { createWriteStream } from 'node:fs'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { describe, test } from 'node:test'

import { DomainError } from '../../core/errors.js'
import type { BlobStore, PutOptions, StoredBlob } from '../../ports/blob-store.js'
import type { Logger } from '../../ports/logger.js'
import { withSpaceReserve } from './disk-space.js'

/**
 * The reserve over a blob store double whose disk is a number (and whose writes may go to
 * /dev/full, which fails every write with a real ENOSPC and needs no root): the same rules
 * test/e2e/disk-full.test.ts checks on a real tmpfs where it may mount one.
 */
const MiB = 1024 * 1024

function doubleStore(disk: { freeBytes: number; reads: number }, sink: () => Writable): BlobStore {
  let next = 0
  const put = async (source: Readable, _options: PutOptions): Promise<StoredBlob> => {
    let size = 0
    source.on('data', (chunk: Buffer) => (size += chunk.length))
    try {
      await pipeline(source, sink())
    } catch (error) {
      // As the filesystem driver: out of room is INSUFFICIENT_STORAGE, the cause kept.
      if (error instanceof Error && 'code' in error && error.code === 'ENOSPC') {
        throw Object.assign(new DomainError('INSUFFICIENT_STORAGE', 'no room'), { cause: error })
      }
      throw error
    }
    disk.freeBytes -= size
    return { key: `key-${next++}`.padEnd(16, '0'), size, sha256: '' }
  }
  return {
    put,
    putWithKey: (_key, source, options) => put(source, options),
    get: () => Promise.reject(new DomainError('NOT_FOUND', 'none')),
    getSmall: () => Promise.resolve(undefined),
    delete: async () => {
      disk.freeBytes += 4 * MiB
    },
    exists: () => Promise.resolve(false),
    list: async function* () {},
    sweepTemporary: () => Promise.resolve({ files: 0, bytes: 0 }),
    freeSpace: async () => {
      disk.reads++
      return { freeBytes: disk.freeBytes, totalBytes: 64 * MiB }
    },
  }
}

const nowhere = () => new Writable({ write: (_chunk, _encoding, callback) => callback() })

interface LogLine {
  level: string
  fields: Record<string, unknown>
  message: string
}

function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = []
  const at = (level: string) => (fields: object | string, message?: string) => {
    lines.push({ level, fields: typeof fields === 'string' ? {} : { ...fields }, message: message ?? String(fields) })
  }
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

const clock = { now: () => 0 }
const bytes = (size: number) => Readable.from([Buffer.alloc(size, 1)])

describe('the reserve of free space', () => {
  test('a put that would leave less than the reserve is refused and keeps nothing; the bytes of earlier puts count', async () => {
    const disk = { freeBytes: 10 * MiB, reads: 0 }
    const logger = recordingLogger()
    const { blobs } = withSpaceReserve(doubleStore(disk, nowhere), { reserveBytes: 8 * MiB, clock, logger })
    await blobs.put(bytes(MiB), { maxBytes: 64 * MiB, expectedSize: MiB })
    // The first MiB is counted against the same reading: 1 MiB is left above the reserve.
    const source = bytes(1.5 * MiB)
    await assert.rejects(blobs.put(source, { maxBytes: 64 * MiB, expectedSize: 1.5 * MiB }), {
      code: 'INSUFFICIENT_STORAGE',
    })
    assert.equal(disk.reads, 1, 'one reading served both puts')
    assert.equal(disk.freeBytes, 9 * MiB, 'nothing of the refused put was stored')
    assert.ok(logger.lines.some((line) => line.level === 'warn' && /reserve/.test(line.message)))
    // A refusal reads the disk afresh next time; a delete frees space, and puts work again.
    await blobs.delete('whatever-key-0000')
    await blobs.put(bytes(MiB), { maxBytes: 64 * MiB, expectedSize: MiB })
    assert.equal(disk.reads, 2)
  })

  test('a body of undeclared size is refused once it passes the room above the reserve, and the request survives', async () => {
    const disk = { freeBytes: 10 * MiB, reads: 0 }
    const { blobs } = withSpaceReserve(doubleStore(disk, nowhere), {
      reserveBytes: 8 * MiB,
      clock,
      logger: recordingLogger(),
    })
    const chunks = Array.from({ length: 12 }, () => Buffer.alloc(256 * 1024, 2))
    const request = Readable.from(chunks)
    await assert.rejects(blobs.put(request, { maxBytes: 64 * MiB }), { code: 'INSUFFICIENT_STORAGE' })
    assert.equal(request.destroyed, false, 'the request stays open for the answer')
    assert.equal(disk.freeBytes, 10 * MiB)
  })

  test('with no reserve the disk is not read, and a write that meets a real ENOSPC is logged at error', async () => {
    const disk = { freeBytes: 0, reads: 0 }
    const logger = recordingLogger()
    const { blobs } = withSpaceReserve(
      doubleStore(disk, () => createWriteStream('/dev/full')),
      {
        reserveBytes: 0,
        clock,
        logger,
      },
    )
    await assert.rejects(blobs.put(bytes(64 * 1024), { maxBytes: MiB }), { code: 'INSUFFICIENT_STORAGE' })
    assert.equal(disk.reads, 0)
    const logged = logger.lines.find((line) => line.level === 'error')
    assert.ok(logged)
    assert.equal(logged.fields.operation, 'blob put')
    const cause = logged.fields.err
    assert.ok(cause instanceof Error && 'code' in cause && cause.code === 'ENOSPC')
  })

  test('a request closed before its end without an error fails the put as cut short, not a hang', async () => {
    const disk = { freeBytes: 100 * MiB, reads: 0 }
    const { blobs } = withSpaceReserve(doubleStore(disk, nowhere), {
      reserveBytes: 8 * MiB,
      clock,
      logger: recordingLogger(),
    })
    const request = new Readable({ read() {} })
    request.push(Buffer.alloc(1024))
    const put = blobs.put(request, { maxBytes: MiB })
    setImmediate(() => request.destroy())
    await assert.rejects(put, { code: 'ECONNRESET' })
  })

  test('the report says how much is free and whether it is below the reserve', async () => {
    const disk = { freeBytes: 5 * MiB, reads: 0 }
    const { space } = withSpaceReserve(doubleStore(disk, nowhere), {
      reserveBytes: 8 * MiB,
      clock,
      logger: recordingLogger(),
    })
    assert.deepEqual(await space(), { freeBytes: 5 * MiB, totalBytes: 64 * MiB, reserveBytes: 8 * MiB, low: true })
  })
})
