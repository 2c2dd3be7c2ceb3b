import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { expectTitles, submitSignIn, unexpectedErrors } from '../support/web-ui.js'

describe('web interface: a same-name upload asks (new version, or keep both)', () => {
  let server: TestServer
  let b: TestBrowser
  let token: string

  before(async () => {
    server = await startTestServer()
    token = await signIn(server.url)
    b = await launchBrowser()
    b.page.setDefaultTimeout(30_000)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  async function pick(name: string, text: string) {
    const chooser = b.page.waitForEvent('filechooser')
    await b.page.getByRole('button', { name: 'Upload files' }).click()
    await (await chooser).setFiles([{ name, mimeType: 'text/plain', buffer: Buffer.from(text) }])
  }

  async function fileNamed(title: string) {
    const listing = await call(server.url, 'GET', '/api/2.0/files/@my', { token })
    return listing.json.response.files.find((f: { title: string }) => f.title === title)
  }

  test('"Upload as new version" adds a version; "Keep both" makes "name (2).ext"', async () => {
    const { page } = b
    await page.goto(`${server.url}/`)
    await submitSignIn(page, 'admin', server.adminPassword)
    await pick('minutes.txt', 'first')
    await expectTitles(page, ['minutes.txt'])

    await pick('minutes.txt', 'second')
    const dialog = page.getByRole('dialog', { name: 'A file with this name is here already' })
    await dialog.waitFor()
    await b.screenshot('same-name-question')
    await dialog.getByRole('button', { name: 'Upload as new version' }).click()
    await page.locator('.uploads li[data-state="done"]').nth(1).waitFor()
    const versioned = await fileNamed('minutes.txt')
    assert.equal(versioned.version, 2)
    const download = await call(server.url, 'GET', `/api/2.0/files/file/${versioned.id}/download`, { token })
    assert.equal(download.text, 'second')

    await pick('minutes.txt', 'third')
    await page.getByRole('dialog').getByRole('button', { name: 'Keep both' }).click()
    await expectTitles(page, ['minutes.txt', 'minutes (2).txt'])
    assert.equal((await fileNamed('minutes.txt')).version, 2)
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })
})
