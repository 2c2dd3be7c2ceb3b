import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { SignJWT } from 'jose'
import { call } from '../support/portal-client.js'
import { FakeClock } from '../support/folio-server.js'
import {
  JWT_SECRET,
  bytes,
  lastCallback,
  startHarness,
  startRecorder,
  type Harness,
  type Recorder,
} from '../support/onlyoffice-harness.js'

/** A status 2 body as Docs would send it, pointing at `url`. */
function saveBody(key: string, userId: string, url: string) {
  return {
    key,
    status: 2,
    url,
    users: [userId],
    actions: [{ type: 0, userid: userId }],
    lastsave: new Date().toISOString(),
    filetype: 'docx',
  }
}

// Callbacks Folio must refuse, and the links it hands out.
describe('ONLYOFFICE forged callbacks (JWT on)', () => {
  let h: Harness
  let recorder: Recorder

  before(async () => {
    h = await startHarness()
    recorder = await startRecorder()
  })
  after(async () => {
    await recorder.close()
    await h.close()
  })

  test('no token, a wrong secret, a missing URL token: 403, nothing changes', async () => {
    const file = await h.upload('Target.docx', 'target v1')
    const session = await h.openEditor(file.id)
    const callbackUrl = await h.callbackUrl(file.id)
    session.edit(bytes('target v2'))
    const body = { key: session.key, status: 1, users: ['intruder'] }

    const unsigned = await h.sim.sendCallback(callbackUrl, body, { sign: false })
    assert.equal(unsigned.httpStatus, 403)
    assert.equal(JSON.parse(unsigned.reply).error, 1)
    const wrong = await h.sim.sendCallback(callbackUrl, body, { sign: 'wrong-secret' })
    assert.equal(wrong.httpStatus, 403)
    const bare = callbackUrl.replace(/\?.*$/, '')
    assert.equal((await h.sim.sendCallback(bare, body)).httpStatus, 403)
    const tampered = callbackUrl.replace(/token=(.)/, (_m, c: string) => `token=${c === 'A' ? 'B' : 'A'}`)
    assert.equal((await h.sim.sendCallback(tampered, body)).httpStatus, 403)

    const record = await h.file(file.id)
    assert.deepEqual(
      record.editing.map((e) => e.id),
      [h.admin.id],
    )
    assert.equal(record.version, 1)
    await session.disconnect()
    assert.equal(lastCallback(h.sim, 2).ok, true)
    assert.equal(await h.contents(file.id), 'target v2')
  })

  test("another file's callbackUrl, and file A's URL token on file B: refused", async () => {
    const a = await h.upload('A.docx', 'a v1')
    const b = await h.upload('B.docx', 'b v1')
    const sessionB = await h.openEditor(b.id)
    sessionB.edit(bytes('b v2'))
    const urlA = await h.callbackUrl(a.id)

    // B's key sent to A's callbackUrl (the key is not A's).
    const crossKey = await h.sim.sendCallback(urlA, { key: sessionB.key, status: 1, users: ['x'] })
    assert.equal(crossKey.httpStatus, 403)
    // A's URL token on B's path, with B's key.
    const tokenA = new URL(urlA).searchParams.get('token') ?? ''
    const urlB = (await h.callbackUrl(b.id)).replace(/token=.*$/, `token=${tokenA}`)
    const crossToken = await h.sim.sendCallback(urlB, { key: sessionB.key, status: 1, users: ['x'] })
    assert.equal(crossToken.httpStatus, 403)

    assert.deepEqual((await h.file(a.id)).editing, [])
    assert.deepEqual(
      (await h.file(b.id)).editing.map((e) => e.id),
      [h.admin.id],
    )
    await sessionB.disconnect()
  })

  test('a url on another host is refused before anything is fetched', async () => {
    const file = await h.upload('Ssrf.docx', 'ssrf v1')
    const session = await h.openEditor(file.id)
    const callbackUrl = await h.callbackUrl(file.id)
    for (const url of [
      `${recorder.url}/cache/files/data/x/output.docx`,
      `${h.sim.url.replace('127.0.0.1', 'localhost')}/cache/files/x`,
      `http://docs.public.test@127.0.0.1:${new URL(recorder.url).port}/x`,
      'file:///etc/passwd',
    ]) {
      const sent = await h.sim.sendCallback(callbackUrl, saveBody(session.key, h.admin.id, url))
      assert.equal(sent.httpStatus, 403, url)
    }
    // A good url but a changesurl elsewhere: refused too, nothing fetched.
    const sneaky = {
      ...saveBody(session.key, h.admin.id, `${h.sim.url}/cache/files/anything`),
      changesurl: `${recorder.url}/changes.zip`,
    }
    assert.equal((await h.sim.sendCallback(callbackUrl, sneaky)).httpStatus, 403)

    assert.deepEqual(recorder.hits, [])
    const record = await h.file(file.id)
    assert.equal(record.version, 1)
    assert.equal(await h.contents(file.id), 'ssrf v1')
    assert.match(record.lastSaveError?.message ?? '', /not on the ONLYOFFICE Docs server/)
    await session.disconnect()
  })

  test('the plain body cannot smuggle a url past the signed token', async () => {
    const file = await h.upload('Smuggle.docx', 'smuggle v1')
    const session = await h.openEditor(file.id)
    const callbackUrl = await h.callbackUrl(file.id)
    const token = await new SignJWT({ key: session.key, status: 4 })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JWT_SECRET))
    const reply = await call(callbackUrl, 'POST', '', {
      body: { ...saveBody(session.key, h.admin.id, `${recorder.url}/evil.docx`), token },
    })
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.json, { error: 0 })
    assert.deepEqual(recorder.hits, [])
    assert.equal((await h.file(file.id)).version, 1)
    await session.disconnect()
  })

  test('a token signed with another algorithm or secret, expired or without exp, is refused', async () => {
    const file = await h.upload('Alg.docx', 'alg v1')
    const session = await h.openEditor(file.id)
    const callbackUrl = await h.callbackUrl(file.id)
    const claims = { key: session.key, status: 1, users: ['x'] }
    const key = new TextEncoder().encode(JWT_SECRET)
    const hs512 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS512' }).sign(key)
    const expired = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 3600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 600)
      .sign(key)
    const unsecured = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`
    // Docs signs with an expiry; a token without one would be good for ever.
    const endless = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().sign(key)
    const endlessHeader = await new SignJWT({ payload: claims }).setProtectedHeader({ alg: 'HS256' }).sign(key)
    assert.equal(
      (
        await call(callbackUrl, 'POST', '', {
          body: claims,
          headers: { Authorization: `Bearer ${endlessHeader}` },
        })
      ).status,
      403,
    )
    for (const token of [hs512, expired, unsecured, endless]) {
      const reply = await call(callbackUrl, 'POST', '', { body: { ...claims, token } })
      assert.equal(reply.status, 403)
    }
    assert.deepEqual(
      (await h.file(file.id)).editing.map((e) => e.id),
      [h.admin.id],
    )
    await session.disconnect()
  })
})

describe('ONLYOFFICE with JWT off', () => {
  let h: Harness

  before(async () => {
    h = await startHarness({ jwtSecret: null })
  })
  after(() => h.close())

  test('edits still save; the callbackUrl token alone guards each file', async () => {
    const a = await h.upload('Open A.docx', 'a v1')
    const b = await h.upload('Open B.docx', 'b v1')
    const config = await h.openConfig(a.id)
    assert.equal(config.token, undefined)
    const session = await h.sim.openEditor(config)
    session.edit(bytes('a v2'))
    await session.disconnect()
    assert.equal(lastCallback(h.sim, 2).ok, true)
    assert.equal(await h.contents(a.id), 'a v2')

    // A forged callback for B through A's URL, or B's path without a token: refused.
    const urlA = await h.callbackUrl(a.id)
    const keyB = (await h.openConfig(b.id)).document?.key ?? ''
    assert.equal((await h.sim.sendCallback(urlA, { key: keyB, status: 1, users: ['x'] })).httpStatus, 403)
    const pathB = (await h.callbackUrl(b.id)).replace(/\?.*$/, '')
    assert.equal((await h.sim.sendCallback(pathB, { key: keyB, status: 1, users: ['x'] })).httpStatus, 403)
    assert.deepEqual((await h.file(b.id)).editing, [])
  })
})

describe('ONLYOFFICE download links', () => {
  let h: Harness
  const clock = new FakeClock()

  before(async () => {
    h = await startHarness({ clock })
  })
  after(() => h.close())

  test("document.url needs its token, works once expired only with Docs' JWT naming it", async () => {
    const file = await h.upload('Link.docx', 'link bytes')
    const other = await h.upload('Other.docx', 'other bytes')
    const url = (await h.openConfig(file.id)).document?.url ?? ''
    assert.equal((await call(url, 'GET', '')).text, 'link bytes')
    // A token is bound to its file.
    const token = new URL(url).searchParams.get('token') ?? ''
    const onOther = `${h.folio.url}/onlyoffice/download/${other.id}?token=${token}`
    assert.equal((await call(onOther, 'GET', '')).status, 403)
    assert.equal((await call(url.replace(/\?.*$/, ''), 'GET', '')).status, 403)

    clock.advance(2 * 3_600_000)
    assert.equal((await call(url, 'GET', '')).status, 403)
    const sign = (payload: Record<string, unknown>, secret = JWT_SECRET) =>
      new SignJWT({ payload })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt(Math.floor(clock.now() / 1000))
        .setExpirationTime(Math.floor(clock.now() / 1000) + 300)
        .sign(new TextEncoder().encode(secret))
    const good = await call(url, 'GET', '', { headers: { Authorization: `Bearer ${await sign({ url })}` } })
    assert.equal(good.status, 200)
    assert.equal(good.text, 'link bytes')
    const forOther = await call(url, 'GET', '', {
      headers: { Authorization: `Bearer ${await sign({ url: onOther })}` },
    })
    assert.equal(forOther.status, 403)
    const badSecret = await call(url, 'GET', '', {
      headers: { Authorization: `Bearer ${await sign({ url }, 'not-the-secret')}` },
    })
    assert.equal(badSecret.status, 403)
  })
})
