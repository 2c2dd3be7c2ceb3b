import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { openTestContext } from '../../../test/support/app-context.js'
import { isDomainError, type ErrorCode } from '../../core/errors.js'
import { userPrincipal, type Principal } from '../access.js'
import type { AppContext } from '../context.js'
import { createApp, type App } from '../create-app.js'
import { createUser } from './accounts.js'

const isCode = (code: ErrorCode) => (error: unknown) => isDomainError(error) && error.code === code
const body = (text: string) => Readable.from([Buffer.from(text)])

describe('storage quotas in the application', () => {
  let ctx: AppContext
  let dispose: () => Promise<void>
  let app: App
  let admin: Principal
  let alice: Principal
  let bob: Principal

  before(async () => {
    ;({ ctx, dispose } = await openTestContext('folio-quota-'))
    app = createApp(ctx)
    admin = userPrincipal(await createUser(ctx, { userName: 'root', password: 'root-password-1', isAdmin: true }))
    alice = userPrincipal(await createUser(ctx, { userName: 'alice', password: 'alice-password-1' }))
    bob = userPrincipal(await createUser(ctx, { userName: 'bob', password: 'bob-password-1' }))
  })
  after(() => dispose())

  const used = async (who: Principal) => (await app.accounts.storageUsage(who, [who.user.id])).get(who.user.id)
  const blobCount = async () => {
    let n = 0
    for await (const _ of ctx.blobs.list()) n++
    return n
  }

  test('only admins set quotas and see other people’s storage', async () => {
    await assert.rejects(app.accounts.setQuotas(alice, [alice.user.id], 10), isCode('FORBIDDEN'))
    await assert.rejects(app.accounts.storageUsage(alice, [bob.user.id]), isCode('FORBIDDEN'))
    await assert.rejects(app.accounts.setQuotas(admin, [alice.user.id, 'no-such-id'], 10), isCode('NOT_FOUND'))
    assert.deepEqual(await used(alice), { usedSpace: 0, quotaLimit: undefined }, 'nothing set by a refused call')
    const [changed] = await app.accounts.setQuotas(admin, [alice.user.id], 10)
    assert.equal(changed?.userName, 'alice')
    assert.deepEqual((await app.accounts.storageUsage(admin, [alice.user.id])).get(alice.user.id), {
      usedSpace: 0,
      quotaLimit: 10,
    })
    await app.accounts.setQuotas(admin, [alice.user.id], undefined)
  })

  test('uploads, new versions and copies past the owner’s quota are refused and store nothing', async () => {
    await app.accounts.setQuotas(admin, [alice.user.id], 15)
    const file = await app.files.upload(alice, 'a.txt', body('0123456789'))
    assert.equal((await used(alice))?.usedSpace, 10)
    const blobs = await blobCount()

    await assert.rejects(app.files.upload(alice, 'b.txt', body('0123456789X')), isCode('QUOTA_EXCEEDED'))
    await assert.rejects(app.files.upload(alice, 'b.txt', body('0123456789X'), 11), isCode('QUOTA_EXCEEDED'))
    await assert.rejects(
      app.files.storeNewContents(file.id, { by: alice, body: body('0123456789X'), source: 'upload' }),
      isCode('QUOTA_EXCEEDED'),
    )
    await assert.rejects(
      app.folders.copy(alice, { folderIds: [], fileIds: [file.id] }, '@my', 'duplicate'),
      isCode('QUOTA_EXCEEDED'),
    )
    assert.equal(await blobCount(), blobs, 'no blob left behind')
    assert.equal((await used(alice))?.usedSpace, 10)
    assert.equal((await app.files.list(alice, { offset: 0, limit: 10, sortBy: 'title', descending: false })).total, 1)

    // Up to the limit exactly is fine; the trash counts until emptied.
    await app.accounts.setQuotas(admin, [alice.user.id], 20)
    await app.files.storeNewContents(file.id, { by: alice, body: body('0123456789'), source: 'upload' })
    assert.equal((await used(alice))?.usedSpace, 20)
    await app.folders.delete(alice, { folderIds: [], fileIds: [file.id] }, false, true)
    assert.equal((await used(alice))?.usedSpace, 20, 'in the trash, still counted')
    await assert.rejects(app.files.upload(alice, 'c.txt', body('x')), isCode('QUOTA_EXCEEDED'))
    await app.folders.delete(alice, { folderIds: [], fileIds: [file.id] }, true, true)
    assert.equal((await used(alice))?.usedSpace, 0)
    await app.files.upload(alice, 'c.txt', body('x'))
    await app.accounts.setQuotas(admin, [alice.user.id], undefined)
  })

  test('a sharee writing into the owner’s folder is held to the owner’s quota', async () => {
    const folder = await app.folders.create(bob, '@my', 'Team')
    await app.sharing.setFolder(bob, folder.id, [{ userId: alice.user.id, access: 1 }])
    await app.accounts.setQuotas(admin, [bob.user.id], 5)
    await assert.rejects(app.files.upload(alice, 'big.txt', body('123456'), undefined, folder.id), (error) =>
      isCode('QUOTA_EXCEEDED')(error),
    )
    const fits = await app.files.upload(alice, 'ok.txt', body('12345'), undefined, folder.id)
    assert.equal(fits.ownerId, bob.user.id)
    assert.equal((await used(bob))?.usedSpace, 5)
    const aliceBefore = (await used(alice))?.usedSpace
    await assert.rejects(
      app.files.storeNewContents(fits.id, { by: alice, body: body('123456'), source: 'upload' }),
      isCode('QUOTA_EXCEEDED'),
    )
    assert.equal((await used(alice))?.usedSpace, aliceBefore, 'the writer’s own usage is untouched')
  })
})
