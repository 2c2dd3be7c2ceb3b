import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { encodeUtf7 } from '../../src/core/names/utf7.js'
import { createUser } from '../../src/app/accounts/accounts.js'
import { FakeClock } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { contentOf, lockHeaders, recordOf, startWopiHarness, type WopiHarness } from './wopi-support.js'

const MINUTE = 60_000

describe('WOPI locks: every row of the lock table', () => {
  const clock = new FakeClock()
  let h: WopiHarness

  before(async () => {
    h = await startWopiHarness({}, { clock })
  })
  after(() => h.server.dispose())

  const lockOp = (fileId: string, override: string, lockId: string, extra: Record<string, string> = {}) =>
    h.wopi(fileId, { override, headers: { ...lockHeaders(lockId), ...extra } })

  async function lockedFile(lockId = 'L1', content = 'content') {
    const id = await h.createFile(`locked-${Math.random().toString(36).slice(2)}.docx`, content)
    const reply = await lockOp(id, 'LOCK', lockId)
    assert.equal(reply.status, 200)
    return id
  }

  test('unlocked | Lock | always → locked under the X-WOPI-Lock value, 200', async () => {
    const id = await h.createFile('row1.docx', 'x')
    const reply = await lockOp(id, 'LOCK', 'lock-A')
    assert.equal(reply.status, 200)
    assert.equal(reply.headers.get('x-wopi-lock'), null, 'a 200 never carries X-WOPI-Lock')
    assert.equal(reply.headers.get('x-wopi-itemversion'), 'v1')
    const got = await h.wopi(id, { override: 'GET_LOCK' })
    assert.equal(got.headers.get('x-wopi-lock'), 'lock-A')
  })

  test('locked | Lock | X-WOPI-Lock equals current lock → same lock, timer refreshed, 200', async () => {
    const id = await lockedFile('same')
    clock.advance(20 * MINUTE)
    const again = await lockOp(id, 'LOCK', 'same')
    assert.equal(again.status, 200)
    assert.equal(again.headers.get('x-wopi-lock'), null)
    clock.advance(20 * MINUTE) // 40 min after the first Lock, 20 after the refresh
    const other = await lockOp(id, 'LOCK', 'other')
    assert.equal(other.status, 409, 'the refreshed lock still holds')
    assert.equal(other.headers.get('x-wopi-lock'), 'same')
  })

  test('locked | Lock | X-WOPI-Lock differs → unchanged, 409 with the current lock', async () => {
    const id = await lockedFile('holder')
    const reply = await lockOp(id, 'LOCK', 'intruder')
    assert.equal(reply.status, 409)
    assert.equal(reply.headers.get('x-wopi-lock'), 'holder')
    assert.ok(reply.headers.get('x-wopi-lockfailurereason'))
    const got = await h.wopi(id, { override: 'GET_LOCK' })
    assert.equal(got.headers.get('x-wopi-lock'), 'holder')
  })

  test('locked | RefreshLock | X-WOPI-Lock equals current lock → expiry reset to 30 minutes', async () => {
    const id = await lockedFile('R')
    clock.advance(25 * MINUTE)
    const refreshed = await lockOp(id, 'REFRESH_LOCK', 'R')
    assert.equal(refreshed.status, 200)
    assert.equal(refreshed.headers.get('x-wopi-lock'), null)
    clock.advance(25 * MINUTE) // 50 min after Lock, 25 after RefreshLock
    assert.equal((await lockOp(id, 'LOCK', 'X')).status, 409)
    clock.advance(6 * MINUTE) // 31 min after RefreshLock
    assert.equal((await lockOp(id, 'LOCK', 'X')).status, 200)
  })

  test('locked | RefreshLock | X-WOPI-Lock differs → unchanged, 409 with the current lock', async () => {
    const id = await lockedFile('R2')
    const reply = await lockOp(id, 'REFRESH_LOCK', 'nope')
    assert.equal(reply.status, 409)
    assert.equal(reply.headers.get('x-wopi-lock'), 'R2')
  })

  test('unlocked | RefreshLock | always → unlocked, 409 with X-WOPI-Lock set to the empty string', async () => {
    const id = await h.createFile('row6.docx', 'x')
    const reply = await lockOp(id, 'REFRESH_LOCK', 'any')
    assert.equal(reply.status, 409)
    assert.equal(reply.headers.get('x-wopi-lock'), '')
  })

  test('unlocked | Unlock | always → unlocked, 409 with X-WOPI-Lock set to the empty string', async () => {
    const id = await h.createFile('row7.docx', 'x')
    const reply = await lockOp(id, 'UNLOCK', 'any')
    assert.equal(reply.status, 409)
    assert.equal(reply.headers.get('x-wopi-lock'), '')
  })

  test('locked | Unlock | X-WOPI-Lock differs → unchanged, 409 with the current lock', async () => {
    const id = await lockedFile('U')
    const reply = await lockOp(id, 'UNLOCK', 'not-U')
    assert.equal(reply.status, 409)
    assert.equal(reply.headers.get('x-wopi-lock'), 'U')
    assert.equal((await h.wopi(id, { override: 'GET_LOCK' })).headers.get('x-wopi-lock'), 'U')
  })

  test('locked | 30 minutes pass without Unlock or RefreshLock → unlocked (automatic expiry)', async () => {
    const id = await lockedFile('E')
    clock.advance(29 * MINUTE)
    assert.equal((await lockOp(id, 'LOCK', 'new')).status, 409)
    clock.advance(1 * MINUTE)
    assert.equal((await h.wopi(id, { override: 'GET_LOCK' })).headers.get('x-wopi-lock'), '')
    const relock = await lockOp(id, 'LOCK', 'new')
    assert.equal(relock.status, 200, 'a Lock with a new id succeeds once the old lock expired')
  })

  test('locked | PutFile | X-WOPI-Lock differs → unchanged, 409 with the current lock', async () => {
    const id = await lockedFile('P', 'old')
    const reply = await h.wopi(id, {
      contents: true,
      override: 'PUT',
      headers: { 'X-WOPI-Lock': 'other' },
      body: 'new',
    })
    assert.equal(reply.status, 409)
    assert.equal(reply.headers.get('x-wopi-lock'), 'P')
    assert.equal(await contentOf(h, id), 'old')
  })

  test('locked | PutFile | X-WOPI-Lock missing → unchanged, 409 with the current lock', async () => {
    const id = await lockedFile('P2', 'old')
    const reply = await h.wopi(id, { contents: true, override: 'PUT', body: 'new' })
    assert.equal(reply.status, 409)
    assert.equal(reply.headers.get('x-wopi-lock'), 'P2')
    assert.equal(await contentOf(h, id), 'old')
  })

  test('locked | RenameFile | X-WOPI-Lock differs → unchanged, 409 with the current lock', async () => {
    const id = await lockedFile('N')
    const before = (await recordOf(h, id)).title
    const reply = await h.wopi(id, {
      override: 'RENAME_FILE',
      headers: { 'X-WOPI-Lock': 'other', 'X-WOPI-RequestedName': 'renamed' },
    })
    assert.equal(reply.status, 409)
    assert.equal(reply.headers.get('x-wopi-lock'), 'N')
    assert.equal((await recordOf(h, id)).title, before)
  })

  test('locked | PutRelativeFile | X-WOPI-Lock differs → unchanged, 409 with the current lock', async () => {
    const id = await lockedFile('S')
    const reply = await h.wopi(id, {
      override: 'PUT_RELATIVE',
      headers: { 'X-WOPI-Lock': 'other', 'X-WOPI-SuggestedTarget': encodeUtf7('copy-409.docx') },
      body: 'copy',
    })
    assert.equal(reply.status, 409)
    assert.equal(reply.headers.get('x-wopi-lock'), 'S')
  })

  test('unlocked | PutFile | current file size is 0 bytes → request proceeds', async () => {
    const id = await h.createFile('empty.docx', '')
    const reply = await h.wopi(id, { contents: true, override: 'PUT', body: 'template' })
    assert.equal(reply.status, 200)
    assert.equal(reply.headers.get('x-wopi-itemversion'), 'v2')
    assert.equal(await contentOf(h, id), 'template')
  })

  test('unlocked | PutFile | file size is other than 0 bytes → 409 Conflict', async () => {
    const id = await h.createFile('nonempty.docx', 'data')
    const reply = await h.wopi(id, { contents: true, override: 'PUT', body: 'overwrite' })
    assert.equal(reply.status, 409)
    assert.equal(reply.headers.get('x-wopi-lock'), '')
    assert.equal(await contentOf(h, id), 'data')
  })

  test('unlocked | RenameFile | always → 200 OK and rename proceeds', async () => {
    const id = await h.createFile('row13.docx', 'x')
    const reply = await h.wopi(id, {
      override: 'RENAME_FILE',
      headers: { 'X-WOPI-RequestedName': 'row13-renamed' },
    })
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.json, { Name: 'row13-renamed' })
    assert.equal((await recordOf(h, id)).title, 'row13-renamed.docx')
  })
})

describe('WOPI locks: outcomes the lock table leaves open (decided)', () => {
  let h: WopiHarness
  before(async () => {
    h = await startWopiHarness()
  })
  after(() => h.server.dispose())

  const lockOp = (fileId: string, override: string, lockId: string, extra: Record<string, string> = {}) =>
    h.wopi(fileId, { override, headers: { ...lockHeaders(lockId), ...extra } })

  test('locked | Unlock | X-WOPI-Lock matches → 200, unlocked, X-WOPI-ItemVersion, no X-WOPI-Lock', async () => {
    const id = await h.createFile('unlock.docx', 'x')
    await lockOp(id, 'LOCK', 'M')
    const reply = await lockOp(id, 'UNLOCK', 'M')
    assert.equal(reply.status, 200)
    assert.equal(reply.headers.get('x-wopi-lock'), null)
    assert.equal(reply.headers.get('x-wopi-itemversion'), 'v1')
    assert.equal((await h.wopi(id, { override: 'GET_LOCK' })).headers.get('x-wopi-lock'), '')
    assert.equal((await lockOp(id, 'LOCK', 'someone-else')).status, 200)
  })

  test('locked | PutFile | X-WOPI-Lock matches → proceeds (new version)', async () => {
    const id = await h.createFile('put-match.docx', 'v1')
    await lockOp(id, 'LOCK', 'K')
    const reply = await h.wopi(id, {
      contents: true,
      override: 'PUT',
      headers: { 'X-WOPI-Lock': 'K' },
      body: 'v2',
    })
    assert.equal(reply.status, 200)
    assert.equal(reply.headers.get('x-wopi-lock'), null)
    assert.equal(await contentOf(h, id), 'v2')
  })

  test('locked | RenameFile | X-WOPI-Lock matches → proceeds', async () => {
    const id = await h.createFile('rename-match.docx', 'x')
    await lockOp(id, 'LOCK', 'K')
    const reply = await h.wopi(id, {
      override: 'RENAME_FILE',
      headers: { 'X-WOPI-Lock': 'K', 'X-WOPI-RequestedName': 'renamed-while-locked' },
    })
    assert.equal(reply.status, 200)
    assert.equal((await recordOf(h, id)).title, 'renamed-while-locked.docx')
  })

  test('locked | PutRelativeFile | X-WOPI-Lock matches or is absent → proceeds', async () => {
    const id = await h.createFile('relative-match.docx', 'x')
    await lockOp(id, 'LOCK', 'K')
    const matching = await h.wopi(id, {
      override: 'PUT_RELATIVE',
      headers: { 'X-WOPI-Lock': 'K', 'X-WOPI-SuggestedTarget': encodeUtf7('copy-a.docx') },
      body: 'a',
    })
    assert.equal(matching.status, 200)
    const absent = await h.wopi(id, {
      override: 'PUT_RELATIVE',
      headers: { 'X-WOPI-SuggestedTarget': encodeUtf7('copy-b.docx') },
      body: 'b',
    })
    assert.equal(absent.status, 200)
    assert.equal(absent.json.Name, 'copy-b.docx')
  })

  test('UnlockAndRelock (LOCK with X-WOPI-OldLock) swaps the lock atomically; mismatch is 409', async () => {
    const id = await h.createFile('relock.docx', 'x')
    await lockOp(id, 'LOCK', 'old')
    const wrong = await lockOp(id, 'LOCK', 'new', { 'X-WOPI-OldLock': 'not-old' })
    assert.equal(wrong.status, 409)
    assert.equal(wrong.headers.get('x-wopi-lock'), 'old')
    const swapped = await lockOp(id, 'LOCK', 'new', { 'X-WOPI-OldLock': 'old' })
    assert.equal(swapped.status, 200)
    assert.equal(swapped.headers.get('x-wopi-lock'), null)
    assert.equal((await h.wopi(id, { override: 'GET_LOCK' })).headers.get('x-wopi-lock'), 'new')
    const unlockedFile = await h.createFile('relock-unlocked.docx', 'x')
    const onUnlocked = await lockOp(unlockedFile, 'LOCK', 'new', { 'X-WOPI-OldLock': 'old' })
    assert.equal(onUnlocked.status, 409)
    assert.equal(onUnlocked.headers.get('x-wopi-lock'), '')
  })

  for (const override of ['LOCK', 'REFRESH_LOCK', 'UNLOCK']) {
    test(`${override} without X-WOPI-Lock, or with an empty one, is 400`, async () => {
      const id = await h.createFile(`no-lock-${override}.docx`, 'x')
      const missing = await h.wopi(id, { override })
      assert.equal(missing.status, 400)
      const empty = await h.wopi(id, { override, headers: { 'X-WOPI-Lock': '' } })
      assert.equal(empty.status, 400)
    })
  }

  test('UnlockAndRelock without X-WOPI-Lock, or with an empty X-WOPI-OldLock, is 400', async () => {
    const id = await h.createFile('relock-400.docx', 'x')
    await lockOp(id, 'LOCK', 'old')
    assert.equal((await h.wopi(id, { override: 'LOCK', headers: { 'X-WOPI-OldLock': 'old' } })).status, 400)
    assert.equal((await lockOp(id, 'LOCK', 'new', { 'X-WOPI-OldLock': '' })).status, 400)
  })

  test('a lock ID longer than 1024 characters is 400; exactly 1024 is accepted', async () => {
    const id = await h.createFile('long-lock.docx', 'x')
    assert.equal((await lockOp(id, 'LOCK', 'x'.repeat(1025))).status, 400)
    assert.equal((await lockOp(id, 'LOCK', 'y'.repeat(1024))).status, 200)
  })

  test('lock IDs are compared byte for byte (case matters)', async () => {
    const id = await h.createFile('case-lock.docx', 'x')
    await lockOp(id, 'LOCK', 'Lock')
    const reply = await lockOp(id, 'LOCK', 'lock')
    assert.equal(reply.status, 409)
    assert.equal(reply.headers.get('x-wopi-lock'), 'Lock')
  })

  test('GetLock answers 200 with X-WOPI-Lock: the lock, or the empty string when unlocked', async () => {
    const id = await h.createFile('getlock.docx', 'x')
    const unlocked = await h.wopi(id, { override: 'GET_LOCK' })
    assert.equal(unlocked.status, 200)
    assert.equal(unlocked.headers.get('x-wopi-lock'), '')
    await lockOp(id, 'LOCK', 'G')
    const locked = await h.wopi(id, { override: 'GET_LOCK' })
    assert.equal(locked.status, 200)
    assert.equal(locked.headers.get('x-wopi-lock'), 'G')
  })

  test('an unknown X-WOPI-Override is 501; a missing one is 400', async () => {
    const id = await h.createFile('override.docx', 'x')
    assert.equal((await h.wopi(id, { override: 'COBALT' })).status, 501)
    assert.equal((await h.wopi(id, { override: 'LOCK', contents: true, headers: lockHeaders('a') })).status, 501)
    assert.equal((await h.wopi(id, {})).status, 400)
  })

  test('50 concurrent Locks with distinct IDs: exactly one 200, every 409 names the winner', async () => {
    const id = await h.createFile('race.docx', 'x')
    const token = await h.tokenFor(id)
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => h.wopi(id, { token, override: 'LOCK', headers: lockHeaders(`racer-${i}`) })),
    )
    const winners = replies.filter((r) => r.status === 200)
    assert.equal(winners.length, 1)
    const current = (await h.wopi(id, { override: 'GET_LOCK' })).headers.get('x-wopi-lock')
    assert.match(current ?? '', /^racer-\d+$/)
    const losers = replies.filter((r) => r.status !== 200)
    assert.equal(losers.length, 49)
    for (const loser of losers) {
      assert.equal(loser.status, 409)
      assert.equal(loser.headers.get('x-wopi-lock'), current)
    }
  })
})

describe('WOPI locks across a restart', () => {
  let h: WopiHarness
  before(async () => {
    h = await startWopiHarness()
  })
  after(() => h.server.dispose())

  test('a lock taken before a restart is still held after it, and Unlock then works', async () => {
    const id = await h.createFile('restart.docx', 'x')
    const token = await h.tokenFor(id)
    assert.equal((await h.wopi(id, { token, override: 'LOCK', headers: lockHeaders('persist') })).status, 200)
    await h.restart()
    const other = await h.wopi(id, { token, override: 'LOCK', headers: lockHeaders('other') })
    assert.equal(other.status, 409, 'the access token and the lock both survive the restart')
    assert.equal(other.headers.get('x-wopi-lock'), 'persist')
    const unlock = await h.wopi(id, { token, override: 'UNLOCK', headers: lockHeaders('persist') })
    assert.equal(unlock.status, 200)
    assert.equal((await h.wopi(id, { token, override: 'GET_LOCK' })).headers.get('x-wopi-lock'), '')
  })
})

describe('locks stuck after a browser was closed', () => {
  const clock = new FakeClock()
  let h: WopiHarness

  before(async () => {
    h = await startWopiHarness({}, { clock })
  })
  after(() => h.server.dispose())

  test('the owner sees who holds a lock and since when, and releases it; a refresh keeps the time', async () => {
    const id = await h.createFile('stuck.docx', 'x')
    const before = clock.now()
    assert.equal((await h.wopi(id, { override: 'LOCK', headers: lockHeaders('tab-1') })).status, 200)
    const taken = clock.now()
    clock.advance(10 * MINUTE)
    assert.equal((await h.wopi(id, { override: 'REFRESH_LOCK', headers: lockHeaders('tab-1') })).status, 200)
    assert.equal((await h.wopi(id, { override: 'LOCK', headers: lockHeaders('tab-1') })).status, 200)

    const info = await call(h.server.url, 'GET', `/api/2.0/files/file/${id}`, { token: h.portalToken })
    assert.equal(info.json.response.locked, true)
    assert.equal(info.json.response.lockedBy.displayName, 'admin')
    const lockedAt = Date.parse(info.json.response.lockedAt)
    assert.ok(lockedAt >= before && lockedAt <= taken, 'a refresh keeps when it was taken')
    const lock = await call(h.server.url, 'GET', `/api/2.0/files/file/${id}/lock`, { token: h.portalToken })
    assert.equal(lock.status, 200)
    assert.equal(lock.json.response.locked, true)
    assert.equal(Date.parse(lock.json.response.lockedAt), lockedAt)

    const released = await call(h.server.url, 'DELETE', `/api/2.0/files/file/${id}/lock`, { token: h.portalToken })
    assert.equal(released.status, 200)
    assert.equal(released.json.response.released, true)
    assert.equal((await h.wopi(id, { override: 'GET_LOCK' })).headers.get('x-wopi-lock'), '')
    const after = await call(h.server.url, 'GET', `/api/2.0/files/file/${id}`, { token: h.portalToken })
    assert.equal(after.json.response.locked, false)
    assert.equal(after.json.response.lockedBy, null)
    const again = await call(h.server.url, 'DELETE', `/api/2.0/files/file/${id}/lock`, { token: h.portalToken })
    assert.equal(again.json.response.released, false, 'nothing left to release')
    // The old holder's client is told on its next locked call.
    const stale = await h.wopi(id, { override: 'REFRESH_LOCK', headers: lockHeaders('tab-1') })
    assert.equal(stale.status, 409)
  })

  test('a restore waits for the WOPI session: refused while a client holds the lock, so its next PutFile cannot silently replace it', async () => {
    const id = await h.createFile('restore-under-lock.docx', 'one')
    assert.equal((await h.wopi(id, { override: 'LOCK', headers: lockHeaders('tab-r') })).status, 200)
    const put = await h.wopi(id, { contents: true, override: 'PUT', headers: { 'X-WOPI-Lock': 'tab-r' }, body: 'two' })
    assert.equal(put.status, 200)
    const history = async () =>
      (await call(h.server.url, 'GET', `/api/2.0/files/file/${id}/history`, { token: h.portalToken })).json.response
    const versions = (await history()).length
    const refused = await call(h.server.url, 'POST', `/api/2.0/files/file/${id}/restore`, {
      token: h.portalToken,
      body: { version: 1 },
    })
    assert.equal(refused.status, 409)
    assert.match(refused.json.error.message, /WOPI editor has this document open/)
    assert.equal((await history()).length, versions, 'no version was made')
    assert.equal((await h.wopi(id, { override: 'UNLOCK', headers: lockHeaders('tab-r') })).status, 200)
    const restored = await call(h.server.url, 'POST', `/api/2.0/files/file/${id}/restore`, {
      token: h.portalToken,
      body: { version: 1 },
    })
    assert.equal(restored.status, 200)
    assert.equal((await history()).length, versions + 1)
  })

  test('another user gets 404; an admin who is not the owner may see and release it', async () => {
    const id = await h.createFile('admin-release.docx', 'x')
    assert.equal((await h.wopi(id, { override: 'LOCK', headers: lockHeaders('gone-tab') })).status, 200)
    await createUser(h.server.ctx, { userName: 'gina', password: 'gina-password-1' })
    await createUser(h.server.ctx, { userName: 'hal', password: 'hal-password-1', isAdmin: true })
    const gina = await signIn(h.server.url, 'gina', 'gina-password-1')
    const hal = await signIn(h.server.url, 'hal', 'hal-password-1')
    for (const method of ['GET', 'DELETE']) {
      const refused = await call(h.server.url, method, `/api/2.0/files/file/${id}/lock`, { token: gina })
      assert.equal(refused.status, 404, method)
    }
    assert.equal((await h.wopi(id, { override: 'GET_LOCK' })).headers.get('x-wopi-lock'), 'gone-tab')
    const seen = await call(h.server.url, 'GET', `/api/2.0/files/file/${id}/lock`, { token: hal })
    assert.equal(seen.json.response.lockedBy.displayName, 'admin')
    const released = await call(h.server.url, 'DELETE', `/api/2.0/files/file/${id}/lock`, { token: hal })
    assert.equal(released.json.response.released, true)
    assert.equal((await h.wopi(id, { override: 'GET_LOCK' })).headers.get('x-wopi-lock'), '')
    const anonymous = await call(h.server.url, 'DELETE', `/api/2.0/files/file/${id}/lock`)
    assert.equal(anonymous.status, 401)
  })

  test("a ReadWrite sharee may not see or release the owner's lock: 403, and the lock stays", async () => {
    const id = await h.createFile('shared-lock.docx', 'x')
    assert.equal((await h.wopi(id, { override: 'LOCK', headers: lockHeaders('owner-tab') })).status, 200)
    const ivy = await createUser(h.server.ctx, { userName: 'ivy', password: 'ivy-password-1' })
    const token = await signIn(h.server.url, 'ivy', 'ivy-password-1')
    const share = await call(h.server.url, 'PUT', `/api/2.0/files/file/${id}/share`, {
      token: h.portalToken,
      body: { share: [{ shareTo: ivy.id, access: 1 }] },
    })
    assert.equal(share.status, 200, share.text)
    for (const method of ['GET', 'DELETE']) {
      const refused = await call(h.server.url, method, `/api/2.0/files/file/${id}/lock`, { token })
      assert.equal(refused.status, 403, `${method} ${refused.text}`)
    }
    assert.equal((await h.wopi(id, { override: 'GET_LOCK' })).headers.get('x-wopi-lock'), 'owner-tab')
  })
})
