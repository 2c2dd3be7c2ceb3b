import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { isDomainError, type ErrorCode } from '../core/errors.js'
import type { UserRecord } from '../core/entities.js'
import type { DocsCommandReply } from '../ports/docs-commands.js'
import { openTestContext } from '../../test/support/app-context.js'
import { userPrincipal, type Principal } from './access.js'
import { compareAndSet, RETRY } from './compare-and-set.js'
import type { AppContext } from './context.js'
import { createApp, type App } from './create-app.js'

const isCode = (code: ErrorCode) => (error: unknown) => isDomainError(error) && error.code === code

const body = (text: string) => Readable.from([Buffer.from(text)])

/** Waits until `check` holds (editor notices are sent after the request returns). */
async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  assert.ok(check())
}

// The application's services over a real SQLite file and blob folder, without HTTP.
describe('application services', () => {
  let ctx: AppContext
  let app: App
  let dispose: () => Promise<void>
  let owner: Principal
  let other: Principal
  const commands: Array<{ c: string; key: string; arg: unknown }> = []
  const ok = async (): Promise<DocsCommandReply> => ({ error: 0 })

  before(async () => {
    ;({ ctx, dispose } = await openTestContext('folio-app-services-', {
      env: { FOLIO_DOCS_URL: 'http://docs.invalid' },
      docsCommands: {
        meta: (key, title) => (commands.push({ c: 'meta', key, arg: title }), ok()),
        drop: (key, users) => (commands.push({ c: 'drop', key, arg: users }), ok()),
      },
    }))
    app = createApp(ctx)
    const make = (userName: string): Promise<UserRecord> =>
      app.accounts.createUser({ userName, password: `${userName}-password-1` })
    owner = userPrincipal(await make('ann'))
    other = userPrincipal(await make('ben'))
  })
  after(() => dispose())

  test('the access policy: the owner may, another user finds nothing, a read grant only reads', async () => {
    const file = await app.files.upload(owner, 'Policy.txt', body('p'))
    assert.equal((await app.files.get(owner, file.id)).title, 'Policy.txt')
    await assert.rejects(app.files.get(other, file.id), isCode('NOT_FOUND'))
    await assert.rejects(app.files.delete(file.id, { by: other }), isCode('NOT_FOUND'))
    const reader = userPrincipal(owner.user, 'read')
    assert.equal((await app.files.get(reader, file.id, 'download')).id, file.id)
    await assert.rejects(
      app.files.rename(file.id, { by: reader, title: 'No.txt', onClash: 'refuse' }),
      isCode('FORBIDDEN'),
    )
    assert.equal((await app.files.get(owner, file.id)).title, 'Policy.txt')
  })

  test('finding 8: a name typed in NFD is composed to NFC on rename, create and exact-title paths', async () => {
    const nfd = 'Cafe\u0301.txt'
    const nfc = 'Caf\u00e9.txt'
    const file = await app.files.upload(owner, 'Menu.txt', body('m'))
    const renamed = await app.files.rename(file.id, { by: owner, title: nfd, onClash: 'refuse' })
    assert.equal(renamed.title, nfc)
    // The NFD spelling is the same name: a second file typed that way is a clash, not a twin.
    const twin = await app.files.upload(owner, 'Other.txt', body('o'))
    await assert.rejects(app.files.rename(twin.id, { by: owner, title: nfd, onClash: 'refuse' }), isCode('NAME_TAKEN'))
    const free = await app.files.rename(twin.id, { by: owner, title: nfd, onClash: 'next-free' })
    assert.equal(free.title, 'Caf\u00e9 (2).txt')
    const created = await app.files.createBlank(owner, 'Ne\u0301e.docx')
    assert.equal(created.title, 'N\u00e9e.docx')
    const relative = await app.files.putRelative(renamed, {
      by: owner,
      target: () => ({ mode: 'specific', name: 'Re\u0301sume\u0301.txt', overwrite: false }),
      body: body('r'),
      claim: { kind: 'unlocked-door' },
      meta: {},
    })
    assert.equal(relative.title, 'R\u00e9sum\u00e9.txt')
  })

  test('one rename: a clash is refused or gets the next free name, as asked', async () => {
    await app.files.upload(owner, 'Taken.docx', body('a'))
    const file = await app.files.upload(owner, 'Mine.docx', body('b'))
    await assert.rejects(
      app.files.rename(file.id, { by: owner, title: 'taken.docx', onClash: 'refuse' }),
      isCode('NAME_TAKEN'),
    )
    const renamed = await app.files.rename(file.id, { by: owner, title: 'Taken.docx', onClash: 'next-free' })
    assert.equal(renamed.title, 'Taken (2).docx')
  })

  test('the lock policy binds WOPI writes only; a matching lock lets the holder write', async () => {
    const file = await app.files.upload(owner, 'Locked.txt', body('v1'))
    const locked = await app.locks.lock(owner, file, 'lock-A')
    const wrongLock = { kind: 'wopi', lockId: 'lock-B' } as const
    await assert.rejects(
      app.files.rename(file.id, { by: owner, title: 'X.txt', onClash: 'next-free', claim: wrongLock }),
      isCode('LOCK_MISMATCH'),
    )
    await assert.rejects(app.files.delete(file.id, { by: owner, claim: wrongLock }), isCode('LOCK_MISMATCH'))
    const put = await app.files.storeNewContents(file.id, {
      by: owner,
      body: body('v2'),
      source: 'wopi',
      claim: { kind: 'wopi', lockId: 'lock-A' },
      current: locked,
    })
    assert.equal(put.version, 2)
    // The portal's rename is the owner's own action: no lock ID, not refused.
    const renamed = await app.files.rename(file.id, { by: owner, title: 'Portal.txt', onClash: 'refuse' })
    assert.equal(renamed.title, 'Portal.txt')
    assert.equal(await app.locks.current(owner, renamed), 'lock-A')
  })

  test('a WOPI PutFile on an unlocked file that is not empty is FILE_NOT_EMPTY', async () => {
    const file = await app.files.upload(owner, 'Full.txt', body('full'))
    await assert.rejects(
      app.files.storeNewContents(file.id, {
        by: owner,
        body: body('more'),
        source: 'wopi',
        claim: { kind: 'wopi', lockId: undefined },
      }),
      isCode('FILE_NOT_EMPTY'),
    )
    assert.equal((await app.files.versions(owner, file.id)).length, 1)
  })

  test('rename and delete tell open editors, whatever door they come through', async () => {
    const file = await app.files.upload(owner, 'Open.docx', body('open'))
    await app.editing.recordEditors(file.id, `${file.id}.1`, [owner.user.id])
    await app.files.rename(file.id, {
      by: owner,
      title: 'Opened',
      onClash: 'next-free',
      claim: { kind: 'wopi', lockId: undefined },
    })
    await eventually(() => commands.some((c) => c.c === 'meta' && c.arg === 'Opened'))
    await app.files.delete(file.id, { by: owner, claim: { kind: 'wopi', lockId: undefined } })
    await eventually(() => commands.some((c) => c.c === 'drop'))
    assert.deepEqual(commands.find((c) => c.c === 'drop')?.arg, [owner.user.id])
    await assert.rejects(app.files.get(owner, file.id), isCode('NOT_FOUND'))
  })

  test('a WOPI launch issues a token the WOPI access check accepts, for that file only', async () => {
    const file = await app.files.upload(owner, 'Launch.docx', body('l'))
    const elsewhere = await app.files.upload(owner, 'Elsewhere.docx', body('e'))
    const launch = await app.wopi.launch(owner, file.id, 'read')
    assert.equal(launch.permission, 'read')
    const access = await app.wopi.access(launch.accessToken, file.id)
    assert.equal(access.user.id, owner.user.id)
    assert.equal(access.principal.grant, 'read')
    await assert.rejects(app.wopi.access(launch.accessToken, elsewhere.id), isCode('UNAUTHENTICATED'))
    await assert.rejects(app.wopi.launch(other, file.id, 'write'), isCode('NOT_FOUND'))
  })

  test("the WOPI access check reads a sharee's share on every call: edit, lowered to read, removed", async () => {
    const folder = await app.folders.create(owner, '@my', 'Shared WOPI')
    const inner = await app.folders.create(owner, folder.id, 'Inner')
    const file = await app.files.upload(owner, 'Shared.docx', body('s'), undefined, inner.id)
    await app.sharing.setFolder(owner, folder.id, [{ userId: other.user.id, access: 1 }])
    const { accessToken } = await app.wopi.launch(other, file.id, 'write')
    const granted = await app.wopi.access(accessToken, file.id)
    assert.equal(granted.permission, 'write')
    // The level decided on the call serves the Lock the call runs.
    const locked = await app.locks.lock(granted.principal, granted.file, 'L-shared')
    assert.equal(locked.lock?.lockId, 'L-shared')
    // The file's own entry is more specific than the folder's.
    await app.sharing.set(owner, file.id, [{ userId: other.user.id, access: 2 }])
    const lowered = await app.wopi.access(accessToken, file.id)
    assert.equal(lowered.permission, 'read')
    await assert.rejects(app.locks.unlock(lowered.principal, lowered.file, 'L-shared'), isCode('FORBIDDEN'))
    await app.sharing.set(owner, file.id, [{ userId: other.user.id, access: 0 }])
    assert.equal((await app.wopi.access(accessToken, file.id)).permission, 'write')
    await app.sharing.setFolder(owner, folder.id, [{ userId: other.user.id, access: 0 }])
    await assert.rejects(app.wopi.access(accessToken, file.id), isCode('NOT_FOUND'))
  })

  test('compare-and-set retries a lost write and gives up with CONCURRENT_UPDATE', async () => {
    let attempts = 0
    assert.equal(await compareAndSet(async (n) => (++attempts, n < 2 ? RETRY : 'done')), 'done')
    assert.equal(attempts, 3)
    await assert.rejects(
      compareAndSet(async () => RETRY, 3),
      isCode('CONCURRENT_UPDATE'),
    )
  })
})
