import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'

import { isDomainError } from '../../src/core/errors.js'
import type { ErrorCode } from '../../src/core/errors.js'
import { SMALL_BLOB_BYTES, type BlobStore } from '../../src/ports/blob-store.js'

/** What a driver's test hands the suite: a fresh, empty store and how to dispose of it. */
export interface OpenedBlobStore {
  store: BlobStore
  cleanup: () => Promise<void>
}

const MiB = 1024 * 1024
const LIMIT = 64 * MiB

/**
 * The behaviour every BlobStore driver promises. Call it from the driver's test
 * file; `open` must return a store that starts empty.
 */
export function runBlobStoreContract(name: string, open: () => Promise<OpenedBlobStore>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let opened: OpenedBlobStore | undefined
    const store = (): BlobStore => {
      if (opened === undefined) throw new Error('store not opened')
      return opened.store
    }

    before(async () => {
      opened = await open()
    })
    after(async () => {
      await opened?.cleanup()
    })

    test('round trip keeps the bytes and reports size and sha256', async () => {
      const bytes = randomBytes(10_000)
      const stored = await store().put(Readable.from([bytes]), { maxBytes: LIMIT })
      assert.equal(stored.size, bytes.length)
      assert.equal(stored.sha256, sha256(bytes))
      assert.match(stored.key, /^[A-Za-z0-9._~-]+$/)
      assert.equal(await store().exists(stored.key), true)
      assert.deepEqual(await readAll(await store().get(stored.key)), bytes)
    })

    test('an empty body is a 0-byte blob', async () => {
      const stored = await store().put(Readable.from([]), { maxBytes: LIMIT, expectedSize: 0 })
      assert.equal(stored.size, 0)
      assert.equal(stored.sha256, sha256(Buffer.alloc(0)))
      assert.equal(await store().exists(stored.key), true)
      assert.equal((await readAll(await store().get(stored.key))).length, 0)
    })

    test('a multi-MiB body sent in many small chunks comes back intact', async () => {
      const bytes = randomBytes(5 * MiB + 123)
      const stored = await store().put(Readable.from(chunksOf(bytes, 16 * 1024)), {
        maxBytes: LIMIT,
        expectedSize: bytes.length,
      })
      assert.equal(stored.size, bytes.length)
      assert.equal(stored.sha256, sha256(bytes))
      const back = await readAll(await store().get(stored.key))
      assert.equal(back.length, bytes.length)
      assert.ok(back.equals(bytes))
    })

    test('ranges are inclusive: first byte, middle, last byte', async () => {
      const bytes = randomBytes(3 * MiB)
      const { key } = await store().put(Readable.from(chunksOf(bytes, 64 * 1024)), {
        maxBytes: LIMIT,
      })
      const last = bytes.length - 1
      const middle = { start: MiB - 10, end: 2 * MiB + 10 }
      assert.deepEqual(await readAll(await store().get(key, { start: 0, end: 0 })), bytes.subarray(0, 1))
      assert.deepEqual(await readAll(await store().get(key, middle)), bytes.subarray(middle.start, middle.end + 1))
      assert.deepEqual(await readAll(await store().get(key, { start: last, end: last })), bytes.subarray(last))
    })

    test('a range starting past the end is RANGE_NOT_SATISFIABLE', async () => {
      const { key } = await store().put(Readable.from([Buffer.from('0123456789')]), {
        maxBytes: LIMIT,
      })
      await assert.rejects(store().get(key, { start: 10, end: 20 }), hasCode('RANGE_NOT_SATISFIABLE'))
    })

    test('a body over maxBytes is refused at once and nothing is kept', async () => {
      const maxBytes = 100 * 1024
      let produced = 0
      // An endless body: the store must stop pulling soon after the limit.
      async function* endless(): AsyncGenerator<Buffer> {
        for (;;) {
          produced += 16 * 1024
          yield Buffer.alloc(16 * 1024, 7)
        }
      }
      await assert.rejects(store().put(Readable.from(endless()), { maxBytes }), hasCode('PAYLOAD_TOO_LARGE'))
      assert.ok(produced < maxBytes + MiB, `read ${produced} bytes after a ${maxBytes}-byte limit`)

      // One byte over is already too much; exactly the limit is fine.
      const exact = Buffer.alloc(maxBytes, 1)
      await assert.rejects(
        store().put(Readable.from([exact, Buffer.from([1])]), { maxBytes }),
        hasCode('PAYLOAD_TOO_LARGE'),
      )
      const fits = await store().put(Readable.from([exact]), { maxBytes })
      assert.equal(fits.size, maxBytes)
    })

    test('a declared size larger than maxBytes is PAYLOAD_TOO_LARGE', async () => {
      await assert.rejects(
        store().put(Readable.from([Buffer.from('abc')]), { maxBytes: 2, expectedSize: 3 }),
        hasCode('PAYLOAD_TOO_LARGE'),
      )
    })

    test('a body shorter or longer than expectedSize is INVALID_INPUT', async () => {
      const body = (): Readable => Readable.from([Buffer.from('0123456789')])
      await assert.rejects(store().put(body(), { maxBytes: LIMIT, expectedSize: 11 }), hasCode('INVALID_INPUT'))
      await assert.rejects(store().put(body(), { maxBytes: LIMIT, expectedSize: 9 }), hasCode('INVALID_INPUT'))
      const ok = await store().put(body(), { maxBytes: LIMIT, expectedSize: 10 })
      assert.equal(ok.size, 10)
    })

    test('a source that fails half way rejects the put', async () => {
      async function* failing(): AsyncGenerator<Buffer> {
        yield randomBytes(64 * 1024)
        throw new Error('client went away')
      }
      await assert.rejects(store().put(Readable.from(failing()), { maxBytes: LIMIT }), { code: 'INVALID_INPUT' })
    })

    test('a source destroyed half way (client disconnect) rejects the put', async () => {
      const source = new Readable({ read() {} })
      source.push(randomBytes(64 * 1024))
      const put = store().put(source, { maxBytes: LIMIT })
      setImmediate(() => source.destroy())
      await assert.rejects(put, { code: /^(INVALID_INPUT|ERR_STREAM_PREMATURE_CLOSE)$/ })
    })

    test('finding 14: a body that breaks off (client gone) is INVALID_INPUT and stores nothing', async () => {
      const keysBefore = await listedKeys(store())
      const source = new Readable({ read() {} })
      source.push(randomBytes(64 * 1024))
      const put = store().put(source, { maxBytes: LIMIT })
      setImmediate(() => source.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })))
      await assert.rejects(put, hasCode('INVALID_INPUT'))
      assert.deepEqual(await listedKeys(store()), keysBefore)
    })

    test('delete removes the blob; deleting again is fine', async () => {
      const { key } = await store().put(Readable.from([Buffer.from('bye')]), { maxBytes: LIMIT })
      await store().delete(key)
      assert.equal(await store().exists(key), false)
      await assert.rejects(store().get(key), hasCode('NOT_FOUND'))
      await store().delete(key)
    })

    test('unknown and hostile keys are NOT_FOUND, never a path outside the store', async () => {
      const keys = [
        'AAAAAAAAAAAAAAAAAAAAAAAA',
        '../x',
        '..',
        '.',
        '',
        'a/b',
        'a\\b',
        '/etc/passwd',
        '../../../../../../etc/passwd',
        '%2e%2e%2fx',
        'AAAAAAAAAAAAAAAAAAAA\0',
        'x'.repeat(10_000),
      ]
      for (const key of keys) {
        await assert.rejects(store().get(key), hasCode('NOT_FOUND'), `get(${JSON.stringify(key)})`)
        assert.equal(await store().exists(key), false, `exists(${JSON.stringify(key)})`)
        await store().delete(key)
      }
    })

    test('getSmall hands over a small blob whole or leaves it to get, never other bytes', async () => {
      for (const size of [0, 1, 10_000, SMALL_BLOB_BYTES]) {
        const bytes = randomBytes(size)
        const { key } = await store().put(Readable.from([bytes]), { maxBytes: LIMIT })
        // Twice: a store may answer the second from memory.
        for (const round of [1, 2]) {
          const whole = await store().getSmall(key)
          if (whole !== undefined) assert.ok(whole.equals(bytes), `${size} bytes, read ${round}`)
        }
      }
      const large = randomBytes(SMALL_BLOB_BYTES + 1)
      const { key } = await store().put(Readable.from([large]), { maxBytes: LIMIT })
      assert.equal(await store().getSmall(key), undefined)
      assert.ok((await readAll(await store().get(key))).equals(large))
    })

    test('getSmall of a missing or hostile key is NOT_FOUND or undefined, never bytes', async () => {
      const { key } = await store().put(Readable.from([Buffer.from('gone soon')]), { maxBytes: LIMIT })
      await store().getSmall(key)
      await store().delete(key)
      for (const missing of [key, 'AAAAAAAAAAAAAAAAAAAAAAAA', '../x', '/etc/passwd', '']) {
        const whole = await store()
          .getSmall(missing)
          .catch((error: unknown) => {
            hasCode('NOT_FOUND')(error)
            return undefined
          })
        assert.equal(whole, undefined, `getSmall(${JSON.stringify(missing)})`)
      }
    })

    test('the same bytes stored twice get two keys that live independently', async () => {
      const bytes = Buffer.from('same bytes')
      const first = await store().put(Readable.from([bytes]), { maxBytes: LIMIT })
      const second = await store().put(Readable.from([bytes]), { maxBytes: LIMIT })
      assert.notEqual(first.key, second.key)
      assert.equal(first.sha256, second.sha256)
      await store().delete(first.key)
      assert.equal(await store().exists(first.key), false)
      assert.deepEqual(await readAll(await store().get(second.key)), bytes)
    })

    test('putWithKey stores under the key it is given, and a second write replaces the bytes whole', async () => {
      const key = `moved${randomBytes(12).toString('base64url')}`
      const first = randomBytes(3000)
      const stored = await store().putWithKey(key, Readable.from([first]), { maxBytes: LIMIT, expectedSize: 3000 })
      assert.deepEqual(stored, { key, size: 3000, sha256: sha256(first) })
      assert.deepEqual(await readAll(await store().get(key)), first)
      assert.deepEqual(await readAll(await store().get(key, { start: 10, end: 19 })), first.subarray(10, 20))
      const remembered = await store().getSmall(key)
      if (remembered !== undefined) assert.ok(remembered.equals(first))
      const listed = []
      for await (const blob of store().list()) if (blob.key === key) listed.push(blob.size)
      assert.deepEqual(listed, [3000])

      const second = Buffer.from('shorter contents')
      await store().putWithKey(key, Readable.from([second]), { maxBytes: LIMIT })
      assert.deepEqual(await readAll(await store().get(key)), second)
      const replaced = await store().getSmall(key)
      if (replaced !== undefined) assert.ok(replaced.equals(second))
      await store().delete(key)
      assert.equal(await store().exists(key), false)
    })

    test('putWithKey refuses keys of another shape and keeps nothing of a refused body', async () => {
      for (const key of ['../x', 'a/b', '', 'short', 'x'.repeat(65), 'AAAAAAAAAAAAAAAAAAAA\0']) {
        await assert.rejects(
          store().putWithKey(key, Readable.from([Buffer.from('x')]), { maxBytes: LIMIT }),
          hasCode('INVALID_INPUT'),
          `putWithKey(${JSON.stringify(key)})`,
        )
      }
      const key = `toolong${randomBytes(12).toString('base64url')}`
      await assert.rejects(
        store().putWithKey(key, Readable.from([randomBytes(100)]), { maxBytes: LIMIT, expectedSize: 50 }),
        hasCode('INVALID_INPUT'),
      )
      assert.equal(await store().exists(key), false)
    })

    test('finding 4: list() yields every stored blob with its size and modification time', async () => {
      const before = Date.now()
      const a = await store().put(Readable.from([Buffer.from('listed a')]), { maxBytes: LIMIT })
      const b = await store().put(Readable.from([randomBytes(2000)]), { maxBytes: LIMIT })
      const gone = await store().put(Readable.from([Buffer.from('gone')]), { maxBytes: LIMIT })
      await store().delete(gone.key)
      const listed = new Map<string, { modifiedAt: number; size: number }>()
      for await (const blob of store().list()) listed.set(blob.key, blob)
      assert.equal(listed.get(a.key)?.size, a.size)
      assert.equal(listed.get(b.key)?.size, 2000)
      assert.equal(listed.has(gone.key), false)
      const modifiedAt = listed.get(b.key)?.modifiedAt ?? 0
      // Clocks of a store and of this process may differ a little; a minute is plenty.
      assert.ok(Math.abs(modifiedAt - before) < 60_000, `modifiedAt ${modifiedAt} vs ${before}`)
      for (const key of listed.keys()) assert.equal(await store().exists(key), true, key)
    })

    test('finding 4: sweepTemporary never removes a blob', async () => {
      const kept = await store().put(Readable.from([Buffer.from('kept')]), { maxBytes: LIMIT })
      const report = await store().sweepTemporary(Date.now() + 60 * 60 * 1000)
      assert.ok(report.files >= 0 && report.bytes >= 0)
      assert.equal(await store().exists(kept.key), true)
    })

    test('concurrent puts do not mix their bytes', async () => {
      const bodies = Array.from({ length: 8 }, () => randomBytes(256 * 1024))
      const stored = await Promise.all(
        bodies.map((bytes) => store().put(Readable.from(chunksOf(bytes, 8 * 1024)), { maxBytes: LIMIT })),
      )
      assert.equal(new Set(stored.map((s) => s.key)).size, bodies.length)
      for (const [index, bytes] of bodies.entries()) {
        const blob = stored[index]
        assert.ok(blob)
        assert.ok((await readAll(await store().get(blob.key))).equals(bytes))
      }
    })
  })
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

function* chunksOf(bytes: Buffer, size: number): Generator<Buffer> {
  for (let offset = 0; offset < bytes.length; offset += size) {
    yield bytes.subarray(offset, offset + size)
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const chunk of stream) {
    parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)))
  }
  return Buffer.concat(parts)
}

function hasCode(code: ErrorCode): (error: unknown) => boolean {
  return (error) => {
    assert.ok(isDomainError(error), `expected DomainError ${code}, got ${String(error)}`)
    assert.equal(error.code, code)
    return true
  }
}

async function listedKeys(store: BlobStore): Promise<string[]> {
  const keys: string[] = []
  for await (const blob of store.list()) keys.push(blob.key)
  return keys.sort()
}
