import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call } from '../support/portal-client.js'

/** GET /ui/session: the web page's probe answers "signed out" with 200, never an error status. */
describe('the web UI session probe', () => {
  let server: TestServer

  before(async () => {
    server = await startTestServer()
  })
  after(() => server?.dispose())

  const probe = (cookie?: string) =>
    call(server.url, 'GET', '/ui/session', {
      headers: { 'X-Folio-Request': '1', ...(cookie ? { Cookie: cookie } : {}) },
    })

  test('without a cookie, and with an ended or made-up one, it answers 200 signedIn: false', async () => {
    const none = await probe()
    assert.equal(none.status, 200)
    assert.deepEqual(none.json.response, { signedIn: false })
    assert.match(none.headers.get('cache-control') ?? '', /no-store/)
    const signedIn = await call(server.url, 'POST', '/ui/session', {
      headers: { 'X-Folio-Request': '1' },
      body: { userName: 'admin', password: server.adminPassword },
    })
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    await call(server.url, 'DELETE', '/ui/session', { headers: { 'X-Folio-Request': '1', Cookie: cookie } })
    for (const stale of [cookie, 'folio_session=not-a-token']) {
      const reply = await probe(stale)
      assert.equal(reply.status, 200, reply.text)
      assert.deepEqual(reply.json.response, { signedIn: false })
    }
  })

  test('signed in, it answers the profile and what the UI may offer', async () => {
    const signedIn = await call(server.url, 'POST', '/ui/session', {
      headers: { 'X-Folio-Request': '1' },
      body: { userName: 'admin', password: server.adminPassword },
    })
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    const reply = await probe(cookie)
    assert.equal(reply.status, 200)
    assert.equal(reply.json.response.signedIn, true)
    assert.equal(reply.json.response.profile.userName, 'admin')
    assert.equal(reply.json.response.capabilities.onlyofficeEditor, false)
  })
})
