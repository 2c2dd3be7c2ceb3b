import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { folderRow, overflowsSideways, submitSignIn, unexpectedErrors } from '../support/web-ui.js'

const PHONE = { width: 390, height: 844 }

/** A 1x1 PNG (its own copy: importing preview.test.js would run that suite too). */
const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

/**
 * A folder's link made in the share dialog, then opened signed out on a Folio with no
 * editor and no converter: the list, a sub-folder, a file's preview page and downloads,
 * view only, and the 404 page once the link is off.
 */
describe('web UI: a folder link opened signed out, with no editor', () => {
  let server: TestServer
  let owner: TestBrowser
  let guest: TestBrowser
  let token: string

  const folder = async (parentId: string, title: string): Promise<string> => {
    const reply = await call(server.url, 'POST', `/api/2.0/files/folder/${parentId}`, { token, body: { title } })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }
  const upload = async (folderId: string, title: string, content: Uint8Array | string) => {
    const reply = await call(
      server.url,
      'POST',
      `/api/2.0/files/${folderId}/upload?title=${encodeURIComponent(title)}`,
      {
        token,
        headers: { 'Content-Type': 'application/octet-stream' },
        raw: typeof content === 'string' ? content : Buffer.from(content),
      },
    )
    assert.ok(reply.status < 300, reply.text)
  }

  /** The Share dialog of the folder row `title` (signed in as the owner). */
  async function shareDialog(page: Page, title: string) {
    await folderRow(page, title)
      .getByRole('button', { name: `Share ${title}` })
      .click()
    const dialog = page.getByRole('dialog', { name: `Share “${title}”` })
    await dialog.waitFor()
    return dialog
  }

  before(async () => {
    server = await startTestServer({ FOLIO_CONVERTER: 'off' })
    token = await signIn(server.url)
    const team = await folder('@my', 'Team')
    const minutes = await folder(team, 'Minutes')
    await folder('@my', 'Private')
    await upload(team, 'notes.txt', 'team notes')
    await upload(minutes, 'whiteboard.png', TINY_PNG)
    await upload(minutes, 'monday.txt', 'monday minutes')
    owner = await launchBrowser()
    guest = await launchBrowser()
    for (const b of [owner, guest]) b.page.setDefaultTimeout(30_000)
    await owner.page.goto(`${server.url}/sign-in`)
    await submitSignIn(owner.page, 'admin', server.adminPassword)
    await folderRow(owner.page, 'Team').waitFor()
  })
  after(async () => {
    await owner?.close()
    await guest?.close()
    await server?.dispose()
  })

  test('made in the share dialog; the guest lists, opens a sub-folder, previews and downloads; view only; off: 404', async () => {
    const dialog = await shareDialog(owner.page, 'Team')
    await dialog.getByRole('checkbox', { name: /Anyone with the link/ }).check()
    const linkBox = dialog.getByRole('textbox', { name: 'Link' })
    await linkBox.waitFor()
    const link = await linkBox.inputValue()
    assert.match(link, /\/s\/[^?]+\?doc=/)
    await owner.screenshot('folder-link-dialog')

    const { page } = guest
    await page.goto(link)
    await page.getByRole('heading', { name: 'Team', level: 1 }).waitFor()
    const items = page.getByRole('list', { name: 'Contents of Team' })
    await items.getByRole('link', { name: 'notes.txt', exact: true }).waitFor()
    assert.equal(await page.getByText('Private').count(), 0, 'nothing beside the linked folder')
    assert.equal(await page.getByRole('navigation', { name: 'Folders' }).count(), 0, 'nothing above it')
    await guest.screenshot('folder-link-page')

    // A sub-folder: its contents, the way back up to the linked folder and no further.
    await items.getByRole('link', { name: 'Minutes', exact: true }).click()
    await page.getByRole('heading', { name: 'Minutes', level: 1 }).waitFor()
    const crumbs = page.getByRole('navigation', { name: 'Folders' })
    assert.deepEqual(await crumbs.getByRole('listitem').allTextContents(), ['Team', 'Minutes'])

    // A file's own page: its preview (the image itself) and its download.
    await page.getByRole('link', { name: 'whiteboard.png', exact: true }).click()
    await page.getByRole('heading', { name: 'whiteboard.png', level: 1 }).waitFor()
    const preview = page.getByRole('img', { name: 'Preview of whiteboard.png' })
    await preview.waitFor()
    await page.waitForFunction(() => {
      const image = document.querySelector<HTMLImageElement>('img.image')
      return image !== null && image.complete && image.naturalWidth > 0
    })
    const [image] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download', exact: true }).click(),
    ])
    assert.equal(image.suggestedFilename(), 'whiteboard.png')
    await guest.screenshot('folder-link-file-page')
    assert.equal(await page.getByText('Open in editor').count(), 0, 'no editor is configured')

    // Back in the folder, a file downloads from the list.
    await page.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: 'Minutes' }).click()
    await page.getByRole('heading', { name: 'Minutes', level: 1 }).waitFor()
    const [text] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download monday.txt' }).click(),
    ])
    assert.equal(text.suggestedFilename(), 'monday.txt')
    const chunks: Buffer[] = []
    for await (const chunk of await text.createReadStream()) chunks.push(Buffer.from(chunk))
    assert.equal(Buffer.concat(chunks).toString(), 'monday minutes')
    await page.setViewportSize(PHONE)
    try {
      assert.equal(await overflowsSideways(page), false)
      await guest.screenshot('folder-link-page-phone')
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }

    // View only, from the dialog: the guest's next page offers no download.
    // The box follows Folio's answer, so it is clicked, then awaited unchecked.
    await dialog.getByRole('checkbox', { name: 'Allow downloads' }).click()
    await dialog.getByRole('checkbox', { name: 'Allow downloads', checked: false }).waitFor()
    await page.reload()
    await page.getByText('View only').waitFor()
    assert.equal(await page.getByRole('link', { name: /^Download/ }).count(), 0)

    // Off, from the dialog: the same address is the friendly 404 page.
    await dialog.getByRole('checkbox', { name: /Anyone with the link/ }).uncheck()
    await linkBox.waitFor({ state: 'detached' })
    const gone = await page.goto(link)
    assert.equal(gone?.status(), 404)
    await page.getByRole('heading', { name: 'This document is not here' }).waitFor()
    await guest.screenshot('folder-link-revoked')
    assert.deepEqual(unexpectedErrors(owner.errors), [])
    assert.deepEqual(
      unexpectedErrors(guest.errors).filter((e) => !/404/.test(e)),
      [],
    )
  })
})
