import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { openTestContext } from '../../../test/support/app-context.js'
import type { FileRecord, FolderRecord } from '../../core/entities.js'
import { isDomainError, type ErrorCode } from '../../core/errors.js'
import { userPrincipal, type Principal } from '../access.js'
import type { AppContext } from '../context.js'
import { createApp, type App } from '../create-app.js'

const isCode = (code: ErrorCode) => (error: unknown) => isDomainError(error) && error.code === code
const body = (text: string) => Readable.from([Buffer.from(text)])

// The access rule of folder links (access.ts folderLinkGrant) over a real store, with a
// clock the test moves for expiry.
describe('folder links', () => {
  let ctx: AppContext
  let app: App
  let dispose: () => Promise<void>
  let now = Date.UTC(2026, 0, 1)
  let ann: Principal
  let ben: Principal
  let projects: FolderRecord
  let drafts: FolderRecord
  let outside: FolderRecord
  let report: FileRecord
  let draft: FileRecord
  let secret: FileRecord
  let key: string

  const guest = { id: 'g1', name: 'Guest' }

  before(async () => {
    const opened = await openTestContext('folio-folder-links-')
    dispose = opened.dispose
    ctx = { ...opened.ctx, clock: { now: () => now } }
    app = createApp(ctx)
    ann = userPrincipal(await app.accounts.createUser({ userName: 'ann', password: 'ann-password-1' }))
    ben = userPrincipal(await app.accounts.createUser({ userName: 'ben', password: 'ben-password-1' }))
    projects = await app.folders.create(ann, '@my', 'Projects')
    drafts = await app.folders.create(ann, projects.id, 'Drafts')
    outside = await app.folders.create(ann, '@my', 'Private')
    report = await app.files.upload(ann, 'report.txt', body('report'), undefined, projects.id)
    draft = await app.files.upload(ann, 'draft.txt', body('draft'), undefined, drafts.id)
    secret = await app.files.upload(ann, 'secret.txt', body('secret'), undefined, outside.id)
    const link = await app.sharing.setFolderLink(ann, projects.id, { access: 2 })
    assert.ok(link)
    key = link.key
  })
  after(() => dispose())

  test('the key opens the linked folder and every folder and file below it, nothing above or beside', async () => {
    const page = await app.sharing.openFolderLink(projects.id, key)
    assert.deepEqual(
      page.folders.map((f) => f.title),
      ['Drafts'],
    )
    assert.deepEqual(
      page.files.map((f) => f.title),
      ['report.txt'],
    )
    assert.equal(page.access, 'read')
    const sub = await app.sharing.openFolderLink(drafts.id, key)
    assert.deepEqual(
      sub.path.map((f) => f.title),
      ['Projects', 'Drafts'],
    )
    const opened = await app.sharing.linkPrincipal(draft.id, key, guest)
    assert.equal(opened.access, 'read')
    assert.equal(opened.linkedFolderId, projects.id)
    assert.equal(await app.authorize(opened.principal, 'download', draft), 'read')
    await assert.rejects(app.authorize(opened.principal, 'edit', draft), isCode('FORBIDDEN'))
    // Above the linked folder (the root), beside it, and a file outside: not here.
    const my = (await app.folders.roots(ann)).my
    await assert.rejects(app.sharing.openFolderLink(my.id, key), isCode('NOT_FOUND'))
    await assert.rejects(app.sharing.openFolderLink(outside.id, key), isCode('NOT_FOUND'))
    await assert.rejects(app.sharing.linkPrincipal(secret.id, key, guest), isCode('NOT_FOUND'))
    // A principal made for one file reaches no other, even inside the tree.
    await assert.rejects(app.authorize(opened.principal, 'read', report), isCode('NOT_FOUND'))
  })

  test('a file moved out of the tree is out of reach at the next request; moved back, in again', async () => {
    const file = await app.files.upload(ann, 'moving.txt', body('m'), undefined, drafts.id)
    const { principal } = await app.sharing.linkPrincipal(file.id, key, guest)
    await app.folders.move(ann, { folderIds: [], fileIds: [file.id] }, outside.id, 'duplicate')
    const moved = await app.files.get(ann, file.id)
    assert.equal(moved.folderId, outside.id)
    await assert.rejects(app.authorize(principal, 'read', moved), isCode('NOT_FOUND'))
    await assert.rejects(app.sharing.linkPrincipal(file.id, key, guest), isCode('NOT_FOUND'))
    await app.folders.move(ann, { folderIds: [], fileIds: [file.id] }, projects.id, 'duplicate')
    assert.equal(await app.authorize(principal, 'read', await app.files.get(ann, file.id)), 'read')
  })

  test('trashed items are neither listed nor reachable; a trashed sub-folder is gone with its files', async () => {
    const doomed = await app.files.upload(ann, 'doomed.txt', body('d'), undefined, projects.id)
    const bin = await app.folders.create(ann, projects.id, 'Bin')
    const inBin = await app.files.upload(ann, 'in-bin.txt', body('b'), undefined, bin.id)
    await app.folders.delete(ann, { folderIds: [bin.id], fileIds: [doomed.id] }, false, true)
    const page = await app.sharing.openFolderLink(projects.id, key)
    assert.equal(
      page.files.some((f) => f.id === doomed.id),
      false,
    )
    assert.equal(
      page.folders.some((f) => f.id === bin.id),
      false,
    )
    await assert.rejects(app.sharing.linkPrincipal(doomed.id, key, guest), isCode('NOT_FOUND'))
    await assert.rejects(app.sharing.linkPrincipal(inBin.id, key, guest), isCode('NOT_FOUND'))
    await assert.rejects(app.sharing.openFolderLink(bin.id, key), isCode('NOT_FOUND'))
  })

  test('denyDownload: viewing and previews stay, downloads are FORBIDDEN', async () => {
    await app.sharing.setFolderLink(ann, projects.id, { access: 2, denyDownload: true })
    const { principal, denyDownload } = await app.sharing.linkPrincipal(report.id, key, guest)
    assert.equal(denyDownload, true)
    assert.equal(await app.authorize(principal, 'read', report), 'read')
    await assert.rejects(app.authorize(principal, 'download', report), isCode('FORBIDDEN'))
    await assert.rejects(app.files.get(principal, report.id, 'download'), isCode('FORBIDDEN'))
    assert.equal((await app.conversion.preview(principal, report.id)).kind, 'text')
    await app.sharing.setFolderLink(ann, projects.id, { access: 2 })
    assert.equal(await app.authorize(principal, 'download', report), 'read')
  })

  test('an expired link reaches nothing; an expiry in the past is refused; a new expiry renews it', async () => {
    await assert.rejects(
      app.sharing.setFolderLink(ann, projects.id, { access: 2, expiresAt: now - 1 }),
      isCode('INVALID_INPUT'),
    )
    await app.sharing.setFolderLink(ann, projects.id, { access: 2, expiresAt: now + 60_000 })
    const { principal } = await app.sharing.linkPrincipal(report.id, key, guest)
    now += 60_000
    await assert.rejects(app.sharing.openFolderLink(projects.id, key), isCode('NOT_FOUND'))
    await assert.rejects(app.authorize(principal, 'read', report), isCode('NOT_FOUND'))
    assert.equal((await app.sharing.getFolderLink(ann, projects.id))?.key, key)
    await app.sharing.setFolderLink(ann, projects.id, { access: 2 })
    assert.equal(await app.authorize(principal, 'read', report), 'read')
  })

  test('turned off, the key reaches nothing; turned on again, a new key, the old one still nothing', async () => {
    const { principal } = await app.sharing.linkPrincipal(report.id, key, guest)
    assert.equal(await app.sharing.setFolderLink(ann, projects.id, { access: 0 }), undefined)
    assert.equal(await app.sharing.getFolderLink(ann, projects.id), undefined)
    await assert.rejects(app.sharing.openFolderLink(projects.id, key), isCode('NOT_FOUND'))
    await assert.rejects(app.authorize(principal, 'read', report), isCode('NOT_FOUND'))
    assert.equal(await app.sharing.linkAccess(report.id, principal.kind === 'link' ? principal.keyHash : ''), 'none')
    now += 1
    const again = await app.sharing.setFolderLink(ann, projects.id, { access: 2 })
    assert.ok(again)
    assert.notEqual(again.key, key)
    await assert.rejects(app.sharing.openFolderLink(projects.id, key), isCode('NOT_FOUND'))
    key = again.key
    assert.equal((await app.sharing.openFolderLink(projects.id, key)).folder.id, projects.id)
  })

  test('a link guest may not delete, move or share, nor list folders as a user, whatever the link carries', async () => {
    await app.sharing.setFolderLink(ann, projects.id, { access: 1 })
    const { principal, access } = await app.sharing.linkPrincipal(report.id, key, guest)
    assert.equal(access, 'readwrite')
    assert.equal(await app.authorize(principal, 'edit', report), 'readwrite')
    for (const action of ['delete', 'trash', 'move', 'share'] as const) {
      await assert.rejects(app.authorize(principal, action, report), isCode('FORBIDDEN'))
    }
    await assert.rejects(
      app.folders.list(principal, projects.id, {
        offset: 0,
        limit: 10,
        sortBy: 'title',
        descending: false,
        filter: { kind: 'all' },
      }),
      isCode('NOT_FOUND'),
    )
    await app.sharing.setFolderLink(ann, projects.id, { access: 2 })
  })

  test('only the owner or an admin manages the link; a root folder has none; bad settings change nothing', async () => {
    await assert.rejects(app.sharing.getFolderLink(ben, projects.id), isCode('NOT_FOUND'))
    await assert.rejects(app.sharing.setFolderLink(ben, projects.id, { access: 2 }), isCode('NOT_FOUND'))
    const my = (await app.folders.roots(ann)).my
    await assert.rejects(app.sharing.setFolderLink(ann, my.id, { access: 2 }), isCode('NOT_FOUND'))
    await assert.rejects(app.sharing.setFolderLink(ann, projects.id, { access: 7 }), isCode('INVALID_INPUT'))
    assert.equal((await app.sharing.getFolderLink(ann, projects.id))?.access, 2)
  })

  test("a disabled owner's folder link works no more until they are enabled", async () => {
    const root = userPrincipal(
      await app.accounts.createUser({ userName: 'root', password: 'root-password-1', isAdmin: true }),
    )
    const actor = { id: root.user.id, name: 'root', address: '' }
    await app.accounts.setUsersDisabled([ann.user.id], true, actor, root.user.id)
    await assert.rejects(app.sharing.openFolderLink(projects.id, key), isCode('NOT_FOUND'))
    await app.accounts.setUsersDisabled([ann.user.id], false, actor, root.user.id)
    assert.equal((await app.sharing.openFolderLink(projects.id, key)).folder.id, projects.id)
  })

  test('the owner sees the link on the folder row (sharingOf)', async () => {
    const marks = await app.sharing.sharingOf(ann, [], [projects, outside])
    assert.equal(marks.get(`folder:${projects.id}`)?.link, 2)
    assert.equal(marks.has(`folder:${outside.id}`), false)
  })
})
