import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { isDomainError, type ErrorCode } from '../../core/errors.js'
import type { UserRecord } from '../../core/entities.js'
import { openTestContext } from '../../../test/support/app-context.js'
import { userPrincipal } from '../access.js'
import type { AppContext } from '../context.js'
import { copyItems, deleteItems, emptyTrash, moveItems, restoreItems } from './file-ops.js'
import { uploadFile } from '../files/files.js'
import { createFolder, isInTrash, listFolder, renameFolder } from './folders.js'
import { rootFolder } from '../roots.js'

function isCode(code: ErrorCode) {
  return (error: unknown) => isDomainError(error) && error.code === code
}

function user(id: string): UserRecord {
  return {
    id,
    userName: id,
    displayName: id,
    email: '',
    isAdmin: false,
    passwordHash: 'x',
    wopiUserInfo: '',
    createdAt: 0,
    updatedAt: 0,
    tokenGeneration: 0,
    disabled: false,
  }
}

describe('app/folders and app/file-ops', () => {
  let ctx: AppContext
  let dispose: () => Promise<void>
  const alice = userPrincipal(user('u-alice'))
  const bob = userPrincipal(user('u-bob'))
  const readOnly = userPrincipal(user('u-alice'), 'read')

  before(async () => {
    ;({ ctx, dispose } = await openTestContext('folio-app-folders-'))
  })
  after(() => dispose())

  const upload = (title: string, text: string, folderId?: string) =>
    uploadFile(ctx, 'u-alice', title, Readable.from([Buffer.from(text)]), undefined, folderId)

  const page = { offset: 0, limit: 100, sortBy: 'title', descending: false, filter: { kind: 'all' } } as const

  test('folders go through the access policy: others get NOT_FOUND, read-only tokens FORBIDDEN', async () => {
    const folder = await createFolder(ctx, alice, '@my', 'Private')
    await assert.rejects(listFolder(ctx, bob, folder.id, page), isCode('NOT_FOUND'))
    await assert.rejects(createFolder(ctx, bob, folder.id, 'Intruder'), isCode('NOT_FOUND'))
    await assert.rejects(renameFolder(ctx, readOnly, folder.id, 'Renamed'), isCode('FORBIDDEN'))
    await assert.rejects(
      moveItems(ctx, bob, { folderIds: [folder.id], fileIds: [] }, '@my', 'duplicate'),
      isCode('NOT_FOUND'),
    )
    await assert.rejects(createFolder(ctx, alice, '@trash', 'Nope'), isCode('INVALID_INPUT'))
  })

  test('delete to trash, restore to origin, then delete for good frees unshared bytes only', async () => {
    const home = await createFolder(ctx, alice, '@my', 'Home')
    const file = await upload('a.txt', 'bytes of a', home.id)
    const copied = await copyItems(ctx, alice, { folderIds: [], fileIds: [file.id] }, '@my', 'duplicate')
    const copy = copied.files[0]
    assert.ok(copy)
    assert.equal(copy.blobKey, file.blobKey, 'a copy shares the blob')

    const trashed = await deleteItems(ctx, alice, { folderIds: [], fileIds: [file.id] }, false)
    assert.equal(trashed.files[0]?.originFolderId, home.id)
    assert.equal(await isInTrash(ctx, trashed.files[0] ?? file), true)
    const restored = await restoreItems(ctx, alice, { folderIds: [], fileIds: [file.id] })
    assert.equal(restored.files[0]?.folderId, home.id)
    assert.equal(restored.files[0]?.trashedAt, null)

    await deleteItems(ctx, alice, { folderIds: [], fileIds: [file.id] }, false)
    await emptyTrash(ctx, alice)
    assert.equal(await ctx.store.files.findById(file.id), undefined)
    const bytes = await ctx.blobs.get(copy.blobKey)
    const chunks: Buffer[] = []
    for await (const chunk of bytes) chunks.push(Buffer.from(chunk))
    assert.equal(Buffer.concat(chunks).toString(), 'bytes of a', 'the copy keeps its bytes')
  })

  test('a trashed folder takes its content along; the trash root counts it', async () => {
    const box = await createFolder(ctx, alice, '@my', 'Box')
    const inner = await upload('inner.txt', 'inner', box.id)
    await deleteItems(ctx, alice, { folderIds: [box.id], fileIds: [] }, false)
    const fresh = await ctx.store.files.findById(inner.id)
    assert.ok(fresh)
    assert.equal(await isInTrash(ctx, fresh), true)
    const trash = await rootFolder(ctx, 'u-alice', 'trash')
    const listing = await listFolder(ctx, alice, '@trash', page)
    assert.equal(listing.current.id, trash.id)
    assert.ok(listing.folders.some((f) => f.id === box.id))
  })
})
