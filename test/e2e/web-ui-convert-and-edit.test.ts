import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { libreOfficeMissing, textOf } from '../contract/converter.contract.js'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startHarness, type Harness } from '../support/onlyoffice-harness.js'
import { call, signIn } from '../support/portal-client.js'
import { expectScreen, fileRow, submitSignIn } from '../support/web-ui.js'

const PHONE = { width: 390, height: 844 }

const rtfWith = (text: string) => `{\\rtf1\\ansi{\\fonttbl\\f0\\fswiss Helvetica;}\\f0\\pard ${text}\\par}`

/** Saves the screen at desktop and phone width (test-artifacts/screenshots/convert-and-edit-<name>-*.png). */
async function bothWidths(b: TestBrowser, name: string): Promise<void> {
  const before = b.page.viewportSize() ?? { width: 1280, height: 800 }
  await b.screenshot(`convert-and-edit-${name}-1280`)
  await b.page.setViewportSize(PHONE)
  await b.screenshot(`convert-and-edit-${name}-390`)
  await b.page.setViewportSize(before)
}

/**
 * Holds the browser's PUT checkconversion until `release` is called (then it goes to Folio
 * as sent), so the progress shown while converting can be looked at before it ends.
 */
async function holdConversionStart(page: Page): Promise<{ release: () => void; done: () => Promise<void> }> {
  let release = () => {}
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  const pattern = '**/checkconversion'
  await page.route(pattern, async (route) => {
    if (route.request().method() === 'PUT') await held
    await route.continue()
  })
  return { release, done: () => page.unroute(pattern) }
}

describe(
  'web UI: Convert and edit (ONLYOFFICE Docs simulator as the editor, LibreOffice as the converter)',
  { skip: libreOfficeMissing() },
  () => {
    let h: Harness
    let b: TestBrowser

    const titles = async () => {
      const reply = await h.api('GET', '/files/@my?count=1000')
      assert.equal(reply.status, 200, reply.text)
      return (reply.json.response.files as Array<{ title: string }>).map((f) => f.title).sort()
    }

    before(async () => {
      h = await startHarness({ settings: { FOLIO_CONVERTER: 'libreoffice', FOLIO_CONVERTER_WORKERS: '1' } })
      b = await launchBrowser()
      b.page.setDefaultTimeout(60_000)
      await b.page.goto(`${h.folio.url}/sign-in`)
      await submitSignIn(b.page, 'admin', h.folio.adminPassword)
      await expectScreen(b.page, 'Documents')
    })
    after(async () => {
      await b?.close()
      await h?.close()
    })

    test('a row offers Convert and edit instead of Open in editor; the new .docx opens in the editor, listed beside the original', async () => {
      const { page, context } = b
      await h.upload('Minutes.rtf', rtfWith('The kangaroo council met.'))
      await h.upload('Ready.docx', 'an OOXML name is enough here')
      await page.goto(`${h.folio.url}/`)
      const row = fileRow(page, 'Minutes.rtf')
      await row.waitFor()
      // A legacy file is not opened in the editor as it is; an OOXML one still is.
      assert.equal(await row.getByRole('link', { name: 'Open Minutes.rtf in the editor' }).count(), 0)
      await fileRow(page, 'Ready.docx').getByRole('link', { name: 'Open Ready.docx in the editor' }).waitFor()

      const held = await holdConversionStart(page)
      await row.getByRole('button', { name: 'Convert Minutes.rtf to .docx and edit' }).click()
      // The progress shows while the conversion runs.
      await row.getByRole('progressbar', { name: 'Converting Minutes.rtf' }).waitFor()
      const tab = context.waitForEvent('page')
      held.release()
      const editor = await tab
      await editor.waitForURL(/\/doceditor\//)
      await held.done()
      const listed = (await h.api('GET', '/files/@my?count=1000')).json.response.files as Array<{
        id: string
        title: string
      }>
      const made = listed.find((f) => f.title === 'Minutes.docx')
      assert.ok(made, 'the converted file was made')
      assert.match(editor.url(), new RegExp(`/doceditor/${encodeURIComponent(made.id)}$`))
      await editor.close()
      // The list shows it beside the original, which stays.
      await fileRow(page, 'Minutes.docx').waitFor()
      await fileRow(page, 'Minutes.rtf').waitFor()
      await fileRow(page, 'Minutes.docx').getByRole('link', { name: 'Open Minutes.docx in the editor' }).waitFor()
      await bothWidths(b, 'row-done')
    })

    test('the preview page offers Convert and edit with its progress, then opens the new file in the editor', async () => {
      const { page, context } = b
      const source = await h.upload('Agenda.rtf', rtfWith('Agenda of the wombat club'))
      await page.goto(`${h.folio.url}/files/${source.id}/preview`)
      await page.getByRole('heading', { name: 'Agenda.rtf' }).waitFor()
      assert.equal(await page.getByRole('link', { name: 'Open in editor' }).count(), 0)
      const held = await holdConversionStart(page)
      await page.getByRole('button', { name: 'Convert and edit' }).click()
      await page.getByRole('progressbar', { name: 'Converting Agenda.rtf' }).waitFor()
      await page.getByText('Converting to .docx…').waitFor()
      await bothWidths(b, 'preview-running')
      const tab = context.waitForEvent('page')
      held.release()
      const editor = await tab
      await editor.waitForURL(/\/doceditor\//)
      await held.done()
      await editor.close()
      await page.getByText('Converted to Agenda.docx.').waitFor()
      const made = (
        (await h.api('GET', '/files/@my?count=1000')).json.response.files as Array<{ id: string; title: string }>
      ).find((f) => f.title === 'Agenda.docx')
      assert.ok(made)
      const download = await fetch(`${h.folio.url}/api/2.0/files/file/${made.id}/download`, {
        headers: { Authorization: h.token },
      })
      assert.match(await textOf('docx', Buffer.from(await download.arrayBuffer())), /wombat club/)
    })

    test('a sharee is offered Convert and edit only where Folio lets them add the converted file', async () => {
      const reader = await h.createUser('reader')
      const folder = (await h.api('POST', '/files/folder/@my', { title: 'Team room' })).json.response.id as string
      const inRoom = await call(h.folio.url, 'POST', `/api/2.0/files/${folder}/upload?title=Room.rtf`, {
        token: h.token,
        headers: { 'Content-Type': 'application/octet-stream' },
        raw: rtfWith('Room notes'),
      })
      assert.equal(inRoom.status, 201, inRoom.text)
      const lone = await h.upload('Lone.rtf', rtfWith('Lone notes'))
      const share = async (kind: 'file' | 'folder', id: string, access: number) =>
        assert.equal(
          (await h.api('PUT', `/files/${kind}/${id}/share`, { share: [{ shareTo: reader.id, access }] })).status,
          200,
        )
      await share('folder', folder, 1)
      await share('file', lone.id, 2)

      const other = await launchBrowser()
      try {
        other.page.setDefaultTimeout(60_000)
        await other.page.goto(`${h.folio.url}/sign-in`)
        await submitSignIn(other.page, 'reader', 'reader-password-1')
        await expectScreen(other.page, 'Documents')
        // Read only, shared alone: the folder is not theirs to add to, so the editor opens it as it is.
        await other.page.goto(`${h.folio.url}/files/${lone.id}/preview`)
        await other.page.getByRole('heading', { name: 'Lone.rtf' }).waitFor()
        await other.page.getByRole('link', { name: 'Open in editor' }).waitFor()
        assert.equal(await other.page.getByRole('button', { name: 'Convert and edit' }).count(), 0)
        const refused = await call(h.folio.url, 'PUT', `/api/2.0/files/file/${lone.id}/checkconversion`, {
          token: await signIn(h.folio.url, 'reader', 'reader-password-1'),
        })
        assert.equal(refused.status, 404, 'Folio agrees: the folder is not theirs')
        // Full access to the folder: the converted file may go beside it.
        await other.page.goto(`${h.folio.url}/folders/${folder}`)
        await expectScreen(other.page, 'Team room')
        await fileRow(other.page, 'Room.rtf')
          .getByRole('button', { name: 'Convert Room.rtf to .docx and edit' })
          .waitFor()
        await other.page.goto(`${h.folio.url}/files/${inRoom.json.response.id}/preview`)
        await other.page.getByRole('button', { name: 'Convert and edit' }).waitFor()
      } finally {
        await other.close()
      }
    })

    test('a document the converter cannot read shows its error and makes no file', async () => {
      const { page } = b
      const broken = await h.upload('Broken.doc', 'this is not a Word document at all \u0000\u0001')
      const before = await titles()
      await page.goto(`${h.folio.url}/files/${broken.id}/preview`)
      await page.getByRole('heading', { name: 'Broken.doc' }).waitFor()
      await page.getByRole('button', { name: 'Convert and edit' }).click()
      const alert = page.getByRole('alert').filter({ hasText: 'Broken.doc could not be converted' })
      await alert.waitFor()
      await bothWidths(b, 'preview-failed')
      assert.deepEqual(await titles(), before)
      assert.equal(b.context.pages().length, 1, 'no editor was opened')
    })
  },
)
