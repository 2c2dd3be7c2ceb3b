import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { after, describe, test } from 'node:test'

import { runBlobStoreContract } from '../../../test/contract/blob-store.contract.js'
import { openFsBlobStore } from './index.js'

async function makeRoot(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'folio-blob-fs-'))
}

runBlobStoreContract('fs', async () => {
  const root = await makeRoot()
  const store = await openFsBlobStore({ root })
  return { store, cleanup: () => rm(root, { recursive: true, force: true }) }
})

/** Every regular file under `dir`, as paths relative to it. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort()
}

describe('fs blob store on disk', () => {
  const roots: string[] = []
  const freshRoot = async (): Promise<string> => {
    const root = await makeRoot()
    roots.push(root)
    return root
  }
  after(async () => {
    await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })))
  })

  test('a stored blob sits at blobs/<first 2 chars>/<key> and survives reopening', async () => {
    const root = await freshRoot()
    const bytes = randomBytes(1000)
    const { key } = await (
      await openFsBlobStore({ root })
    ).put(Readable.from([bytes]), {
      maxBytes: 1 << 20,
    })
    assert.deepEqual(await listFiles(root), [join('blobs', key.slice(0, 2), key)])
    assert.deepEqual(await readFile(join(root, 'blobs', key.slice(0, 2), key)), bytes)

    const reopened = await openFsBlobStore({ root })
    assert.equal(await reopened.exists(key), true)
  })

  test('refused puts leave no temp file and no blob behind', async () => {
    const root = await freshRoot()
    const store = await openFsBlobStore({ root })
    const body = randomBytes(200 * 1024)
    async function* failing(): AsyncGenerator<Buffer> {
      yield body
      throw new Error('socket hang up')
    }
    const disconnected = new Readable({ read() {} })
    disconnected.push(body)

    const refusals = [
      store.put(Readable.from([body, body]), { maxBytes: 300 * 1024 }),
      store.put(Readable.from([body]), { maxBytes: 1 << 20, expectedSize: body.length + 1 }),
      store.put(Readable.from([body]), { maxBytes: 1 << 20, expectedSize: body.length - 1 }),
      store.put(Readable.from(failing()), { maxBytes: 1 << 20 }),
      store.put(disconnected, { maxBytes: 1 << 20 }),
    ]
    setImmediate(() => disconnected.destroy())
    const results = await Promise.allSettled(refusals)
    assert.deepEqual(
      results.map((r) => r.status),
      refusals.map(() => 'rejected'),
    )
    assert.deepEqual(await readdir(join(root, 'tmp')), [])
    assert.deepEqual(await listFiles(join(root, 'blobs')), [])
  })

  test('a declared size over the limit is refused without reading the source', async () => {
    const root = await freshRoot()
    const store = await openFsBlobStore({ root })
    let pulled = false
    const source = new Readable({
      read() {
        pulled = true
        this.push(null)
      },
    })
    await assert.rejects(store.put(source, { maxBytes: 10, expectedSize: 11 }), {
      code: 'PAYLOAD_TOO_LARGE',
    })
    assert.equal(pulled, false)
    assert.equal(source.destroyed, false)
  })

  test('a range past the end of the blob is clamped to its last byte', async () => {
    const root = await freshRoot()
    const store = await openFsBlobStore({ root })
    const { key } = await store.put(Readable.from([Buffer.from('0123456789')]), { maxBytes: 100 })
    const chunks: Buffer[] = []
    for await (const chunk of await store.get(key, { start: 7, end: 1000 })) chunks.push(chunk)
    assert.equal(Buffer.concat(chunks).toString(), '789')
  })

  test('finding 4: sweepTemporary removes temp files older than the cut-off and reports them', async () => {
    const root = await freshRoot()
    const store = await openFsBlobStore({ root })
    await writeFile(join(root, 'tmp', 'old.tmp'), 'twelve bytes')
    await writeFile(join(root, 'tmp', 'new.tmp'), 'new')
    const old = new Date(Date.now() - 10_000)
    await utimes(join(root, 'tmp', 'old.tmp'), old, old)
    assert.deepEqual(await store.sweepTemporary(Date.now() - 5_000), { files: 1, bytes: 12 })
    assert.deepEqual(await readdir(join(root, 'tmp')), ['new.tmp'])
  })

  test('finding 5: folders are 0700 and blobs 0600 under umask 022', async () => {
    const previous = process.umask(0o022)
    try {
      const root = join(await freshRoot(), 'nested')
      const store = await openFsBlobStore({ root })
      const { key } = await store.put(Readable.from([Buffer.from('private')]), { maxBytes: 100 })
      const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8)
      assert.equal(await mode(root), '700')
      assert.equal(await mode(join(root, 'blobs')), '700')
      assert.equal(await mode(join(root, 'tmp')), '700')
      assert.equal(await mode(join(root, 'blobs', key.slice(0, 2))), '700')
      assert.equal(await mode(join(root, 'blobs', key.slice(0, 2), key)), '600')
    } finally {
      process.umask(previous)
    }
  })

  test('finding 14: a source that breaks off (client gone) is INVALID_INPUT, not an internal error', async () => {
    const root = await freshRoot()
    const store = await openFsBlobStore({ root })
    const source = new Readable({ read() {} })
    source.push(randomBytes(64 * 1024))
    const put = store.put(source, { maxBytes: 1 << 20 })
    setImmediate(() => source.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })))
    await assert.rejects(put, { code: 'INVALID_INPUT' })
    assert.deepEqual(await readdir(join(root, 'tmp')), [])
  })

  test('a body past the early-flush size is stored whole, and one cut off after a flush leaves nothing', async () => {
    const root = await freshRoot()
    const store = await openFsBlobStore({ root })
    const chunk = randomBytes(1 << 20)
    const chunks = Array.from({ length: 40 }, (_, i) => Buffer.concat([chunk.subarray(i), chunk.subarray(0, i)]))
    const whole = Buffer.concat(chunks)
    const stored = await store.put(Readable.from(chunks), { maxBytes: 64 << 20 })
    assert.equal(stored.size, whole.length)
    assert.equal(stored.sha256, createHash('sha256').update(whole).digest('hex'))
    assert.ok((await readFile(join(root, 'blobs', stored.key.slice(0, 2), stored.key))).equals(whole))

    const source = new Readable({ read() {} })
    for (const piece of chunks.slice(0, 36)) source.push(piece)
    const put = store.put(source, { maxBytes: 64 << 20 })
    setTimeout(() => source.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })), 50)
    await assert.rejects(put, { code: 'INVALID_INPUT' })
    assert.deepEqual(await readdir(join(root, 'tmp')), [])
  })
})
