import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { newId } from '../../src/core/ids.js'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { submitSignIn, visibleTitles } from '../support/web-ui.js'

const FILES = 10_000

describe('the documents screen with 10,000 files', () => {
  let server: TestServer
  let b: TestBrowser

  before(async () => {
    server = await startTestServer()
    const admin = await server.ctx.store.users.findByUserName('admin')
    if (!admin) throw new Error('no admin')
    // Metadata only (the list never reads contents): fast enough to make 10,000.
    const now = Date.now()
    const myRoot = await server.ctx.store.folders.ensureRoot({
      id: newId(),
      ownerId: admin.id,
      parentId: null,
      title: 'My documents',
      rootType: 'my',
      createdAt: 0,
      createdBy: admin.id,
      updatedAt: 0,
      updatedBy: admin.id,
      revision: 1,
      trashedAt: null,
      originFolderId: null,
    })
    for (let i = 0; i < FILES; i++) {
      const id = newId()
      const at = now - i * 60_000
      const title = `File ${String(i).padStart(5, '0')}.docx`
      const blob = { blobKey: `scale-${i}`, size: 1000 + i, sha256: '0'.repeat(64) }
      await server.ctx.store.files.create(
        {
          id,
          ownerId: admin.id,
          folderId: myRoot.id,
          trashedAt: null,
          originFolderId: null,
          title,
          version: 1,
          ...blob,
          createdAt: at,
          createdBy: admin.id,
          updatedAt: at,
          updatedBy: admin.id,
          lock: null,
          keyVersion: 1,
          revision: 0,
        },
        { fileId: id, version: 1, ...blob, createdAt: at, createdBy: admin.id, source: 'upload', meta: {} },
      )
    }
    b = await launchBrowser()
    // Every step waits for the state it needs (a label, a first row); the timeout is only a
    // safety net, generous because a busy machine may take seconds to render 10,000 files.
    b.page.setDefaultTimeout(60_000)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('shows 100 rows a page, pages, sorts and filters on the server, and stays quick', async () => {
    const { page } = b
    await page.goto(`${server.url}/`)
    await submitSignIn(page, 'admin', server.adminPassword)
    await page.getByText('1–100 of 10,000').waitFor()
    assert.equal(await page.locator('table.files tbody tr').count(), 100, 'only one page is in the DOM')
    assert.deepEqual((await visibleTitles(page)).slice(0, 2), ['File 00000.docx', 'File 00001.docx'])

    await page.getByRole('button', { name: 'Next page' }).click()
    await page.getByText('101–200 of 10,000').waitFor()
    assert.equal((await visibleTitles(page))[0], 'File 00100.docx')
    await page.getByText('Page 2 of 100').waitFor()

    await page.getByRole('button', { name: 'Size', exact: true }).click()
    await page.getByText('1–100 of 10,000').waitFor()
    await page.waitForFunction(
      () => document.querySelector('table.files tbody .file-name')?.textContent === 'File 09999.docx',
    )

    await page.getByRole('searchbox', { name: 'Filter by name' }).fill('File 0424')
    await page.getByText('1–10 of 10').waitFor()
    assert.equal(await page.locator('table.files tbody tr').count(), 10)
    await b.screenshot('ten-thousand-files-filtered')
  })
})
