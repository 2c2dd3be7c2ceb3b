import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { changePassword, createUser, removeUser, setAdmin } from '../../src/app/accounts/accounts.js'
import { encodeUtf7 } from '../../src/core/names/utf7.js'
import { FakeClock } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { contentOf, lockHeaders, recordOf, startWopiHarness, type WopiHarness } from './wopi-support.js'

const HOUR = 3_600_000

describe('WOPI access tokens', () => {
  const clock = new FakeClock()
  let h: WopiHarness

  before(async () => {
    h = await startWopiHarness({}, { clock })
  })
  after(() => h.server.dispose())

  test('the portal hands out wopiSrc, a token and its expiry (ms since epoch)', async () => {
    const id = await h.createFile('token.docx', 'x')
    const before = clock.now()
    const reply = await call(h.server.url, 'POST', `/api/2.0/files/file/${id}/wopi`, { token: h.portalToken })
    assert.equal(reply.status, 200)
    const body = reply.json.response
    assert.equal(body.wopiSrc, `${h.server.ctx.config.publicUrl}/wopi/files/${id}`)
    assert.equal(typeof body.accessToken, 'string')
    assert.ok(body.accessTokenTtl >= before + 10 * HOUR && body.accessTokenTtl <= clock.now() + 10 * HOUR)
    assert.equal(body.edit, undefined, 'no action URLs without a configured WOPI client')
    assert.equal(body.view, undefined)
    const info = await h.wopi(id, { method: 'GET', token: body.accessToken })
    assert.equal(info.status, 200)
  })

  test('the token endpoint needs a portal token and is for the owner only (404 otherwise)', async () => {
    const id = await h.createFile('owned.docx', 'x')
    const anonymous = await call(h.server.url, 'POST', `/api/2.0/files/file/${id}/wopi`)
    assert.equal(anonymous.status, 401)
    await createUser(h.server.ctx, { userName: 'bob', password: 'bob-password-1' })
    const bob = await signIn(h.server.url, 'bob', 'bob-password-1')
    const stranger = await call(h.server.url, 'POST', `/api/2.0/files/file/${id}/wopi`, { token: bob })
    assert.equal(stranger.status, 404)
  })

  test('a missing access token is 401', async () => {
    const id = await h.createFile('missing.docx', 'x')
    for (const path of [`/wopi/files/${id}`, `/wopi/files/${id}/contents`]) {
      assert.equal((await call(h.server.url, 'GET', path)).status, 401)
    }
    const lock = await call(h.server.url, 'POST', `/wopi/files/${id}`, {
      headers: { 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'a' },
    })
    assert.equal(lock.status, 401)
  })

  test('finding 10: without a valid token the answer is 401, whatever the override or headers', async () => {
    const id = await h.createFile('override-first.docx', 'x')
    const cases: Array<[string, Record<string, string>]> = [
      [`/wopi/files/${id}`, {}],
      [`/wopi/files/${id}`, { 'X-WOPI-Override': 'NO_SUCH_OPERATION' }],
      [`/wopi/files/${id}`, { 'X-WOPI-Override': 'RENAME_FILE', 'X-WOPI-RequestedName': '+AMk-' }],
      [`/wopi/files/${id}/contents`, {}],
      [`/wopi/files/${id}/contents`, { 'X-WOPI-Override': 'LOCK' }],
    ]
    for (const [path, headers] of cases) {
      for (const query of ['', '?access_token=not-a-token']) {
        const reply = await call(h.server.url, 'POST', path + query, { headers })
        assert.equal(reply.status, 401, `${path}${query} ${JSON.stringify(headers)}`)
      }
    }
    // With a valid token the same requests get their 400 and 501.
    const token = await h.tokenFor(id)
    const q = `?access_token=${encodeURIComponent(token)}`
    assert.equal((await call(h.server.url, 'POST', `/wopi/files/${id}${q}`)).status, 400)
    const unknown = await call(h.server.url, 'POST', `/wopi/files/${id}${q}`, {
      headers: { 'X-WOPI-Override': 'NO_SUCH_OPERATION' },
    })
    assert.equal(unknown.status, 501)
  })

  test('finding 13: a password change, a withdrawn admin right or a removed user ends their WOPI tokens', async () => {
    const ctx = h.server.ctx
    const tokenOf = async (userName: string, password: string, title: string) => {
      const portal = await signIn(h.server.url, userName, password)
      const upload = await call(h.server.url, 'POST', `/api/2.0/files/@my/upload?title=${title}`, {
        token: portal,
        raw: 'x',
        headers: { 'Content-Type': 'application/octet-stream' },
      })
      const id: string = upload.json.response.id
      const launch = await call(h.server.url, 'POST', `/api/2.0/files/file/${id}/wopi`, { token: portal })
      return { id, token: String(launch.json.response.accessToken) }
    }
    const works = async (id: string, token: string) => (await h.wopi(id, { method: 'GET', token })).status

    await createUser(ctx, { userName: 'dora', password: 'dora-password-1' })
    const dora = await tokenOf('dora', 'dora-password-1', 'dora.docx')
    // Used once, so the verified token is remembered: the bump must still end it.
    assert.equal(await works(dora.id, dora.token), 200)
    await changePassword(ctx, 'dora', 'dora-password-2')
    assert.equal(await works(dora.id, dora.token), 401)
    const fresh = await tokenOf('dora', 'dora-password-2', 'dora2.docx')
    assert.equal(await works(fresh.id, fresh.token), 200, 'a token issued after the change works')

    await createUser(ctx, { userName: 'eve', password: 'eve-password-1', isAdmin: true })
    const eve = await tokenOf('eve', 'eve-password-1', 'eve.docx')
    assert.equal(await works(eve.id, eve.token), 200)
    await setAdmin(ctx, 'eve', true)
    assert.equal(await works(eve.id, eve.token), 200, 'granting a right ends nothing')
    await setAdmin(ctx, 'eve', false)
    assert.equal(await works(eve.id, eve.token), 401)

    await createUser(ctx, { userName: 'finn', password: 'finn-password-1' })
    const finn = await tokenOf('finn', 'finn-password-1', 'finn.docx')
    assert.equal(await works(finn.id, finn.token), 200)
    await removeUser(ctx, 'finn')
    assert.equal(await works(finn.id, finn.token), 401)
  })

  test('a forged or garbled access token is 401', async () => {
    const id = await h.createFile('forged.docx', 'x')
    const token = await h.tokenFor(id)
    const [payload = '', mac = ''] = token.split('.')
    const flipped = `${payload}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`
    assert.equal((await h.wopi(id, { method: 'GET', token: flipped })).status, 401)
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    const upgraded = Buffer.from(JSON.stringify({ ...claims, e: claims.e + HOUR })).toString('base64url')
    assert.equal((await h.wopi(id, { method: 'GET', token: `${upgraded}.${mac}` })).status, 401)
    assert.equal((await h.wopi(id, { method: 'GET', token: 'not-a-token' })).status, 401)
  })

  test('an expired access token is 401', async () => {
    const id = await h.createFile('expired.docx', 'x')
    const token = await h.tokenFor(id)
    clock.advance(10 * HOUR - 60_000)
    assert.equal((await h.wopi(id, { method: 'GET', token })).status, 200)
    clock.advance(120_000)
    assert.equal((await h.wopi(id, { method: 'GET', token })).status, 401)
  })

  test("another file's access token is 401", async () => {
    const mine = await h.createFile('mine.docx', 'x')
    const other = await h.createFile('other.docx', 'x')
    const otherToken = await h.tokenFor(other)
    assert.equal((await h.wopi(mine, { method: 'GET', token: otherToken })).status, 401)
    const put = await h.wopi(mine, { contents: true, override: 'PUT', token: otherToken, body: 'x' })
    assert.equal(put.status, 401)
  })

  test('a deleted or unknown file is 404', async () => {
    const id = await h.createFile('deleted.docx', 'x')
    const token = await h.tokenFor(id)
    await call(h.server.url, 'DELETE', `/api/2.0/files/file/${id}`, { token: h.portalToken })
    assert.equal((await h.wopi(id, { method: 'GET', token })).status, 404)
    assert.equal((await h.wopi(id, { method: 'GET', contents: true, token })).status, 404)
    assert.equal((await h.wopi(id, { override: 'LOCK', token, headers: lockHeaders('a') })).status, 404)
  })

  test('the token is also accepted from Authorization: Bearer', async () => {
    const id = await h.createFile('bearer.docx', 'x')
    const token = await h.tokenFor(id)
    const reply = await call(h.server.url, 'GET', `/wopi/files/${id}`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    assert.equal(reply.status, 200)
    assert.equal(reply.json.BaseFileName, 'bearer.docx')
  })

  test('a read-only token reads, but every change is 401 (Save As is 501, as CheckFileInfo says)', async () => {
    const id = await h.createFile('readonly.docx', '')
    const token = await h.tokenFor(id, 'view')
    const info = (await h.wopi(id, { method: 'GET', token })).json
    assert.equal(info.UserCanWrite, false)
    assert.equal(info.ReadOnly, true)
    assert.equal(info.UserCanRename, false)
    assert.equal(info.UserCanNotWriteRelative, true)
    assert.equal((await h.wopi(id, { method: 'GET', contents: true, token })).status, 200)
    assert.equal((await h.wopi(id, { override: 'GET_LOCK', token })).status, 200)
    const changes: Array<[string, Parameters<WopiHarness['wopi']>[1]]> = [
      ['Lock', { override: 'LOCK', headers: lockHeaders('r') }],
      ['RefreshLock', { override: 'REFRESH_LOCK', headers: lockHeaders('r') }],
      ['Unlock', { override: 'UNLOCK', headers: lockHeaders('r') }],
      ['PutFile (0-byte file)', { contents: true, override: 'PUT', body: 'x' }],
      ['RenameFile', { override: 'RENAME_FILE', headers: { 'X-WOPI-RequestedName': 'nope' } }],
      ['DeleteFile', { override: 'DELETE' }],
    ]
    for (const [name, request] of changes) {
      assert.equal((await h.wopi(id, { ...request, token })).status, 401, name)
    }
    const saveAs = await h.wopi(id, {
      override: 'PUT_RELATIVE',
      token,
      headers: { 'X-WOPI-SuggestedTarget': encodeUtf7('copy.docx') },
      body: 'x',
    })
    assert.equal(saveAs.status, 501)
    assert.equal((await recordOf(h, id)).title, 'readonly.docx')
    assert.equal(await contentOf(h, id), '')
  })
})

describe('WOPI DeleteFile and PutUserInfo', () => {
  let h: WopiHarness
  before(async () => {
    h = await startWopiHarness()
  })
  after(() => h.server.dispose())

  test('DeleteFile on a locked file is 409 with the lock; unlocked it deletes (then 404)', async () => {
    const id = await h.createFile('delete-me.docx', 'x')
    const token = await h.tokenFor(id)
    await h.wopi(id, { override: 'LOCK', token, headers: lockHeaders('D') })
    const refused = await h.wopi(id, { override: 'DELETE', token })
    assert.equal(refused.status, 409)
    assert.equal(refused.headers.get('x-wopi-lock'), 'D')
    await h.wopi(id, { override: 'UNLOCK', token, headers: lockHeaders('D') })
    const deleted = await h.wopi(id, { override: 'DELETE', token })
    assert.equal(deleted.status, 200)
    assert.equal((await h.wopi(id, { method: 'GET', token })).status, 404)
    const portal = await call(h.server.url, 'GET', `/api/2.0/files/file/${id}`, { token: h.portalToken })
    assert.equal(portal.status, 404)
  })

  test("a Lock that lands between DeleteFile's read and its delete makes it 409; the file stays", async () => {
    const id = await h.createFile('delete-race.docx', 'x')
    const token = await h.tokenFor(id)
    const files = h.server.ctx.store.files
    const original = files.delete
    let lockedInBetween = false
    files.delete = async (fileId: string, expectedRevision?: number) => {
      if (fileId === id && !lockedInBetween) {
        lockedInBetween = true
        const locked = await h.wopi(id, { override: 'LOCK', token, headers: lockHeaders('late') })
        assert.equal(locked.status, 200)
      }
      return original.call(files, fileId, expectedRevision)
    }
    try {
      const refused = await h.wopi(id, { override: 'DELETE', token })
      assert.equal(refused.status, 409)
      assert.equal(refused.headers.get('x-wopi-lock'), 'late')
    } finally {
      files.delete = original
    }
    assert.ok(lockedInBetween)
    const info = await h.wopi(id, { method: 'GET', token })
    assert.equal(info.status, 200, 'the file is still there')
    const lock = await h.wopi(id, { override: 'GET_LOCK', token })
    assert.equal(lock.headers.get('x-wopi-lock'), 'late')
  })

  test("the owner's portal delete removes a WOPI-locked file (the editor then gets 404)", async () => {
    const id = await h.createFile('portal-delete-locked.docx', 'x')
    const token = await h.tokenFor(id)
    await h.wopi(id, { override: 'LOCK', token, headers: lockHeaders('editing') })
    const removed = await call(h.server.url, 'DELETE', `/api/2.0/files/file/${id}`, { token: h.portalToken })
    assert.equal(removed.status, 200)
    assert.equal((await h.wopi(id, { method: 'GET', token })).status, 404)
    const save = { override: 'PUT', contents: true, token, headers: lockHeaders('editing') }
    assert.equal((await h.wopi(id, { ...save, body: 'a late save' })).status, 404)
  })

  test('PutUserInfo stores the body on the user; CheckFileInfo returns it as UserInfo', async () => {
    const id = await h.createFile('userinfo.docx', 'x')
    const token = await h.tokenFor(id)
    const info = '{"theme":"dark","zoom":120}'
    const stored = await h.wopi(id, {
      override: 'PUT_USER_INFO',
      token,
      headers: { 'Content-Type': 'application/json' },
      body: info,
    })
    assert.equal(stored.status, 200)
    const other = await h.createFile('userinfo-2.docx', 'x')
    assert.equal((await h.wopi(other, { method: 'GET' })).json.UserInfo, info, 'it belongs to the user')
    const viewer = await h.tokenFor(id, 'view')
    assert.equal((await h.wopi(id, { override: 'PUT_USER_INFO', token: viewer, body: 'v' })).status, 200)
    assert.equal((await h.wopi(id, { method: 'GET', token })).json.UserInfo, 'v')
  })

  test('PutUserInfo refuses more than 1024 bytes with 400 and keeps the old value', async () => {
    const id = await h.createFile('userinfo-big.docx', 'x')
    await h.wopi(id, { override: 'PUT_USER_INFO', body: 'kept' })
    const reply = await h.wopi(id, { override: 'PUT_USER_INFO', body: 'x'.repeat(1025) })
    assert.equal(reply.status, 400)
    assert.equal((await h.wopi(id, { method: 'GET' })).json.UserInfo, 'kept')
    assert.equal((await h.wopi(id, { override: 'PUT_USER_INFO', body: 'y'.repeat(1024) })).status, 200)
  })
})
