import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page, Response } from 'playwright-core'
import { libreOfficeMissing, textOf } from '../contract/converter.contract.js'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { docxWithText } from '../support/office-documents.js'
import { signIn } from '../support/portal-client.js'
import { fileRow, overflowsSideways, submitSignIn, unexpectedErrors } from '../support/web-ui.js'
import { TINY_PNG } from './preview.test.js'

const PHONE = { width: 390, height: 844 }
const HOSTILE_TEXT = 'line one\n<img src=x onerror="document.title=\'pwned\'"> & more'

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

const isPreviewOf = (id: string) => (response: Response) =>
  new URL(response.url()).pathname === `/api/2.0/files/file/${id}/preview`

async function signInThroughPage(page: Page, server: TestServer): Promise<void> {
  await page.goto(`${server.url}/sign-in`)
  await submitSignIn(page, 'admin', server.adminPassword)
  await page
    .getByRole('heading', { name: /Documents/ })
    .first()
    .waitFor()
}

describe('web UI: the preview page (LibreOffice converts)', { skip: libreOfficeMissing() }, () => {
  let server: TestServer
  let b: TestBrowser
  let docId: string
  let imageId: string

  before(async () => {
    server = await startTestServer({ FOLIO_CONVERTER: 'libreoffice', FOLIO_CONVERTER_WORKERS: '1' })
    const token = await signIn(server.url)
    docId = await upload(server.url, token, 'Budget memo.docx', docxWithText(['Spending stays within the plan']))
    imageId = await upload(server.url, token, 'Logo.png', TINY_PNG)
    await upload(server.url, token, 'notes.txt', Buffer.from(HOSTILE_TEXT))
    await upload(server.url, token, 'Broken.docx', Buffer.from('not a zip at all'))
    await upload(server.url, token, 'bundle.zip', Buffer.from('PK'))
    b = await launchBrowser()
    b.page.setDefaultTimeout(60_000)
    await signInThroughPage(b.page, server)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('clicking a docx opens its preview: the PDF rendition loads in a frame, with Download as and Versions', async () => {
    const { page } = b
    const pdf = page.waitForResponse(isPreviewOf(docId))
    await fileRow(page, 'Budget memo.docx').getByRole('link', { name: 'Budget memo.docx', exact: true }).click()
    await page.getByRole('heading', { name: 'Budget memo.docx' }).waitFor()
    assert.equal(new URL(page.url()).pathname, `/files/${docId}/preview`)
    const frame = page.locator('iframe.preview-frame')
    assert.equal(await frame.getAttribute('title'), 'Preview of Budget memo.docx')
    const response = await pdf
    assert.equal(response.status(), 200)
    assert.equal(response.headers()['content-type'], 'application/pdf')
    assert.match(response.headers()['content-disposition'] ?? '', /^inline/)
    // The frame's body is Chromium's viewer; the same address fetched with the page's cookie is the PDF.
    const again = await page.context().request.get(response.url())
    assert.match(await textOf('pdf', await again.body()), /Spending stays within the plan/)
    // The frame was let through by the page's policy (no CSP violation in the console).
    assert.deepEqual(unexpectedErrors(b.errors), [])

    const downloadAs = page.getByRole('link', { name: 'Download as .pdf' })
    assert.match((await downloadAs.getAttribute('href')) ?? '', /\/download\?outputtype=\.pdf$/)
    const options = await page.getByRole('combobox', { name: 'Download as format' }).locator('option').allTextContents()
    assert.deepEqual(options, ['.pdf', '.odt', '.txt', '.rtf'])
    assert.equal(
      await page.getByRole('link', { name: 'Download', exact: true }).getAttribute('download'),
      'Budget memo.docx',
    )
    assert.equal(await page.getByRole('link', { name: 'Versions' }).getAttribute('href'), `/versions/${docId}`)
    assert.equal(await page.getByRole('link', { name: /Open in editor/ }).count(), 0, 'no editor is configured')
    await b.screenshot('preview-docx')
    await page.setViewportSize(PHONE)
    try {
      assert.equal(await overflowsSideways(page), false)
      await b.screenshot('preview-docx-phone')
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  })

  test('an image shows as an image, a text file as text (nothing in it runs)', async () => {
    const { page } = b
    await page.goto(`${server.url}/`)
    await fileRow(page, 'Logo.png').getByRole('link', { name: 'Logo.png', exact: true }).click()
    const image = page.getByRole('img', { name: 'Preview of Logo.png' })
    await image.waitFor()
    await page.waitForFunction(() => {
      const img = document.querySelector('img.preview-image')
      return img instanceof HTMLImageElement && img.complete && img.naturalWidth === 1
    })
    assert.equal(await image.getAttribute('src'), `/api/2.0/files/file/${imageId}/preview`)

    await page.goBack()
    await fileRow(page, 'notes.txt').getByRole('link', { name: 'notes.txt', exact: true }).click()
    const text = page.locator('pre.preview-text')
    await text.filter({ hasText: 'line one' }).waitFor()
    assert.equal(await text.textContent(), HOSTILE_TEXT)
    assert.equal(await text.locator('img').count(), 0)
    assert.notEqual(await page.title(), 'pwned')
    await b.screenshot('preview-text')
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })

  test("the grid view shows each document's first page, lazily, and an icon where there is none", async () => {
    const { page } = b
    await page.goto(`${server.url}/`)
    await fileRow(page, 'Budget memo.docx').waitFor()
    const thumbnail = page.waitForResponse(
      (response) => new URL(response.url()).pathname === `/api/2.0/files/file/${docId}/thumbnail`,
    )
    await page.getByRole('button', { name: 'Grid' }).click()
    assert.equal(await page.getByRole('button', { name: 'Grid' }).getAttribute('aria-pressed'), 'true')
    const grid = page.getByRole('list', { name: 'Items' })
    await grid.waitFor()
    assert.equal(await page.locator('table.files').isVisible(), false)
    const card = (title: string) =>
      grid.locator('li.card').filter({ has: page.getByRole('link', { name: title, exact: true }) })
    const image = card('Budget memo.docx').locator('img.thumbnail')
    assert.equal(await image.getAttribute('loading'), 'lazy')
    const response = await thumbnail
    assert.equal(response.status(), 200)
    assert.equal(response.headers()['content-type'], 'image/png')
    await page.waitForFunction((id) => {
      const img = document.querySelector(`img.thumbnail[src*="${id}"]`)
      return img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0
    }, docId)
    // A document the converter cannot read, and a kind with no thumbnail: the type icon.
    await card('Broken.docx').locator('svg.file-icon').waitFor()
    assert.equal(await card('Broken.docx').locator('img').count(), 0)
    assert.equal(await card('bundle.zip').locator('img').count(), 0)
    assert.equal(
      await card('Logo.png').locator('img.thumbnail').getAttribute('src'),
      `/api/2.0/files/file/${imageId}/preview`,
    )
    await b.screenshot('grid-view')
    await page.setViewportSize(PHONE)
    try {
      assert.equal(await overflowsSideways(page), false)
      await b.screenshot('grid-view-phone')
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
    // The choice is kept in this browser.
    await page.reload()
    await page.getByRole('list', { name: 'Items' }).waitFor()
    await page.getByRole('button', { name: 'List' }).click()
    await fileRow(page, 'Budget memo.docx').waitFor()
  })
})

describe('a share link opened signed out, with no editor configured', { skip: libreOfficeMissing() }, () => {
  let server: TestServer
  let b: TestBrowser
  let docId: string
  let link: string

  before(async () => {
    server = await startTestServer({ FOLIO_CONVERTER: 'libreoffice', FOLIO_CONVERTER_WORKERS: '1' })
    const token = await signIn(server.url)
    docId = await upload(server.url, token, 'Offer.docx', docxWithText(['The offer stands until May']))
    const made = await fetch(`${server.url}/api/2.0/files/${docId}/sharedlink`, {
      method: 'PUT',
      headers: { Authorization: token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ share: 2 }),
    })
    const shareLink = String((await made.json()).response.sharedTo.shareLink)
    link = server.url + new URL(shareLink).pathname + new URL(shareLink).search
    b = await launchBrowser()
    b.page.setDefaultTimeout(60_000)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('the page shows the name, owner, the PDF preview and a working download; no editor, no name asked', async () => {
    const { page } = b
    const pdf = page.waitForResponse((response) => new URL(response.url()).pathname === `/s/${docId}/preview`)
    await page.goto(link)
    await page.getByRole('heading', { name: 'Offer.docx' }).waitFor()
    assert.equal(await page.locator('.owner').textContent(), 'admin')
    const response = await pdf
    assert.equal(response.status(), 200)
    assert.equal(response.headers()['content-type'], 'application/pdf')
    const again = await page.context().request.get(response.url())
    assert.match(await textOf('pdf', await again.body()), /The offer stands until May/)
    assert.equal(await page.getByText('Open in editor').count(), 0)
    assert.equal(await page.locator('input[name="name"]').count(), 0)
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download' }).click(),
    ])
    assert.equal(download.suggestedFilename(), 'Offer.docx')
    assert.deepEqual(unexpectedErrors(b.errors), [])
    await b.screenshot('share-link-page')
    await page.setViewportSize(PHONE)
    try {
      assert.equal(await overflowsSideways(page), false)
      await b.screenshot('share-link-page-phone')
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  })

  test('a link that is not (or no longer) there is a friendly 404 page', async () => {
    const { page } = b
    const response = await page.goto(`${server.url}/s/${docId}?doc=not-the-key`)
    assert.equal(response?.status(), 404)
    await page.getByRole('heading', { name: 'This document is not here' }).waitFor()
  })
})

describe('web UI: the preview page without a converter', () => {
  let server: TestServer
  let b: TestBrowser

  before(async () => {
    server = await startTestServer({ FOLIO_CONVERTER: 'off' })
    const token = await signIn(server.url)
    await upload(server.url, token, 'Plan.docx', docxWithText(['x']))
    await upload(server.url, token, 'readme.md', Buffer.from('# Read me'))
    b = await launchBrowser()
    b.page.setDefaultTimeout(30_000)
    await signInThroughPage(b.page, server)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('an office document says a preview needs LibreOffice and offers the download; text still previews', async () => {
    const { page } = b
    await fileRow(page, 'Plan.docx').getByRole('link', { name: 'Plan.docx', exact: true }).click()
    const none = page.locator('.preview-none')
    await none.waitFor()
    assert.match((await none.textContent()) ?? '', /needs LibreOffice/)
    assert.equal(await page.locator('iframe').count(), 0)
    assert.equal(await page.getByRole('link', { name: /Download as/ }).count(), 0, 'no download as without a converter')
    assert.equal(await page.getByRole('link', { name: 'Download', exact: true }).getAttribute('download'), 'Plan.docx')
    await b.screenshot('preview-no-converter')

    await page.goBack()
    await fileRow(page, 'readme.md').getByRole('link', { name: 'readme.md', exact: true }).click()
    await page.locator('pre.preview-text').filter({ hasText: '# Read me' }).waitFor()
    await page.goBack()
    await fileRow(page, 'Plan.docx').waitFor()
    assert.equal(
      await page.getByRole('button', { name: 'Grid' }).count(),
      0,
      'no grid of thumbnails without a converter',
    )
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })
})
