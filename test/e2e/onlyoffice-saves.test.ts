import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { SignJWT } from 'jose'
import { unzipSync } from 'fflate'
import { call } from '../support/portal-client.js'
import { JWT_SECRET, bytes, lastCallback, startHarness, waitFor, type Harness } from '../support/onlyoffice-harness.js'

// Exit saves (status 2): content, key rotation, idempotency, the JWT header variants.
describe('ONLYOFFICE exit saves', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  test('edit and close: status 2 stores a new version by the author and rotates the key', async () => {
    const file = await h.upload('Report.docx', 'report v1')
    const config = await h.openConfig(file.id)
    const session = await h.sim.openEditor(config)
    session.edit(bytes('report v2, edited'))
    await session.disconnect()

    const saved = lastCallback(h.sim, 2)
    assert.equal(saved.ok, true, saved.reply)
    assert.equal(saved.reply, '{"error":0}')
    // The cache link used the public Docs address; Folio fetched it from the internal one.
    assert.match(String(saved.body.url), /^http:\/\/docs\.public\.test\/cache\/files\//)

    const record = await h.file(file.id)
    assert.equal(record.version, 2)
    assert.deepEqual(record.editing, [])
    assert.equal(record.lastSaveError, null)
    assert.equal(await h.contents(file.id), 'report v2, edited')

    const [latest] = await h.versions(file.id)
    assert.equal(latest?.source, 'exit-save')
    assert.equal(latest?.author.id, h.admin.id)
    assert.equal(latest?.meta.documentKey, config.document?.key)
    assert.equal(latest?.meta.lastsave, saved.body.lastsave)
    assert.deepEqual(latest?.meta.history, saved.body.history)
    assert.equal(typeof latest?.meta.changesBlobKey, 'string')

    const next = await h.openConfig(file.id)
    assert.notEqual(next.document?.key, config.document?.key)
    // The new key opens the saved bytes; the old one is spent at Docs.
    const reopened = await h.sim.openEditor(next)
    assert.equal(Buffer.from(reopened.downloaded).toString(), 'report v2, edited')
    await reopened.disconnect()
  })

  test('the changes zip is kept with the version', async () => {
    const file = await h.upload('Zipped.docx', 'z1')
    const session = await h.openEditor(file.id)
    session.edit(bytes('z2'))
    await session.disconnect()
    const data = await h.api('GET', `/files/file/${file.id}/edit-history/2/data`)
    assert.equal(data.status, 200)
    const zip = await fetch(data.json.response.changesUrl)
    assert.equal(zip.status, 200)
    const entries = unzipSync(new Uint8Array(await zip.arrayBuffer()))
    assert.ok(Object.keys(entries).some((name) => /^changes\d+\.json$/.test(name)))
  })

  test('the same status 2 delivered again makes no second version', async () => {
    const file = await h.upload('Twice.docx', 'twice v1')
    const session = await h.openEditor(file.id)
    session.edit(bytes('twice v2'))
    await session.disconnect()
    const first = lastCallback(h.sim, 2)
    assert.equal((await h.file(file.id)).version, 2)

    // A proxy repeats it: same body, re-signed.
    const repeat = await h.sim.sendCallback(first.url, first.body)
    assert.equal(repeat.httpStatus, 200)
    assert.equal(repeat.reply, '{"error":0}')
    // Docs retries with a fresh signed url (new md5/expires): still the same save.
    const fresh = String(first.body.url).replace(/md5=[^&]*/, 'md5=other')
    const retried = await h.sim.sendCallback(first.url, { ...first.body, url: fresh })
    assert.equal(retried.reply, '{"error":0}')
    // Both at once, as racing deliveries.
    const racing = await Promise.all([
      h.sim.sendCallback(first.url, first.body),
      h.sim.sendCallback(first.url, first.body),
    ])
    assert.deepEqual(
      racing.map((r) => r.reply),
      ['{"error":0}', '{"error":0}'],
    )

    assert.equal((await h.file(file.id)).version, 2)
    assert.equal((await h.versions(file.id)).length, 2)
    assert.equal(await h.contents(file.id), 'twice v2')
  })

  test('two racing first deliveries of one save make exactly one version', async () => {
    const file = await h.upload('Race.docx', 'race v1')
    const session = await h.openEditor(file.id)
    session.edit(bytes('race v2'))
    // Capture the body Docs would send, then deliver it twice at once before Folio saw it.
    session.setServeMode('http500')
    await session.disconnect()
    const failed = lastCallback(h.sim, 2)
    assert.equal((await h.file(file.id)).version, 1)
    session.setServeMode('ok')
    const replies = await Promise.all(Array.from({ length: 4 }, () => h.sim.sendCallback(failed.url, failed.body)))
    assert.deepEqual(
      replies.map((r) => r.httpStatus),
      [200, 200, 200, 200],
    )
    assert.equal((await h.file(file.id)).version, 2)
    assert.equal(await h.contents(file.id), 'race v2')
  })

  test('co-editors: the version is credited to the last author (users[0])', async () => {
    const file = await h.upload('Team.docx', 'team v1')
    const dora = await h.createUser('dora')
    // Only someone who may edit the file now has her saves stored.
    const shared = await h.api('PUT', `/files/file/${file.id}/share`, {
      share: [{ shareTo: dora.id, access: 1 }],
      notify: false,
    })
    assert.equal(shared.status, 200, shared.text)
    const mine = await h.openEditor(file.id)
    const hers = await h.sim.openEditor(await h.configFor(file.id, dora))
    mine.edit(bytes('team v2 by admin'))
    hers.edit(bytes('team v3 by dora'))
    await mine.disconnect()
    await hers.disconnect()
    const saved = lastCallback(h.sim, 2)
    assert.deepEqual(saved.body.users, [dora.id])
    const [latest] = await h.versions(file.id)
    assert.equal(latest?.author.id, dora.id)
    assert.equal(await h.contents(file.id), 'team v3 by dora')
  })
})

describe('ONLYOFFICE callbacks with the JWT in a custom header', () => {
  let h: Harness

  before(async () => {
    h = await startHarness({ jwtHeader: 'AuthorizationJwt' })
  })
  after(() => h.close())

  test('the whole edit cycle works with JWT_HEADER=AuthorizationJwt', async () => {
    const file = await h.upload('Header.docx', 'h1')
    const session = await h.openEditor(file.id)
    assert.ok(h.sim.downloads.at(-1)?.headers.AuthorizationJwt)
    session.edit(bytes('h2'))
    await session.disconnect()
    assert.equal(lastCallback(h.sim, 2).ok, true)
    assert.equal(await h.contents(file.id), 'h2')
  })

  test('a callback with the JWT only in the header is accepted; its payload is the truth', async () => {
    const file = await h.upload('Only header.docx', 'o1')
    const session = await h.openEditor(file.id)
    const callbackUrl = await h.callbackUrl(file.id)
    const claims = { key: session.key, status: 1, users: ['someone-else'] }
    const jwt = await new SignJWT({ payload: claims })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JWT_SECRET))
    // The plain body says status 4; the signed payload (status 1) wins.
    const body = { key: session.key, status: 4 }
    const sent = await call(callbackUrl, 'POST', '', {
      body,
      headers: { AuthorizationJwt: `Bearer ${jwt}` },
    })
    assert.equal(sent.status, 200)
    assert.deepEqual(sent.json, { error: 0 })
    assert.deepEqual(
      (await h.file(file.id)).editing.map((e) => e.id),
      ['someone-else'],
    )

    // The same token under the default header name is not looked at: refused.
    const wrongHeader = await call(callbackUrl, 'POST', '', {
      body,
      headers: { Authorization: `Bearer ${jwt}` },
    })
    assert.equal(wrongHeader.status, 403)
    assert.deepEqual(
      (await h.file(file.id)).editing.map((e) => e.id),
      ['someone-else'],
    )
    await session.disconnect()
  })

  test('the body token wins over the header token and the plain fields', async () => {
    const file = await h.upload('Body wins.docx', 'b1')
    const session = await h.openEditor(file.id)
    const callbackUrl = await h.callbackUrl(file.id)
    const key = new TextEncoder().encode(JWT_SECRET)
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(key)
    const token = await sign({ key: session.key, status: 1, users: ['from-body-token'] })
    const header = await sign({ payload: { key: session.key, status: 1, users: ['from-header'] } })
    const sent = await call(callbackUrl, 'POST', '', {
      body: { key: session.key, status: 1, users: ['from-plain-body'], token },
      headers: { AuthorizationJwt: `Bearer ${header}` },
    })
    assert.equal(sent.status, 200)
    await waitFor(async () => ((await h.file(file.id)).editing[0]?.id === 'from-body-token' ? true : undefined))
    await session.disconnect()
  })
})
