import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import type { BlobStore } from '../../ports/blob-store.js'
import { openFsBlobStore } from './index.js'

// get() reads the first 64 KiB in one read and streams on only when there is more.
const FIRST_READ = 64 * 1024

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks)
}

describe('blob-fs whole reads', () => {
  let root: string
  let store: BlobStore

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'folio-blob-whole-'))
    store = await openFsBlobStore({ root })
  })
  after(async () => {
    await rm(root, { recursive: true, force: true })
  })

  const put = (bytes: Buffer) => store.put(Readable.from([bytes]), { maxBytes: 10 * FIRST_READ })

  test('getSmall hands over every blob up to 64 KiB whole, read or remembered, and no larger one', async () => {
    for (const size of [0, 1, FIRST_READ - 1, FIRST_READ]) {
      const bytes = randomBytes(size)
      const { key } = await put(bytes)
      assert.ok((await store.getSmall(key))?.equals(bytes), `${size} bytes, read`)
      assert.ok((await store.getSmall(key))?.equals(bytes), `${size} bytes, remembered`)
    }
    const { key } = await put(randomBytes(FIRST_READ + 1))
    assert.equal(await store.getSmall(key), undefined)
    await assert.rejects(store.getSmall('AAAAAAAAAAAAAAAAAAAAAAAA'), { code: 'NOT_FOUND' })
  })

  test('blobs around the one-read size come back byte for byte', async () => {
    for (const size of [1, FIRST_READ - 1, FIRST_READ, FIRST_READ + 1, 3 * FIRST_READ + 7]) {
      const bytes = randomBytes(size)
      const { key } = await put(bytes)
      assert.ok((await readAll(await store.get(key))).equals(bytes), `${size} bytes`)
    }
  })

  test('small blobs opened in turn and read later each keep their own bytes', async () => {
    const bodies = Array.from({ length: 40 }, (_, i) => randomBytes(1000 + i * 1500))
    const keys = await Promise.all(bodies.map(async (bytes) => (await put(bytes)).key))
    // Opened in turn, read only once all are open: no read may share another's buffer.
    const streams: Readable[] = []
    for (const key of keys) streams.push(await store.get(key))
    const back = await Promise.all(streams.map(readAll))
    for (const [index, bytes] of bodies.entries()) {
      assert.ok(back[index]?.equals(bytes), `blob ${index}`)
    }
  })

  test('a stream dropped unread does not disturb later reads', async () => {
    const big = randomBytes(2 * FIRST_READ)
    const small = randomBytes(500)
    const bigKey = (await put(big)).key
    const smallKey = (await put(small)).key
    for (let i = 0; i < 20; i++) (await store.get(i % 2 === 0 ? bigKey : smallKey)).destroy()
    assert.ok((await readAll(await store.get(bigKey))).equals(big))
    assert.ok((await readAll(await store.get(smallKey))).equals(small))
  })

  test('a small blob read again comes from memory, and is gone once deleted', async () => {
    const bytes = randomBytes(3000)
    const { key } = await put(bytes)
    assert.ok((await readAll(await store.get(key))).equals(bytes))
    // The file is removed behind the store's back: the second read is served from memory.
    await rm(join(root, 'blobs', key.slice(0, 2), key))
    assert.ok((await readAll(await store.get(key))).equals(bytes))
    await store.delete(key)
    await assert.rejects(store.get(key), (error: unknown) => error instanceof Error && /not found/i.test(error.message))
  })

  test('streams read to the end or dropped midway close their files', async () => {
    const openFiles = async () => (await readdir('/proc/self/fd')).length
    const big = randomBytes(9 * FIRST_READ + 3)
    const { key } = await put(big)
    const before = await openFiles()
    for (let i = 0; i < 10; i++) {
      assert.ok((await readAll(await store.get(key))).equals(big))
      const ranged = await store.get(key, { start: FIRST_READ - 5, end: 5 * FIRST_READ })
      assert.ok((await readAll(ranged)).equals(big.subarray(FIRST_READ - 5, 5 * FIRST_READ + 1)))
      const dropped = await store.get(key)
      dropped.once('data', () => dropped.destroy())
      await once(dropped, 'close')
    }
    assert.equal(await openFiles(), before)
  })
})
