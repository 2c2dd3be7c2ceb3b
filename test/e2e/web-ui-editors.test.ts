import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { startDiscoveryServer } from '../support/onlyoffice-wopi-client.js'
import { call, signIn } from '../support/portal-client.js'
import { fileRow, submitSignIn, unexpectedErrors } from '../support/web-ui.js'

describe('Open in the editor without any editor configured', () => {
  let server: TestServer
  let b: TestBrowser

  before(async () => {
    server = await startTestServer()
    const token = await signIn(server.url)
    await call(server.url, 'POST', '/api/2.0/files/@my/file', { token, body: { title: 'Lonely.docx' } })
    b = await launchBrowser()
    b.page.setDefaultTimeout(30_000)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('the button is greyed out for an admin with a short reason, and names no setting', async () => {
    const { page } = b
    await page.goto(`${server.url}/`)
    await submitSignIn(page, 'admin', server.adminPassword)
    const open = fileRow(page, 'Lonely.docx').getByRole('button', { name: /Open Lonely.docx in the editor/ })
    await open.waitFor()
    assert.equal(await open.isDisabled(), true)
    const reason = (await open.getAttribute('title')) ?? ''
    assert.match(reason, /No online editor is connected/)
    assert.doesNotMatch(`${reason} ${await page.locator('main').textContent()}`, /FOLIO_|environment variable/)
    await b.screenshot('no-editor-configured')
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })
})

describe('Open in the editor with a WOPI client (FOLIO_WOPI_DISCOVERY_URL)', () => {
  let server: TestServer
  let discovery: Awaited<ReturnType<typeof startDiscoveryServer>>
  let b: TestBrowser
  let fileId: string

  before(async () => {
    discovery = await startDiscoveryServer()
    server = await startTestServer({ FOLIO_WOPI_DISCOVERY_URL: discovery.url })
    const token = await signIn(server.url)
    const created = await call(server.url, 'POST', '/api/2.0/files/@my/file', {
      token,
      body: { title: 'Shared plan.docx' },
    })
    fileId = created.json.response.id
    b = await launchBrowser()
    b.page.setDefaultTimeout(30_000)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
    await discovery?.close()
  })

  test('the host page posts access_token and access_token_ttl as form fields into the editor frame', async () => {
    const { page, context } = b
    // Stand in for the WOPI client's editor page, recording what the host page sent it.
    const posts: Array<{ url: string; method: string; body: string }> = []
    await context.route(`${discovery.baseUrl}/hosting/wopi/**`, async (route) => {
      const request = route.request()
      posts.push({ url: request.url(), method: request.method(), body: request.postData() ?? '' })
      await route.fulfill({
        status: 200,
        contentType: 'text/html',
        body: '<!doctype html><title>Editor</title><p>editor</p>',
      })
    })

    await page.goto(`${server.url}/`)
    await submitSignIn(page, 'admin', server.adminPassword)
    const open = fileRow(page, 'Shared plan.docx').getByRole('link', { name: 'Open Shared plan.docx in the editor' })
    assert.equal(await open.getAttribute('href'), `/wopi-host/${fileId}?action=edit`)
    const popup = page.waitForEvent('popup')
    await open.click()
    const host = await popup
    await host.waitForLoadState('domcontentloaded')
    const frame = host.frameLocator('#office_frame')
    await frame.getByText('editor').waitFor()
    assert.equal(await host.title(), 'Shared plan.docx - Folio')

    assert.equal(posts.length, 1)
    const [post] = posts
    assert.equal(post?.method, 'POST')
    const target = new URL(post?.url ?? '')
    assert.equal(target.origin, discovery.baseUrl)
    assert.ok(![...target.searchParams.keys()].some((name) => name.startsWith('access_token')), 'no token in the URL')
    const wopiSrc = [...target.searchParams].find(([name]) => name.toLowerCase() === 'wopisrc')?.[1]
    assert.equal(wopiSrc, `${server.ctx.config.publicUrl}/wopi/files/${fileId}`)
    const form = new URLSearchParams(post?.body)
    const accessToken = form.get('access_token') ?? ''
    assert.ok(accessToken.length > 20)
    assert.ok(Number(form.get('access_token_ttl')) > Date.now())
    // The posted token works for this file's WOPI endpoint.
    const info = await call(server.url, 'GET', `/wopi/files/${fileId}?access_token=${encodeURIComponent(accessToken)}`)
    assert.equal(info.status, 200)
    assert.equal(info.json.BaseFileName, 'Shared plan.docx')
    await b.screenshot('wopi-host-page', host)
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })
})
