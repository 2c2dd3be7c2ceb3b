import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { assertAllControlsNamed, expectScreen, fileRow, submitSignIn, unexpectedErrors } from '../support/web-ui.js'

/**
 * The search box of the documents screen: it searches names and content everywhere the
 * reader may look (not only the folder on screen), shows where each result lives with a
 * link to that folder, and leaves the folder's own "Filter by name" as it was.
 */
describe('Search in the web UI', () => {
  let server: TestServer
  let b: TestBrowser
  let page: Page
  let token: string
  let archive = ''
  let nested = ''

  const api = (method: string, path: string, body?: unknown) =>
    call(server.url, method, `/api/2.0${path}`, { token, ...(body === undefined ? {} : { body }) })
  const upload = async (folder: string, title: string, text: string) => {
    const reply = await call(server.url, 'POST', `/api/2.0/files/${folder}/upload?title=${encodeURIComponent(title)}`, {
      token,
      headers: { 'Content-Type': 'application/octet-stream' },
      raw: text,
    })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id as string
  }

  before(async () => {
    server = await startTestServer()
    token = await signIn(server.url)
    const my = (await api('GET', '/files/@my')).json.response.current.id
    archive = (await api('POST', `/files/folder/${my}`, { title: 'Archive' })).json.response.id
    nested = (await api('POST', `/files/folder/${archive}`, { title: 'Year 2019' })).json.response.id
    const id = await upload(nested, 'Minutes.txt', 'The committee agreed on the lighthouse budget.')
    await upload('@my', 'Top.txt', 'nothing to see')
    // Indexing runs in the background: wait until the API finds the words.
    for (let i = 0; ; i++) {
      const found = (await api('GET', '/files/@search/lighthouse')).json.response
      if (found.some((item: { id: string }) => item.id === id)) break
      assert.ok(i < 300, 'the document was never indexed')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    b = await launchBrowser()
    page = b.page
    page.setDefaultTimeout(30_000)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('finds a document two folders down by a word inside it, shows where it lives and goes there', async () => {
    await page.goto(`${server.url}/`)
    await submitSignIn(page, 'admin', server.adminPassword)
    await expectScreen(page, 'Documents')
    await fileRow(page, 'Top.txt').waitFor()
    await page.getByLabel('Search names and content everywhere').fill('lighth')
    const results = page.getByRole('region', { name: 'Search results' })
    const result = results.locator('.search-result').filter({ hasText: 'Minutes.txt' })
    await result.waitFor()
    assert.match((await result.locator('.snippet').textContent()) ?? '', /lighthouse budget/)
    await result.locator('.where').getByText('My documents / Archive / Year 2019').waitFor()
    // The folder on screen is unchanged: its own filter still filters only it.
    assert.equal(await page.getByLabel('Filter by name').inputValue(), '')
    await fileRow(page, 'Top.txt').waitFor()
    await assertAllControlsNamed(page, 'documents with search results')

    await result.locator('.where a').click()
    await expectScreen(page, 'Year 2019')
    await fileRow(page, 'Minutes.txt').waitFor()
    assert.ok(page.url().endsWith(`/folders/${nested}`), page.url())
  })

  test('finds folders by name and says when nothing matches', async () => {
    await page.getByLabel('Search names and content everywhere').fill('archive')
    const results = page.getByRole('region', { name: 'Search results' })
    await results.getByRole('link', { name: 'Archive', exact: true }).click()
    await expectScreen(page, 'Archive')
    await page.getByLabel('Search names and content everywhere').fill('zzzznothing')
    await page.getByRole('region', { name: 'Search results' }).getByText('Nothing found for “zzzznothing”.').waitFor()
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })
})
