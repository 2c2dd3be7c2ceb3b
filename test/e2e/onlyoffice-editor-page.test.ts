import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { EditorConfig } from '../support/docs-server-simulator.js'
import { call } from '../support/portal-client.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { DOCS_PUBLIC_URL, startHarness, type Harness } from '../support/onlyoffice-harness.js'

/** The JSON the page hands its script (config included). */
function pageData(html: string): { fileId: string; config: EditorConfig } {
  const match = /<script type="application\/json" id="folio-editor-data">([^<]*)<\/script>/.exec(html)
  assert.ok(match?.[1], 'the page embeds its data')
  return JSON.parse(match[1])
}

describe('ONLYOFFICE editor page', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  test('loads api.js from FOLIO_DOCS_URL and opens the editor with a working config', async () => {
    const file = await h.upload("Tom & Jerry's page.docx", 'page bytes')
    const reply = await call(h.folio.url, 'GET', `/editor/${file.id}`, {
      headers: { Cookie: `folio_session=${h.token}` },
    })
    assert.equal(reply.status, 200)
    assert.match(reply.headers.get('content-type') ?? '', /^text\/html/)
    assert.equal(reply.headers.get('cache-control'), 'no-store')
    const html = reply.text
    assert.ok(html.includes(`<script src="${DOCS_PUBLIC_URL}/web-apps/apps/api/documents/api.js"></script>`))
    assert.ok(html.includes('<title>Tom &amp; Jerry&#39;s page.docx - Folio</title>'))
    for (const event of [
      'onRequestSaveAs',
      'onRequestRename',
      'onRequestHistory',
      'onRequestHistoryData',
      'onRequestRestore',
    ]) {
      assert.ok(html.includes(event), event)
    }
    const csp = reply.headers.get('content-security-policy') ?? ''
    assert.match(csp, new RegExp(`script-src 'nonce-[^']+' ${DOCS_PUBLIC_URL.replace(/\./g, '\\.')}`))
    assert.match(csp, new RegExp(`frame-src ${DOCS_PUBLIC_URL.replace(/\./g, '\\.')}`))

    const data = pageData(html)
    assert.equal(data.fileId, file.id)
    assert.equal(data.config.editorConfig?.mode, 'edit')
    assert.equal(data.config.document?.title, "Tom & Jerry's page.docx")
    // The embedded config is one Docs accepts: the simulator opens it.
    const session = await h.sim.openEditor(data.config)
    assert.equal(Buffer.from(session.downloaded).toString(), 'page bytes')
    await session.disconnect()
  })

  test('?mode=view gives a viewer config', async () => {
    const file = await h.upload('Viewer.docx', 'view')
    const reply = await call(h.folio.url, 'GET', `/editor/${file.id}?mode=view`, {
      headers: { Cookie: `folio_session=${h.token}` },
    })
    const data = pageData(reply.text)
    assert.equal(data.config.editorConfig?.mode, 'view')
    assert.equal(data.config.editorConfig?.callbackUrl, undefined)
  })

  test('not signed in: redirect to the sign-in page with next=/editor/<id>', async () => {
    const file = await h.upload('Redirect.docx', 'r')
    const attempts: Record<string, string>[] = [{}, { Cookie: 'folio_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }]
    for (const headers of attempts) {
      const reply = await call(h.folio.url, 'GET', `/editor/${file.id}`, { headers })
      assert.equal(reply.status, 302)
      assert.equal(reply.headers.get('location'), `/?next=/editor/${file.id}`)
    }
  })

  test("another user's file or a missing one: 404 page", async () => {
    const reply = await call(h.folio.url, 'GET', '/editor/AAAAAAAAAAAAAAAAAAAAAA', {
      headers: { Cookie: `folio_session=${h.token}` },
    })
    assert.equal(reply.status, 404)
    assert.match(reply.headers.get('content-type') ?? '', /^text\/html/)
    assert.match(reply.text, /This document is not here/)
    assert.match(reply.text, /<a href="\/">Back to your documents<\/a>/)
  })

  test('an id no file can have (a NUL in it, refused by PostgreSQL) is a 404 page too', async () => {
    for (const id of ['%00', 'a%00b', '%F0%9D%94%B5']) {
      const reply = await call(h.folio.url, 'GET', `/editor/${id}`, {
        headers: { Cookie: `folio_session=${h.token}` },
      })
      assert.equal(reply.status, 404, id)
      assert.match(reply.text, /This document is not here/)
    }
    const link = await call(h.folio.url, 'GET', '/s/%00?doc=abc&name=Guest')
    assert.equal(link.status, 404, 'a shared-link page')
  })

  test("the page's API calls work with the session cookie and the CSRF header", async () => {
    const file = await h.upload('Cookie.docx', 'c')
    const cookie = { Cookie: `folio_session=${h.token}`, 'X-Folio-Request': '1' }
    const history = await call(h.folio.url, 'GET', `/api/2.0/files/file/${file.id}/edit-history`, { headers: cookie })
    assert.equal(history.status, 200)
    const renamed = await call(h.folio.url, 'PUT', `/api/2.0/files/file/${file.id}`, {
      headers: cookie,
      body: { title: 'Cookie renamed.docx' },
    })
    assert.equal(renamed.status, 200)
  })
})

describe('Folio without FOLIO_DOCS_URL', () => {
  let server: TestServer

  before(async () => {
    server = await startTestServer()
  })
  after(() => server.dispose())

  test('its editor and WOPI host pages answer an id no file can have (a NUL in it) with a 404 page', async () => {
    const { signIn } = await import('../support/portal-client.js')
    const token = await signIn(server.url)
    for (const path of ['/editor/%00', '/editor/a%00b', '/wopi-host/%00']) {
      const reply = await call(server.url, 'GET', path, { headers: { Cookie: `folio_session=${token}` } })
      assert.equal(reply.status, 404, path)
    }
  })

  test('mounts no ONLYOFFICE routes; openedit answers the config an app edits on the device with', async () => {
    const { signIn } = await import('../support/portal-client.js')
    const token = await signIn(server.url)
    const upload = await call(server.url, 'POST', '/api/2.0/files/@my/upload?title=a.docx', {
      token,
      headers: { 'Content-Type': 'application/octet-stream' },
      raw: 'x',
    })
    const id = upload.json.response.id
    // No editor address or callback: the key, a presigned link to the bytes, the permissions.
    const open = await call(server.url, 'GET', `/api/2.0/files/file/${id}/openedit`, { token })
    assert.equal(open.status, 200)
    const config = open.json.response
    assert.match(config.document.key, /^[0-9A-Za-z_.=-]{1,128}$/)
    assert.equal(config.document.permissions.edit, true)
    assert.equal(config.editorConfig.callbackUrl, undefined)
    assert.equal(config.token, undefined)
    const bytes = await fetch(config.document.url)
    assert.equal(await bytes.text(), 'x')
    const callback = await call(server.url, 'POST', `/onlyoffice/callback/${id}`, { body: { key: 'k', status: 1 } })
    assert.equal(callback.status, 404)
    // Restore and the history list work without an editor.
    assert.equal((await call(server.url, 'GET', `/api/2.0/files/file/${id}/edit-history`, { token })).status, 200)
  })
})
