import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterEach, describe, test } from 'node:test'
import { openTestContext } from '../../../test/support/app-context.js'
import { testMetadata } from '../../../test/support/postgres.js'
import { buildConfig } from '../../config/load.js'
import { isDomainError } from '../../core/errors.js'
import { openStorage } from '../../main.js'
import type { BlobStore } from '../../ports/blob-store.js'
import type { MetadataStore } from '../../ports/metadata-store.js'
import { createUser } from '../accounts/accounts.js'
import type { AppContext } from '../context.js'
import { uploadFile } from '../files/files.js'
import { migrateStorage, type MigrationProgress } from './migrate-storage.js'

/** Empty storage over the test drivers, as the command's target: no Folio ever started on it. */
async function openEmptyStorage(): Promise<{ store: MetadataStore; blobs: BlobStore; dispose: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'folio-move-target-'))
  const metadata = testMetadata()
  const storage = await openStorage(
    buildConfig({ FOLIO_DATA_DIR: dataDir, FOLIO_LOG_LEVEL: 'silent', ...metadata.settings }),
  )
  return {
    ...storage,
    dispose: async () => {
      await storage.store.close()
      await storage.blobs.close?.()
      await rm(dataDir, { recursive: true, force: true })
      await metadata.dispose()
    },
  }
}

async function read(blobs: BlobStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of await blobs.get(key)) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks)
}

describe('migrateStorage', () => {
  const disposers: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const dispose of disposers.splice(0)) await dispose()
  })

  async function sourceWithFiles(count: number): Promise<{ ctx: AppContext; keys: string[]; ids: string[] }> {
    const { ctx, dispose } = await openTestContext('folio-move-source-')
    disposers.push(dispose)
    const owner = await createUser(ctx, { userName: 'mover', password: 'mover-password-1' })
    const keys: string[] = []
    const ids: string[] = []
    for (let i = 0; i < count; i++) {
      const file = await uploadFile(
        ctx,
        owner.id,
        `File ${i}.txt`,
        Readable.from([Buffer.from(`contents of file ${i}`)]),
      )
      keys.push(file.blobKey)
      ids.push(file.id)
    }
    return { ctx, keys, ids }
  }

  async function target() {
    const opened = await openEmptyStorage()
    disposers.push(opened.dispose)
    return opened
  }

  test('copies every blob under its key, replaces a damaged copy, and imports the records', async () => {
    const { ctx, keys, ids } = await sourceWithFiles(3)
    const off = await createUser(ctx, { userName: 'off', password: 'off-password-1' })
    await ctx.store.users.update(off.id, { disabled: true, updatedAt: off.updatedAt })
    const to = await target()
    const [damaged = ''] = keys
    await to.blobs.putWithKey(damaged, Readable.from([Buffer.from('not what the record says')]), { maxBytes: 100 })
    const events: MigrationProgress[] = []
    const summary = await migrateStorage(
      { source: { store: ctx.store, blobs: ctx.blobs }, targetStore: to.store, targetBlobs: to.blobs },
      (event) => events.push(event),
    )
    assert.deepEqual(
      { target: summary.target, blobs: summary.blobs, copied: summary.copied, present: summary.present },
      { target: 'empty', blobs: 3, copied: 3, present: 0 },
    )
    assert.equal(summary.records?.added.files, 3)
    for (const key of keys) assert.deepEqual(await read(to.blobs, key), await read(ctx.blobs, key))
    for (const id of ids) assert.deepEqual(await to.store.files.findById(id), await ctx.store.files.findById(id))
    assert.equal((await to.store.users.findById(off.id))?.disabled, true, 'a disabled user stays disabled')
    assert.deepEqual(
      events.filter((e) => e.step === 'blob').map((e) => e.done),
      [1, 2, 3],
    )

    // Run again: all there, nothing added.
    const again = await migrateStorage({
      source: { store: ctx.store, blobs: ctx.blobs },
      targetStore: to.store,
      targetBlobs: to.blobs,
    })
    assert.deepEqual([again.target, again.copied, again.present, again.records?.added.files], ['this-install', 0, 3, 0])
  })

  test('a source blob that does not match its record fails the move, naming it; no record is imported', async () => {
    const { ctx, keys, ids } = await sourceWithFiles(2)
    const to = await target()
    const [, bad = ''] = keys
    const original = await read(ctx.blobs, bad)
    // Same size, other bytes: bit rot on the source disk.
    await ctx.blobs.putWithKey(bad, Readable.from([Buffer.alloc(original.length, 0x78)]), { maxBytes: 1000 })
    await assert.rejects(
      migrateStorage({ source: { store: ctx.store, blobs: ctx.blobs }, targetStore: to.store, targetBlobs: to.blobs }),
      (error) =>
        isDomainError(error) &&
        error.code === 'PRECONDITION_FAILED' &&
        error.message.includes(`file ${ids[1]} version 1`) &&
        error.message.includes('SHA-256'),
    )
    assert.equal(await to.store.transfer.isEmpty(), true)
    assert.equal(await to.blobs.exists(bad), false, 'no wrong bytes are left under the key')
    assert.equal(await to.blobs.exists(keys[0] ?? ''), true, 'good blobs stay for the next run')
  })

  test('a missing source blob fails the move, naming it', async () => {
    const { ctx, keys, ids } = await sourceWithFiles(1)
    const to = await target()
    await ctx.blobs.delete(keys[0] ?? '')
    await assert.rejects(
      migrateStorage({ source: { store: ctx.store, blobs: ctx.blobs }, targetStore: to.store, targetBlobs: to.blobs }),
      (error) =>
        isDomainError(error) &&
        error.message.includes(`file ${ids[0]} version 1`) &&
        error.message.includes('missing from the source'),
    )
    assert.equal(await to.store.transfer.isEmpty(), true)
  })

  test('moving the metadata alone checks the blobs where they are', async () => {
    const { ctx } = await sourceWithFiles(2)
    const to = await target()
    const summary = await migrateStorage({ source: { store: ctx.store, blobs: ctx.blobs }, targetStore: to.store })
    assert.deepEqual([summary.checked, summary.copied, summary.records?.added.files], [2, 0, 2])
  })

  test('refuses a target store that another install uses, before copying anything', async () => {
    const { ctx } = await sourceWithFiles(1)
    const to = await target()
    await to.store.settings.setIfAbsent('signing-secret', 'another install')
    await assert.rejects(
      migrateStorage({ source: { store: ctx.store, blobs: ctx.blobs }, targetStore: to.store, targetBlobs: to.blobs }),
      /another Folio install/,
    )
    let blobs = 0
    for await (const _ of to.blobs.list()) blobs++
    assert.equal(blobs, 0)
  })
})
