import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { isDomainError, type ErrorCode } from '../../core/errors.js'
import type { UserRecord } from '../../core/entities.js'
import { openTestContext } from '../../../test/support/app-context.js'
import { userPrincipal, type Principal } from '../access.js'
import { newId } from '../../core/ids.js'
import type { FolderRecord } from '../../core/entities.js'
import { rootFolder } from '../roots.js'
import type { AppContext } from '../context.js'
import { createApp, type App } from '../create-app.js'

const isCode = (code: ErrorCode) => (error: unknown) => isDomainError(error) && error.code === code
const body = (text: string) => Readable.from([Buffer.from(text)])

// The sharing services and the role-based access policy over a real SQLite file.
describe('sharing services', () => {
  let ctx: AppContext
  let app: App
  let dispose: () => Promise<void>
  let ann: Principal
  let ben: Principal
  let root: Principal

  before(async () => {
    ;({ ctx, dispose } = await openTestContext('folio-sharing-'))
    app = createApp(ctx)
    const make = (userName: string, isAdmin = false): Promise<UserRecord> =>
      app.accounts.createUser({ userName, password: `${userName}-password-1`, isAdmin })
    ann = userPrincipal(await make('ann'))
    ben = userPrincipal(await make('ben'))
    root = userPrincipal(await make('root', true))
  })
  after(() => dispose())

  test('a disabled user reaches nothing, their own files included, until enabled; the share stays', async () => {
    const file = await app.files.upload(ann, 'Disabled.txt', body('x'))
    const mine = await app.files.upload(ben, 'Mine.txt', body('y'))
    await app.sharing.set(ann, file.id, [{ userId: ben.user.id, access: 1 }])
    await app.accounts.setUsersDisabled(
      [ben.user.id],
      true,
      { id: root.user.id, name: 'root', address: '' },
      root.user.id,
    )
    const off = userPrincipal(await app.accounts.requireUserById(ben.user.id))
    await assert.rejects(app.authorize(off, 'read', file), isCode('NOT_FOUND'))
    await assert.rejects(app.authorize(off, 'read', mine), isCode('NOT_FOUND'))
    await app.accounts.setUsersDisabled(
      [ben.user.id],
      false,
      { id: root.user.id, name: 'root', address: '' },
      root.user.id,
    )
    const on = userPrincipal(await app.accounts.requireUserById(ben.user.id))
    assert.equal(await app.authorize(on, 'edit', file), 'readwrite')
    assert.equal(await app.authorize(on, 'edit', mine), 'owner')
  })

  test('a share gives exactly its level: Read reads, Comment comments, ReadWrite edits and renames', async () => {
    const file = await app.files.upload(ann, 'Levels.txt', body('x'))
    await assert.rejects(app.files.get(ben, file.id), isCode('NOT_FOUND'))
    await app.sharing.set(ann, file.id, [{ userId: ben.user.id, access: 2 }])
    assert.equal(await app.authorize(ben, 'download', file), 'read')
    await assert.rejects(app.authorize(ben, 'comment', file), isCode('FORBIDDEN'))
    await app.sharing.set(ann, file.id, [{ userId: ben.user.id, access: 6 }])
    assert.equal(await app.authorize(ben, 'comment', file), 'comment')
    await assert.rejects(app.authorize(ben, 'edit', file), isCode('FORBIDDEN'))
    await app.sharing.set(ann, file.id, [{ userId: ben.user.id, access: 1 }])
    const renamed = await app.files.rename(file.id, { by: ben, title: 'By Ben.txt', onClash: 'refuse' })
    assert.equal(renamed.title, 'By Ben.txt')
    await assert.rejects(app.files.delete(file.id, { by: ben }), isCode('FORBIDDEN'))
    await assert.rejects(app.sharing.set(ben, file.id, [{ userId: root.user.id, access: 2 }]), isCode('FORBIDDEN'))
    await app.sharing.set(ann, file.id, [{ userId: ben.user.id, access: 3 }])
    await assert.rejects(app.files.get(ben, file.id), isCode('NOT_FOUND'))
  })

  test('an admin manages sharing of any file but does not read it unless shared', async () => {
    const file = await app.files.upload(ann, 'Admin.txt', body('x'))
    const list = await app.sharing.set(root, file.id, [{ userId: ben.user.id, access: 2 }])
    assert.deepEqual(
      list.map((e) => [e.user.id, e.access, e.isOwner]),
      [
        [ann.user.id, 1, true],
        [ben.user.id, 2, false],
      ],
    )
    await assert.rejects(app.files.get(root, file.id), isCode('NOT_FOUND'))
    assert.equal(list[1]?.user.id, ben.user.id)
  })

  test('sharedWith lists the files shared with the caller that they can still open', async () => {
    const one = await app.files.upload(ann, 'One.txt', body('1'))
    const two = await app.files.upload(ann, 'Two.txt', body('2'))
    await app.sharing.set(ann, one.id, [{ userId: root.user.id, access: 5 }])
    await app.sharing.set(ann, two.id, [{ userId: root.user.id, access: 2 }])
    await app.files.delete(two.id, { by: ann })
    const shared = await app.sharing.sharedWith(root)
    assert.deepEqual(
      shared.files.map((s) => [s.file.id, s.access]),
      [[one.id, 'review']],
    )
  })

  test('a link: made, its access changed with the same key, turned off at once, made anew with a new key', async () => {
    const file = await app.files.upload(ann, 'Linked.txt', body('l'))
    await assert.rejects(app.sharing.setLink(ben, file.id, 2), isCode('NOT_FOUND'))
    await assert.rejects(app.sharing.setLink(ann, file.id, 7), isCode('INVALID_INPUT'))
    const link = await app.sharing.setLink(ann, file.id, 2)
    assert.ok(link && link.key.length >= 32)
    const guest = { id: 'browser-1', name: 'Visitor' }
    const opened = await app.sharing.linkPrincipal(file.id, link.key, guest)
    assert.equal(opened.access, 'read')
    assert.equal(opened.principal.user.displayName, 'Visitor')
    await assert.rejects(app.authorize(opened.principal, 'edit', file), isCode('FORBIDDEN'))
    await assert.rejects(app.sharing.linkPrincipal(file.id, `${link.key}x`, guest), isCode('NOT_FOUND'))

    const upgraded = await app.sharing.setLink(ann, file.id, 1)
    assert.equal(upgraded?.key, link.key)
    assert.equal(await app.authorize(opened.principal, 'edit', file), 'readwrite')
    // The guest cannot do what only the owner does.
    await assert.rejects(app.authorize(opened.principal, 'delete', file), isCode('FORBIDDEN'))

    assert.equal(await app.sharing.setLink(ann, file.id, 0), undefined)
    await assert.rejects(app.authorize(opened.principal, 'read', file), isCode('NOT_FOUND'))
    assert.equal(await app.sharing.getLink(ann, file.id), undefined)
    // A link made anew is keyed by its own moment of making.
    const revokedAt = ctx.clock.now()
    while (ctx.clock.now() === revokedAt) await new Promise((resolve) => setTimeout(resolve, 1))
    const again = await app.sharing.setLink(ann, file.id, 2)
    assert.ok(again)
    await assert.rejects(app.authorize(opened.principal, 'read', file), isCode('NOT_FOUND'))
  })

  test('people search: names only for members, e-mail for admins', async () => {
    const found = await app.sharing.findPeople(ben, 'AN')
    assert.deepEqual(
      found.map((p) => Object.keys(p).sort()),
      [['displayName', 'id']],
    )
    const byAdmin = await app.sharing.findPeople(root, 'ann')
    assert.equal(byAdmin[0]?.email, '')
  })

  test('folder shares: a share on a folder applies below it; the most specific entry wins', async () => {
    const now = ctx.clock.now()
    const folder = (parentId: string, title: string): FolderRecord => ({
      id: newId(),
      ownerId: ann.user.id,
      parentId,
      title,
      rootType: null,
      createdAt: now,
      createdBy: ann.user.id,
      updatedAt: now,
      updatedBy: ann.user.id,
      revision: 1,
      trashedAt: null,
      originFolderId: null,
    })
    const my = await rootFolder(ctx, ann.user.id, 'my')
    const outer = folder(my.id, 'Outer')
    await ctx.store.folders.create(outer)
    const inner = folder(outer.id, 'Inner')
    await ctx.store.folders.create(inner)
    const uploaded = await app.files.upload(ann, 'Deep.txt', body('deep'))
    const file = await ctx.store.files.update(uploaded.id, uploaded.revision, { folderId: inner.id })
    assert.ok(file)

    await assert.rejects(
      app.sharing.setFolder(ben, outer.id, [{ userId: root.user.id, access: 2 }]),
      isCode('NOT_FOUND'),
    )
    await assert.rejects(app.sharing.setFolder(ann, my.id, [{ userId: ben.user.id, access: 2 }]), isCode('NOT_FOUND'))
    await app.sharing.setFolder(ann, outer.id, [{ userId: ben.user.id, access: 1 }])
    assert.equal(await app.authorize(ben, 'edit', file), 'readwrite')
    await app.sharing.setFolder(ann, inner.id, [{ userId: ben.user.id, access: 2 }])
    assert.equal(await app.authorize(ben, 'read', file), 'read')
    await assert.rejects(app.authorize(ben, 'edit', file), isCode('FORBIDDEN'))
    await app.sharing.set(ann, file.id, [{ userId: ben.user.id, access: 3 }])
    await assert.rejects(app.files.get(ben, file.id), isCode('NOT_FOUND'))
    await app.sharing.set(ann, file.id, [{ userId: ben.user.id, access: 0 }])
    await app.sharing.setFolder(ann, inner.id, [{ userId: ben.user.id, access: 0 }])
    assert.equal(await app.authorize(ben, 'edit', file), 'readwrite')
    const listed = await app.sharing.listFolder(ann, outer.id)
    assert.deepEqual(
      listed.map((e) => [e.user.id, e.access]),
      [
        [ann.user.id, 1],
        [ben.user.id, 1],
      ],
    )
    const shared = await app.sharing.sharedWith(ben)
    assert.deepEqual(
      shared.folders.map((f) => [f.folder.id, f.access]),
      [[outer.id, 'readwrite']],
    )
    await app.sharing.setFolder(ann, outer.id, [{ userId: ben.user.id, access: 0 }])
    await assert.rejects(app.files.get(ben, file.id), isCode('NOT_FOUND'))
  })
})
