import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { libreOfficeMissing, textOf } from '../contract/converter.contract.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { docxWithText } from '../support/office-documents.js'
import { startDiscoveryServer } from '../support/onlyoffice-wopi-client.js'
import { call, signIn } from '../support/portal-client.js'

/** A 1x1 PNG. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

async function upload(url: string, token: string, name: string, bytes: Uint8Array): Promise<string> {
  const form = new FormData()
  form.append('file', new Blob([Buffer.from(bytes)]), name)
  const response = await fetch(`${url}/api/2.0/files/@my/upload`, {
    method: 'POST',
    headers: { Authorization: token },
    body: form,
  })
  const json = await response.json()
  assert.equal(response.status, 201, JSON.stringify(json))
  return String(json.response.id)
}

const previewPath = (id: string) => `/api/2.0/files/file/${id}/preview`

describe('previews (GET files/file/{id}/preview)', { skip: libreOfficeMissing() }, () => {
  let server: TestServer
  let token: string
  let otherToken: string

  before(async () => {
    server = await startTestServer({ FOLIO_CONVERTER: 'libreoffice', FOLIO_CONVERTER_WORKERS: '1' })
    token = await signIn(server.url)
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    await createUser(server.ctx, { userName: 'bob', password: 'bob-password-1' })
    otherToken = await signIn(server.url, 'bob', 'bob-password-1')
  })
  after(() => server.dispose())

  const get = (id: string, auth = token) =>
    fetch(`${server.url}${previewPath(id)}`, { headers: { Authorization: auth } })

  test('a docx previews as its PDF rendition, inline, framable by Folio only and not sandboxed', async () => {
    const id = await upload(server.url, token, 'Minutes.docx', docxWithText(['The board approved the budget']))
    const response = await get(id)
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'application/pdf')
    assert.match(response.headers.get('content-disposition') ?? '', /^inline; filename="?Minutes\.pdf"?/)
    const csp = response.headers.get('content-security-policy') ?? ''
    assert.match(csp, /frame-ancestors 'self'/)
    assert.doesNotMatch(csp, /sandbox/)
    assert.equal(response.headers.get('x-frame-options'), null)
    assert.match(await textOf('pdf', Buffer.from(await response.arrayBuffer())), /The board approved the budget/)
  })

  test('an image is itself and text is text/plain, inline and sandboxed', async () => {
    const image = await upload(server.url, token, 'Logo.png', TINY_PNG)
    const shown = await get(image)
    assert.equal(shown.status, 200)
    assert.equal(shown.headers.get('content-type'), 'image/png')
    assert.match(shown.headers.get('content-disposition') ?? '', /^inline/)
    assert.match(shown.headers.get('content-security-policy') ?? '', /sandbox/)
    assert.deepEqual(Buffer.from(await shown.arrayBuffer()), TINY_PNG)

    for (const name of ['notes.md', 'table.csv', 'page.txt']) {
      const id = await upload(server.url, token, name, Buffer.from('<script>alert(1)</script> plain'))
      const text = await get(id)
      assert.equal(text.status, 200, name)
      assert.equal(text.headers.get('content-type'), 'text/plain; charset=utf-8', name)
      assert.match(text.headers.get('content-security-policy') ?? '', /sandbox/)
      assert.equal(await text.text(), '<script>alert(1)</script> plain')
    }
  })

  test('no preview for an SVG or an archive: 415 with a message', async () => {
    for (const name of ['drawing.svg', 'bundle.zip']) {
      const id = await upload(server.url, token, name, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))
      const reply = await call(server.url, 'GET', previewPath(id), { token })
      assert.equal(reply.status, 415, name)
      assert.equal(reply.json.error.type, 'CONVERSION_UNSUPPORTED')
      assert.match(String(reply.json.error.message), /download it/)
    }
  })

  test('someone without read access gets 404, for a document and a text alike', async () => {
    const doc = await upload(server.url, token, 'Private.docx', docxWithText(['secret']))
    const text = await upload(server.url, token, 'Private.txt', Buffer.from('secret'))
    for (const id of [doc, text]) {
      const reply = await call(server.url, 'GET', previewPath(id), { token: otherToken })
      assert.equal(reply.status, 404)
      assert.doesNotMatch(reply.text, /secret/)
    }
    assert.equal((await call(server.url, 'GET', previewPath(doc))).status, 401)
  })
})

describe("a share link's page, preview and download (no editor configured)", { skip: libreOfficeMissing() }, () => {
  let server: TestServer
  let token: string

  before(async () => {
    server = await startTestServer({ FOLIO_CONVERTER: 'libreoffice', FOLIO_CONVERTER_WORKERS: '1' })
    token = await signIn(server.url)
  })
  after(() => server.dispose())

  const setLink = async (id: string, share: number) => {
    const reply = await call(server.url, 'PUT', `/api/2.0/files/${id}/sharedlink`, { token, body: { share } })
    assert.equal(reply.status, 200, reply.text)
    return share === 0 ? '' : (new URL(reply.json.response.sharedTo.shareLink).searchParams.get('doc') ?? '')
  }

  test('the page names the document, its owner, size and date, frames its preview and offers the download', async () => {
    const bytes = docxWithText(['Our offer stands until May'])
    const id = await upload(server.url, token, 'Offer & terms.docx', bytes)
    const key = await setLink(id, 2)
    const q = `doc=${encodeURIComponent(key)}`
    const page = await fetch(`${server.url}/s/${id}?${q}`, { headers: { Accept: 'text/html' } })
    assert.equal(page.status, 200)
    const html = await page.text()
    assert.match(html, /<h1>Offer &amp; terms\.docx<\/h1>/)
    assert.match(html, /Shared by <span class="owner">admin<\/span>/)
    assert.match(html, /<span class="size">[\d.]+ kB<\/span>/, "Intl's English unit, as the web UI writes it")
    assert.match(html, new RegExp(`<iframe class="frame" src="/s/${id}/preview\\?doc=`))
    assert.match(html, new RegExp(`href="/s/${id}/download\\?doc=`))
    assert.doesNotMatch(html, /Open in editor/, 'no editor is configured')
    assert.match(page.headers.get('content-security-policy') ?? '', /frame-src 'self'/)
    assert.equal(page.headers.get('cache-control'), 'no-store')

    const preview = await fetch(`${server.url}/s/${id}/preview?${q}`)
    assert.equal(preview.status, 200)
    assert.equal(preview.headers.get('content-type'), 'application/pdf')
    assert.equal(preview.headers.get('x-frame-options'), null)
    assert.match(await textOf('pdf', Buffer.from(await preview.arrayBuffer())), /Our offer stands until May/)
    const download = await fetch(`${server.url}/s/${id}/download?${q}`)
    assert.equal(download.status, 200)
    assert.match(download.headers.get('content-disposition') ?? '', /^attachment/)
    assert.deepEqual(Buffer.from(await download.arrayBuffer()), bytes)
  })

  test('a text file shows escaped in the page itself', async () => {
    const id = await upload(server.url, token, 'note.txt', Buffer.from('<script>alert(1)</script>'))
    const key = await setLink(id, 2)
    const html = await (await fetch(`${server.url}/s/${id}?doc=${encodeURIComponent(key)}`)).text()
    assert.match(html, /<pre aria-label="Contents of note\.txt">&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/pre>/)
  })

  test("an unknown key, another file's key or a link turned off: a 404 page for the page, preview and download", async () => {
    const id = await upload(server.url, token, 'Gone.txt', Buffer.from('gone'))
    const other = await upload(server.url, token, 'Other.txt', Buffer.from('other'))
    const key = await setLink(id, 2)
    const otherKey = await setLink(other, 2)
    await setLink(id, 0)
    for (const [fileId, k] of [
      [id, key],
      [id, otherKey],
      [id, 'made-up'],
      [id, ''],
    ] as const) {
      for (const path of ['', '/preview', '/download']) {
        const reply = await fetch(`${server.url}/s/${fileId}${path}?doc=${encodeURIComponent(k)}`, {
          headers: { Accept: 'text/html' },
        })
        assert.equal(reply.status, 404, `${path} ${k}`)
        const text = await reply.text()
        assert.match(text, /This document is not here/)
        assert.doesNotMatch(text, /gone/)
      }
    }
  })
})

describe('previews without a converter (FOLIO_CONVERTER=off)', () => {
  let server: TestServer
  let token: string

  before(async () => {
    server = await startTestServer({ FOLIO_CONVERTER: 'off' })
    token = await signIn(server.url)
  })
  after(() => server.dispose())

  test('images and text still preview; an office document is 501 saying how to turn conversion on', async () => {
    const text = await upload(server.url, token, 'readme.txt', Buffer.from('hello'))
    const shown = await fetch(`${server.url}${previewPath(text)}`, { headers: { Authorization: token } })
    assert.equal(shown.status, 200)
    assert.equal(await shown.text(), 'hello')
    const image = await upload(server.url, token, 'dot.png', TINY_PNG)
    assert.equal((await fetch(`${server.url}${previewPath(image)}`, { headers: { Authorization: token } })).status, 200)

    const doc = await upload(server.url, token, 'Report.docx', docxWithText(['x']))
    const reply = await call(server.url, 'GET', previewPath(doc), { token })
    assert.equal(reply.status, 501, reply.text)
    assert.equal(reply.json.error.type, 'CONVERTER_OFF')
    assert.match(String(reply.json.error.message), /FOLIO_CONVERTER|LibreOffice|soffice/i)
  })
})

describe("a share link's page with a WOPI client only", () => {
  let server: TestServer
  let discovery: Awaited<ReturnType<typeof startDiscoveryServer>>
  let token: string

  before(async () => {
    discovery = await startDiscoveryServer()
    server = await startTestServer({ FOLIO_WOPI_DISCOVERY_URL: discovery.url, FOLIO_CONVERTER: 'off' })
    token = await signIn(server.url)
  })
  after(async () => {
    await server?.dispose()
    await discovery?.close()
  })

  test('Open in editor asks the name, then the host page posts a guest token to the client (view for a Read link)', async () => {
    const id = await upload(server.url, token, 'Plan.docx', docxWithText(['x']))
    const made = await call(server.url, 'PUT', `/api/2.0/files/${id}/sharedlink`, { token, body: { share: 2 } })
    const key = new URL(made.json.response.sharedTo.shareLink).searchParams.get('doc') ?? ''
    const page = await (await fetch(`${server.url}/s/${id}?doc=${encodeURIComponent(key)}`)).text()
    assert.match(page, new RegExp(`action="/s/${id}/wopi"`))
    assert.match(page, /A preview of this document needs LibreOffice/)
    const host = await fetch(`${server.url}/s/${id}/wopi?doc=${encodeURIComponent(key)}&name=Gina`)
    assert.equal(host.status, 200)
    const html = await host.text()
    assert.match(html, /name="access_token"/)
    assert.match(html, new RegExp(new URL(discovery.url).host))
    const accessToken = /name="access_token" value="([^"]+)"/.exec(html)?.[1] ?? ''
    const info = await (
      await fetch(`${server.url}/wopi/files/${id}?access_token=${encodeURIComponent(accessToken)}`)
    ).json()
    assert.equal(info.UserFriendlyName, 'Gina')
    assert.equal(info.UserCanWrite, false)
    assert.equal((await fetch(`${server.url}/s/${id}/wopi?doc=wrong&name=Gina`)).status, 404)
  })
})
