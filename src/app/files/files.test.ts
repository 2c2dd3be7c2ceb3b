import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { isDomainError, type ErrorCode } from '../../core/errors.js'
import type { StoredBlob } from '../../ports/blob-store.js'
import type { FileRecord } from '../../core/entities.js'
import type { FileDeletion } from '../../ports/metadata-store.js'
import { openTestContext } from '../../../test/support/app-context.js'
import type { AppContext } from '../context.js'
import { createFileFromBlob, deleteFile, getFile } from './files.js'

function isCode(code: ErrorCode) {
  return (error: unknown) => isDomainError(error) && error.code === code
}

describe('app/files', () => {
  let ctx: AppContext
  let dispose: () => Promise<void>

  before(async () => {
    ;({ ctx, dispose } = await openTestContext('folio-app-files-'))
  })
  after(() => dispose())

  const storeText = (text: string): Promise<StoredBlob> =>
    ctx.blobs.put(Readable.from([Buffer.from(text)]), { maxBytes: 1024 })

  const create = async (title: string, options: { exactTitle?: boolean; userId?: string } = {}) =>
    createFileFromBlob(ctx, {
      ownerId: 'u-owner',
      title,
      blob: await storeText(title),
      source: 'upload',
      ...options,
    })

  /** Runs `during` once, right before the store's next delete of `fileId` (a racing write). */
  function beforeNextDelete(fileId: string, during: () => Promise<void>): () => void {
    const files = ctx.store.files
    const original = files.delete
    let pending = true
    files.delete = async (id: string, expectedRevision?: number): Promise<FileDeletion> => {
      if (pending && id === fileId) {
        pending = false
        await during()
      }
      return original.call(files, id, expectedRevision)
    }
    return () => {
      files.delete = original
    }
  }

  test('a taken title becomes the first free variant', async () => {
    await create('Plan.docx')
    const second = await create('plan.DOCX')
    assert.equal(second.title, 'plan (2).DOCX')
  })

  test('exactTitle keeps the title, and records who created the file', async () => {
    const file = await create('Exact.docx', { exactTitle: true, userId: 'u-editor' })
    assert.equal(file.title, 'Exact.docx')
    assert.equal(file.createdBy, 'u-editor')
    assert.equal(file.updatedBy, 'u-editor')
    const [first] = await ctx.store.files.listVersions(file.id)
    assert.equal(first?.createdBy, 'u-editor')
  })

  test('exactTitle on a taken title: NAME_TAKEN, no new file, the blob removed', async () => {
    await create('Taken.docx')
    const blob = await storeText('second copy')
    await assert.rejects(
      createFileFromBlob(ctx, {
        ownerId: 'u-owner',
        title: 'TAKEN.docx',
        blob,
        source: 'upload',
        exactTitle: true,
      }),
      isCode('NAME_TAKEN'),
    )
    assert.equal(await ctx.blobs.exists(blob.key), false)
    assert.equal(await ctx.store.files.titleExists('u-owner', 'TAKEN (2).docx'), false)
  })

  test('deleteFile removes the file and its blobs; a missing file is NOT_FOUND', async () => {
    const file = await create('Gone.docx')
    await deleteFile(ctx, file.id)
    await assert.rejects(getFile(ctx, file.id), isCode('NOT_FOUND'))
    assert.equal(await ctx.blobs.exists(file.blobKey), false)
    await assert.rejects(deleteFile(ctx, file.id), isCode('NOT_FOUND'))
  })

  test('a precondition that throws keeps the file', async () => {
    const file = await create('Kept.docx')
    const refuse = () => {
      throw new Error('refused')
    }
    await assert.rejects(deleteFile(ctx, file.id, { precondition: refuse }), /refused/)
    assert.deepEqual(await getFile(ctx, file.id), file)
  })

  test('a change between the read and the delete makes the precondition decide again', async () => {
    const file = await create('Raced.docx')
    const lock = { lockId: 'late-lock', expiresAt: ctx.clock.now() + 60_000 }
    const restore = beforeNextDelete(file.id, async () => {
      assert.ok(await ctx.store.files.update(file.id, file.revision, { lock }))
    })
    const seen: FileRecord['lock'][] = []
    try {
      await assert.rejects(
        deleteFile(ctx, file.id, {
          precondition: (fresh) => {
            seen.push(fresh.lock)
            if (fresh.lock !== null) throw new Error('locked')
          },
        }),
        /locked/,
      )
    } finally {
      restore()
    }
    assert.deepEqual(seen, [null, lock], 'decided on the old row, then on the locked one')
    assert.deepEqual((await getFile(ctx, file.id)).lock, lock)
    assert.equal(await ctx.blobs.exists(file.blobKey), true)
  })

  test('when the racing change is harmless, the retry deletes the file', async () => {
    const file = await create('Renamed.docx')
    const restore = beforeNextDelete(file.id, async () => {
      assert.ok(await ctx.store.files.update(file.id, file.revision, { title: 'Other.docx' }))
    })
    let decisions = 0
    try {
      await deleteFile(ctx, file.id, {
        precondition: () => {
          decisions += 1
        },
      })
    } finally {
      restore()
    }
    assert.equal(decisions, 2)
    await assert.rejects(getFile(ctx, file.id), isCode('NOT_FOUND'))
  })
})
