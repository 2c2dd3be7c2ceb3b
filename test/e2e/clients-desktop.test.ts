import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startHarness, type Harness } from '../support/onlyoffice-harness.js'
import { fileRow, submitSignIn, unexpectedErrors } from '../support/web-ui.js'

/**
 * ONLYOFFICE Desktop Editors against Folio, as their sources (ONLYOFFICE/desktop-apps) do
 * it: the connect dialog probes `/api/2.0/capabilities`, then the app opens the portal's
 * start page in its embedded browser with `/?desktop=true` appended, counts the portal as
 * signed in when the page calls `AscDesktopEditor.execCommand("portal:login", ...)`, keeps
 * the `asc_auth_key` cookie, and opens every URL matching its editor pattern as an editor
 * tab.
 */

/** common/loginpage/providers/onlyoffice/config.json: "editorPage" */
const EDITOR_PAGE = /(\/products\/files\/doceditor.aspx)|(\/doceditor)/i

async function sessionCookies(base: string, userName: string, password: string) {
  const response = await fetch(`${base}/ui/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Folio-Request': '1' },
    body: JSON.stringify({ userName, password }),
  })
  assert.equal(response.status, 201)
  return response.headers.getSetCookie()
}

describe('ONLYOFFICE Desktop Editors', () => {
  let h: Harness
  let base: string

  before(async () => {
    h = await startHarness()
    base = h.folio.url
  })
  after(() => h?.close())

  test('connect: the capabilities probe, then the start page leads to the web UI', async () => {
    // common/loginpage/providers/onlyoffice/config.json: "check": {"url": "/api/2.0/capabilities"}
    const probe = await fetch(`${base}/api/2.0/capabilities`, { redirect: 'manual' })
    assert.ok(probe.status >= 200 && probe.status < 300)
    // config.json "startPage": "/Products/Files/"; win-linux/src/components/asctabwidget.cpp
    // appends "/?desktop=true"; common/loginpage/src/dlglogin.js uses "/products/files/?desktop=true".
    for (const path of ['/Products/Files/', '/Products/Files//?desktop=true', '/products/files/?desktop=true']) {
      const start = await fetch(`${base}${path}`, { redirect: 'manual' })
      assert.equal(start.status, 302, path)
      assert.equal(start.headers.get('location'), '/')
      const page = await fetch(new URL(start.headers.get('location') ?? '', base))
      assert.equal(page.status, 200)
      assert.match(await page.text(), /<div id="app">|<script/)
    }
  })

  test('sign-in sets asc_auth_key (HttpOnly, SameSite as the session), which the portal API accepts; sign-out clears and ends it', async () => {
    const cookies = await sessionCookies(base, 'admin', h.folio.adminPassword)
    const desktop = cookies.find((c) => c.startsWith('asc_auth_key=')) ?? ''
    const session = cookies.find((c) => c.startsWith('folio_session=')) ?? ''
    assert.ok(desktop, 'asc_auth_key is set')
    const flags = (cookie: string) =>
      cookie
        .split('; ')
        .slice(1)
        .filter((f) => !f.startsWith('Max-Age'))
        .sort()
    assert.deepEqual(flags(desktop), flags(session))
    assert.ok(flags(desktop).includes('HttpOnly'))
    const value = desktop.split(';')[0] ?? ''
    // common/loginpage/src/dlglogin.js: bookUser → setCookie(portal, "asc_auth_key", token)
    const self = await fetch(`${base}/api/2.0/people/@self`, { headers: { Cookie: value } })
    assert.equal(self.status, 200)
    // A write with the cookie alone still needs the web UI's header (no cross-site writes).
    const write = await fetch(`${base}/api/2.0/files/folder/@my`, {
      method: 'POST',
      headers: { Cookie: value, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'x' }),
    })
    assert.equal(write.status, 403)

    const out = await fetch(`${base}/ui/session`, {
      method: 'DELETE',
      headers: { Cookie: value, 'X-Folio-Request': '1' },
    })
    assert.equal(out.status, 200)
    const cleared = out.headers.getSetCookie()
    assert.ok(
      cleared.some((c) => c.startsWith('asc_auth_key=;') && c.includes('Max-Age=0')),
      cleared.join(' | '),
    )
    const after = await fetch(`${base}/api/2.0/people/@self`, { headers: { Cookie: value } })
    assert.equal(after.status, 401)
    const download = await fetch(`${base}/api/2.0/files/@my`, { headers: { Cookie: value } })
    assert.equal(download.status, 401)
  })

  test('documents open at a URL the Desktop takes for an editor tab', async () => {
    const file = await h.upload('Letter.docx', 'dear desktop')
    assert.match(file.webUrl, EDITOR_PAGE)
    const cookie = (await sessionCookies(base, 'admin', h.folio.adminPassword)).map((c) => c.split(';')[0]).join('; ')
    const editor = await fetch(file.webUrl, { headers: { Cookie: cookie } })
    assert.equal(editor.status, 200)
    assert.match(await editor.text(), /web-apps\/apps\/api\/documents\/api\.js/)
    // Workspace's own editor address (common/loginpage/addon/externalcloud.json "editorPage").
    const legacy = await fetch(`${base}/Products/Files/DocEditor.aspx?fileid=${file.id}`, { redirect: 'manual' })
    assert.equal(legacy.status, 302)
    assert.equal(legacy.headers.get('location'), `/doceditor/${file.id}`)
  })
})

describe('ONLYOFFICE Desktop Editors: the web UI in their embedded browser (a stub AscDesktopEditor)', () => {
  let h: Harness
  let b: TestBrowser

  before(async () => {
    h = await startHarness()
    await h.upload('Plan.docx', 'the plan')
    b = await launchBrowser()
    b.page.setDefaultTimeout(30_000)
    // What the Desktop gives its pages: window.AscDesktopEditor.execCommand(command, json).
    // (A string: the test's own compiled functions may call helpers the page does not have.)
    await b.page.addInitScript(`
      window.desktopCalls = []
      window.AscDesktopEditor = {
        execCommand: function (command, parameters) { window.desktopCalls.push([command, parameters]) },
      }
    `)
  })
  after(async () => {
    await b?.close()
    await h?.close()
  })

  const calls = () => b.page.evaluate(() => Reflect.get(window, 'desktopCalls') as Array<[string, string]>)

  test('portal:login after sign-in, editor links under /doceditor, portal:logout after sign-out', async () => {
    const { page } = b
    await page.goto(`${h.folio.url}/Products/Files/?desktop=true`)
    await page.waitForURL(/\/sign-in/)
    assert.deepEqual(await calls(), [])
    await submitSignIn(page, 'admin', h.folio.adminPassword)
    await fileRow(page, 'Plan.docx').waitFor()
    await page.waitForFunction(() => (Reflect.get(window, 'desktopCalls') as unknown[]).length > 0)
    const [login] = await calls()
    assert.equal(login?.[0], 'portal:login')
    const info = JSON.parse(login?.[1] ?? '{}')
    assert.equal(info.displayName, h.admin.displayName)
    assert.equal(info.email, h.admin.email)
    assert.equal(info.provider, 'onlyoffice')
    assert.equal(info.userId, h.admin.id)
    assert.equal(info.domain, new URL(h.folio.url).origin)
    const cookies = await b.context.cookies(h.folio.url)
    const desktop = cookies.find((c) => c.name === 'asc_auth_key')
    assert.ok(desktop?.httpOnly, 'the Desktop reads asc_auth_key; scripts cannot')
    assert.equal(desktop?.sameSite, 'Strict')
    const href = await fileRow(page, 'Plan.docx').getByRole('link', { name: 'Plan.docx' }).first().getAttribute('href')
    assert.match(href ?? '', EDITOR_PAGE)
    await b.screenshot('desktop-signed-in')

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/sign-in/)
    const all = await calls()
    assert.equal(all.at(-1)?.[0], 'portal:logout')
    assert.equal(JSON.parse(all.at(-1)?.[1] ?? '{}').domain, new URL(h.folio.url).origin)
    assert.equal(
      (await b.context.cookies(h.folio.url)).some((c) => c.name === 'asc_auth_key'),
      false,
    )
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })
})
