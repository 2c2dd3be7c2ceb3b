import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { gunzipSync, brotliDecompressSync } from 'node:zlib'
import { libreOfficeMissing } from '../contract/converter.contract.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { startDiscoveryServer } from '../support/onlyoffice-wopi-client.js'
import { call, signIn } from '../support/portal-client.js'

/** Signs in through the web UI's endpoint; returns the `name=value` cookie pair and the reply. */
async function uiSignIn(url: string, userName: string, password: string) {
  const response = await fetch(`${url}/ui/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Folio-Request': '1' },
    body: JSON.stringify({ userName, password }),
  })
  // The session cookie; the same session also goes in asc_auth_key (ONLYOFFICE's clients).
  const cookies = response.headers.getSetCookie()
  const setCookie = cookies.find((c) => c.startsWith('folio_session=')) ?? ''
  const portalCookie = cookies.find((c) => c.startsWith('asc_auth_key=')) ?? ''
  return { response, setCookie, portalCookie, cookie: setCookie.split(';')[0] ?? '', json: await response.json() }
}

describe('web UI: static front end and security headers', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.dispose())

  test('/ serves the built index.html with a strict CSP and no inline script', async () => {
    const response = await fetch(`${server.url}/`)
    assert.equal(response.status, 200)
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/)
    assert.equal(response.headers.get('cache-control'), 'no-cache')
    assert.equal(response.headers.get('x-frame-options'), 'DENY')
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff')
    const csp = response.headers.get('content-security-policy') ?? ''
    assert.match(csp, /default-src 'none'/)
    assert.match(csp, /script-src 'self'(;|$)/)
    assert.match(csp, /frame-ancestors 'none'/)
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/)
    const html = await response.text()
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    assert.ok(scripts.length > 0)
    for (const [, attributes, body] of scripts) {
      assert.match(attributes ?? '', /\ssrc="\/assets\//, 'every script is a file from /assets/')
      assert.equal(body?.trim(), '')
    }
    assert.doesNotMatch(html, /\s(style|on[a-z]+)=/i, 'no inline style or event attributes')
    assert.doesNotMatch(html, /https?:\/\//, 'nothing is loaded from another origin')
  })

  test('every asset index.html names is served, hashed and cached for a year', async () => {
    const html = await (await fetch(`${server.url}/`)).text()
    const paths = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] ?? '')
    assert.ok(paths.some((p) => p.endsWith('.js')) && paths.some((p) => p.endsWith('.css')))
    for (const path of paths) {
      assert.match(path, /-[A-Za-z0-9_-]{6,}\.[a-z]+$/, `${path} carries a content hash`)
      const response = await fetch(server.url + path)
      assert.equal(response.status, 200, path)
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable')
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff')
      const type = response.headers.get('content-type') ?? ''
      if (path.endsWith('.js')) assert.match(type, /^text\/javascript/)
      if (path.endsWith('.css')) assert.match(type, /^text\/css/)
      if (path.endsWith('.svg')) assert.match(type, /^image\/svg\+xml/)
    }
  })

  test('assets are sent compressed when the browser accepts it, and revalidate with ETag', async () => {
    const html = await (await fetch(`${server.url}/`)).text()
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1] ?? ''
    const plain = await fetch(server.url + script, { headers: { 'Accept-Encoding': 'identity' } })
    const original = Buffer.from(await plain.arrayBuffer())
    // node's fetch decodes on its own; ask through raw headers to see the wire form.
    const { request } = await import('undici')
    for (const [encoding, decode] of [
      ['gzip', gunzipSync],
      ['br', brotliDecompressSync],
    ] as const) {
      const reply = await request(server.url + script, { headers: { 'accept-encoding': encoding } })
      assert.equal(reply.headers['content-encoding'], encoding)
      assert.equal(reply.headers.vary, 'Accept-Encoding')
      const body = Buffer.from(await reply.body.arrayBuffer())
      assert.ok(body.length < original.length)
      assert.deepEqual(decode(body), original)
    }
    const etag = plain.headers.get('etag') ?? ''
    assert.ok(etag)
    const again = await fetch(server.url + script, { headers: { 'If-None-Match': etag } })
    assert.equal(again.status, 304)
  })

  test('client routes answer index.html; other paths keep their own 404s', async () => {
    const index = await (await fetch(`${server.url}/`)).text()
    for (const path of [
      '/sign-in',
      '/sign-in?next=%2Fpeople',
      '/people',
      '/versions/abc123',
      '/folders/abc123',
      '/shared',
      '/trash',
    ]) {
      const response = await fetch(server.url + path)
      assert.equal(response.status, 200, path)
      assert.equal(await response.text(), index)
    }
    assert.equal((await fetch(`${server.url}/assets/missing-123456.js`)).status, 404)
    assert.equal((await fetch(`${server.url}/no-such-page`)).status, 404)
    const api = await call(server.url, 'GET', '/api/2.0/no-such-method')
    assert.equal(api.status, 404)
    assert.equal(api.json.status, 1, 'the portal still answers its own 404 envelope')
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
  })
})

describe('web UI: cookie session and CSRF guard', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ FOLIO_SESSION_TTL: '2h', FOLIO_LOGIN_MAX_FAILURES: '2' })
  })
  after(() => server.dispose())

  test('POST /ui/session sets an HttpOnly, SameSite=Strict cookie living as long as the session', async () => {
    const { response, setCookie, portalCookie, json } = await uiSignIn(server.url, 'admin', server.adminPassword)
    assert.equal(response.status, 201)
    // asc_auth_key carries the same session with the same flags.
    assert.equal(portalCookie.replace(/^asc_auth_key=/, ''), setCookie.replace(/^folio_session=/, ''))
    assert.equal(json.status, 0)
    assert.equal(json.response.userName, 'admin')
    assert.equal(json.response.isAdmin, true)
    assert.equal(json.response.token, undefined, 'the token is never readable by scripts')
    assert.match(setCookie, /^folio_session=[A-Za-z0-9_-]{40,}; /)
    const attributes = setCookie.split('; ').slice(1)
    assert.ok(attributes.includes('HttpOnly'))
    assert.ok(attributes.includes('SameSite=Strict'))
    assert.ok(attributes.includes('Path=/'))
    assert.ok(!attributes.includes('Secure'), 'plain http: a Secure cookie would never come back')
    const maxAge = Number(attributes.find((a) => a.startsWith('Max-Age='))?.slice(8))
    assert.ok(maxAge > 7190 && maxAge <= 7200, `Max-Age ${maxAge} follows FOLIO_SESSION_TTL`)
    assert.equal(response.headers.get('cache-control'), 'no-store')
  })

  test('the cookie authorises the portal API: reads freely, writes only with X-Folio-Request: 1', async () => {
    const { cookie } = await uiSignIn(server.url, 'admin', server.adminPassword)
    const me = await call(server.url, 'GET', '/api/2.0/people/@self', { headers: { Cookie: cookie } })
    assert.equal(me.status, 200)

    const forged = await call(server.url, 'POST', '/api/2.0/files/@my/file', {
      headers: { Cookie: cookie },
      body: { title: 'Forged.docx' },
    })
    assert.equal(forged.status, 403)
    assert.equal(forged.json.error.type, 'FORBIDDEN')
    assert.match(forged.json.error.message, /X-Folio-Request/)
    const wrongValue = await call(server.url, 'DELETE', '/api/2.0/files/file/whatever', {
      headers: { Cookie: cookie, 'X-Folio-Request': 'yes' },
    })
    assert.equal(wrongValue.status, 403)

    const token = await signIn(server.url)
    const list = await call(server.url, 'GET', '/api/2.0/files/@my', { token })
    assert.ok(!list.json.response.files.some((f: { title: string }) => f.title === 'Forged.docx'))

    const real = await call(server.url, 'POST', '/api/2.0/files/@my/file', {
      headers: { Cookie: cookie, 'X-Folio-Request': '1' },
      body: { title: 'Real.docx' },
    })
    assert.equal(real.status, 201)
    // API clients with the token in Authorization are not affected by the guard.
    const byHeader = await call(server.url, 'POST', '/api/2.0/files/@my/file', { token, body: { title: 'Api.docx' } })
    assert.equal(byHeader.status, 201)
  })

  test('POST /ui/session needs X-Folio-Request and JSON (no cross-site form can sign anyone in)', async () => {
    const noHeader = await fetch(`${server.url}/ui/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ userName: 'admin', password: server.adminPassword }),
    })
    assert.equal(noHeader.status, 403)
    assert.equal(noHeader.headers.get('set-cookie'), null)
    const form = await fetch(`${server.url}/ui/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ userName: 'admin', password: server.adminPassword }).toString(),
    })
    assert.ok(form.status === 403 || form.status === 415, `form post answered ${form.status}`)
    assert.equal(form.headers.get('set-cookie'), null)
  })

  test('a wrong password is 401 in the envelope and sets no cookie; repeated failures are 429', async () => {
    const wrong = await uiSignIn(server.url, 'ursula', 'not-her-password')
    assert.equal(wrong.response.status, 401)
    assert.equal(wrong.json.status, 1)
    assert.equal(wrong.json.error.type, 'INVALID_CREDENTIALS')
    assert.equal(wrong.setCookie, '')
    await uiSignIn(server.url, 'ursula', 'not-her-password')
    const throttled = await uiSignIn(server.url, 'ursula', 'not-her-password')
    assert.equal(throttled.response.status, 429)
    assert.equal(throttled.json.error.type, 'TOO_MANY_ATTEMPTS')
    assert.match(throttled.response.headers.get('retry-after') ?? '', /^\d+$/)
  })

  test('DELETE /ui/session revokes the session and clears the cookie; it needs the CSRF header', async () => {
    const { cookie } = await uiSignIn(server.url, 'admin', server.adminPassword)
    const refused = await fetch(`${server.url}/ui/session`, { method: 'DELETE', headers: { Cookie: cookie } })
    assert.equal(refused.status, 403)
    assert.equal((await call(server.url, 'GET', '/api/2.0/people/@self', { headers: { Cookie: cookie } })).status, 200)

    const response = await fetch(`${server.url}/ui/session`, {
      method: 'DELETE',
      headers: { Cookie: cookie, 'X-Folio-Request': '1' },
    })
    assert.equal(response.status, 200)
    assert.match(response.headers.get('set-cookie') ?? '', /^folio_session=; .*Max-Age=0/)
    const after = await call(server.url, 'GET', '/api/2.0/people/@self', { headers: { Cookie: cookie } })
    assert.equal(after.status, 401, 'the old cookie value no longer works anywhere')
  })

  test('GET /api/2.0/settings/capabilities needs a session and says which editors exist', async () => {
    assert.equal((await call(server.url, 'GET', '/api/2.0/settings/capabilities')).status, 401)
    const token = await signIn(server.url)
    const reply = await call(server.url, 'GET', '/api/2.0/settings/capabilities', { token })
    assert.equal(reply.status, 200)
    const { previews, conversions, ...rest } = reply.json.response
    assert.deepEqual(rest, {
      onlyofficeEditor: false,
      wopiEditor: false,
      maxFileSize: 1024 ** 3,
      // FOLIO_CONVERTER is auto: LibreOffice runs where soffice is installed.
      converter: libreOfficeMissing() === false,
    })
    assert.deepEqual(
      [previews.docx, previews.png, previews.md, previews.pdf, previews.svg],
      ['converted', 'image', 'text', 'pdf', undefined],
    )
    assert.ok(conversions.docx.includes('pdf'))
  })
})

describe('web UI: Secure cookie behind https', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ FOLIO_PUBLIC_URL: 'https://folio.example.org' })
  })
  after(() => server.dispose())

  test('the session cookie is Secure when FOLIO_PUBLIC_URL is https', async () => {
    const { setCookie } = await uiSignIn(server.url, 'admin', server.adminPassword)
    assert.ok(setCookie.split('; ').includes('Secure'))
  })
})

describe('web UI: WOPI host page', () => {
  let server: TestServer
  let discovery: Awaited<ReturnType<typeof startDiscoveryServer>>
  let cookie: string
  let fileId: string

  before(async () => {
    discovery = await startDiscoveryServer()
    server = await startTestServer({ FOLIO_WOPI_DISCOVERY_URL: discovery.url })
    cookie = (await uiSignIn(server.url, 'admin', server.adminPassword)).cookie
    const token = await signIn(server.url)
    const created = await call(server.url, 'POST', '/api/2.0/files/@my/file', {
      token,
      body: { title: 'Plan & notes.docx' },
    })
    fileId = created.json.response.id
  })
  after(async () => {
    await server.dispose()
    await discovery.close()
  })

  test('signed out: a redirect to sign-in that comes back to the page', async () => {
    const response = await fetch(`${server.url}/wopi-host/${fileId}?action=edit`, { redirect: 'manual' })
    assert.equal(response.status, 303)
    const location = response.headers.get('location') ?? ''
    const next = new URL(location, server.url).searchParams.get('next')
    assert.equal(next, `/wopi-host/${fileId}?action=edit`)
  })

  test('posts access_token and access_token_ttl as form fields to the discovery action URL', async () => {
    const response = await fetch(`${server.url}/wopi-host/${fileId}?action=edit`, { headers: { Cookie: cookie } })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('cache-control'), 'no-store')
    assert.equal(response.headers.get('x-frame-options'), 'DENY')
    const html = await response.text()
    const action = /<form id="office_form"[^>]* action="([^"]+)" method="post"/.exec(html)?.[1] ?? ''
    const actionUrl = new URL(action.replaceAll('&amp;', '&'))
    assert.equal(actionUrl.origin, discovery.baseUrl)
    assert.match(actionUrl.pathname, /\/hosting\/wopi\/word\/edit$/)
    const wopiSrc = [...actionUrl.searchParams].find(([name]) => name.toLowerCase() === 'wopisrc')?.[1]
    assert.equal(wopiSrc, `${server.ctx.config.publicUrl}/wopi/files/${fileId}`)
    assert.doesNotMatch(action, /access_token/, 'the token is never in the URL')
    const token = /<input name="access_token" value="([^"]+)"/.exec(html)?.[1] ?? ''
    const ttl = Number(/<input name="access_token_ttl" value="(\d+)"/.exec(html)?.[1])
    assert.ok(token.length > 20)
    assert.ok(ttl > Date.now() && ttl <= Date.now() + server.ctx.config.wopiTokenTtlMs + 5000)
    assert.match(html, /<iframe id="office_frame" name="office_frame"/)
    assert.match(html, /<script src="\/ui\/wopi-host\.js"><\/script>/)
    const csp = response.headers.get('content-security-policy') ?? ''
    assert.match(csp, new RegExp(`frame-src ${discovery.baseUrl}(;|$)`))
    assert.match(csp, new RegExp(`form-action ${discovery.baseUrl}(;|$)`))
    assert.match(csp, /script-src 'self'/)

    // The token opens this file over WOPI, and only this file.
    const info = await call(server.url, 'GET', `/wopi/files/${fileId}?access_token=${encodeURIComponent(token)}`)
    assert.equal(info.status, 200)
    assert.equal(info.json.BaseFileName, 'Plan & notes.docx')

    const script = await fetch(`${server.url}/ui/wopi-host.js`)
    assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/)
    assert.match(await script.text(), /office_form.*submit\(\)/)
  })

  test("another user's or a missing file: 404 page, no token", async () => {
    const response = await fetch(`${server.url}/wopi-host/not-a-file?action=edit`, { headers: { Cookie: cookie } })
    assert.equal(response.status, 404)
    const html = await response.text()
    assert.doesNotMatch(html, /access_token/)
    assert.match(html, /This document is not here/)
  })
})

describe('web UI: WOPI host page without a WOPI client', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.dispose())

  test("the host page and the file's webUrl say there is no editor, offer the download, and name no setting", async () => {
    const { cookie } = await uiSignIn(server.url, 'admin', server.adminPassword)
    const token = await signIn(server.url)
    const created = await call(server.url, 'POST', '/api/2.0/files/@my/file', { token, body: { title: 'A.docx' } })
    const id: string = created.json.response.id
    for (const url of [`${server.url}/wopi-host/${id}`, created.json.response.webUrl]) {
      const response = await fetch(url, { headers: { Cookie: cookie } })
      assert.equal(response.status, 404, url)
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/)
      const html = await response.text()
      assert.match(html, /No online editor here/)
      assert.match(html, new RegExp(`href="/api/2.0/files/file/${id}/download"`))
      assert.match(html, /href="\/">Back to your documents/)
      assert.doesNotMatch(html, /FOLIO_|environment/)
      // The download link works for the person who got the page.
      const download = await fetch(`${server.url}/api/2.0/files/file/${id}/download`, { headers: { Cookie: cookie } })
      assert.equal(download.status, 200)
    }
    // Not signed in: the webUrl goes to the sign-in page and back.
    const anonymous = await fetch(created.json.response.webUrl, { redirect: 'manual' })
    assert.equal(anonymous.status, 303)
    assert.equal(anonymous.headers.get('location'), `/sign-in?next=${encodeURIComponent(`/editor/${id}`)}`)
  })

  test("an unknown path or a deleted file's webUrl answers a page to a browser, JSON to a program", async () => {
    const { cookie } = await uiSignIn(server.url, 'admin', server.adminPassword)
    const token = await signIn(server.url)
    const created = await call(server.url, 'POST', '/api/2.0/files/@my/file', { token, body: { title: 'Gone.docx' } })
    await call(server.url, 'DELETE', `/api/2.0/files/file/${created.json.response.id}?immediately=true`, { token })
    const gone = await fetch(created.json.response.webUrl, { headers: { Cookie: cookie, Accept: 'text/html' } })
    assert.equal(gone.status, 404)
    assert.match(await gone.text(), /This document is not here/)
    const page = await fetch(`${server.url}/no/such/page?access_token=secret`, { headers: { Accept: 'text/html,*/*' } })
    assert.equal(page.status, 404)
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
    const html = await page.text()
    assert.match(html, /There is no page here/)
    assert.doesNotMatch(html, /secret/)
    const json = await call(server.url, 'GET', '/no/such/page?access_token=secret')
    assert.equal(json.status, 404)
    assert.equal(json.json.statusCode, 404)
    assert.doesNotMatch(json.text, /secret/)
  })
})
