import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import type { EditorConfig, EditorSession } from '../support/docs-server-simulator.js'
import { startHarness, type Harness } from '../support/onlyoffice-harness.js'
import { assertAllControlsNamed, expectScreen, fileRow, folderRow, submitSignIn } from '../support/web-ui.js'

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
const BRIEF_BYTES = 'the brief, version one'

/** The editor config the editor page hands its script (Docs' api.js is not loaded in tests). */
async function editorConfigOf(editor: Page): Promise<EditorConfig> {
  const data = editor.locator('#folio-editor-data')
  await data.waitFor({ state: 'attached' })
  const parsed: { config: EditorConfig } = JSON.parse((await data.textContent()) ?? '')
  return parsed.config
}

/** Clicks a file's name in the list and returns the editor page it opens in a new tab. */
async function openFromList(page: Page, title: string): Promise<Page> {
  const popup = page.waitForEvent('popup')
  // The name opens the preview page; the row's editor button opens the editor.
  await fileRow(page, title)
    .getByRole('link', { name: `Open ${title} in the editor` })
    .click()
  const editor = await popup
  await editor.waitForLoadState('domcontentloaded')
  return editor
}

/** Opens the Share dialog of a row; returns the dialog. */
async function shareDialog(page: Page, title: string, kind: 'file' | 'folder') {
  const row = kind === 'file' ? fileRow(page, title) : folderRow(page, title)
  await row.getByRole('button', { name: `Share ${title}` }).click()
  const dialog = page.getByRole('dialog', { name: `Share “${title}”` })
  await dialog.waitFor()
  return dialog
}

/** Gives `person` access to a row through the Share dialog, and closes it. */
async function shareWith(page: Page, title: string, kind: 'file' | 'folder', person: string, access: string) {
  const dialog = await shareDialog(page, title, kind)
  await dialog.getByRole('combobox', { name: 'Person', exact: true }).fill(person)
  await dialog.getByRole('option').filter({ hasText: person }).first().click()
  await dialog.getByRole('combobox', { name: 'Access', exact: true }).selectOption({ label: access })
  await dialog.getByRole('button', { name: 'Share', exact: true }).click()
  await dialog.getByRole('list', { name: 'Who has access' }).getByText(person, { exact: true }).waitFor()
  return dialog
}

describe('Working together in the web UI: two people, the Docs simulator and a link', () => {
  let h: Harness
  let ann: TestBrowser
  let bea: TestBrowser
  let guest: TestBrowser
  let annName: string
  const beaName = 'bea (display)'
  let beaId: string
  let briefId: string
  let linkUrl: string
  const sessions: EditorSession[] = []

  before(async () => {
    h = await startHarness()
    beaId = (await h.createUser('bea')).id
    annName = (await h.api('GET', '/people/@self')).json.response.displayName
    ann = await launchBrowser()
    bea = await launchBrowser()
    guest = await launchBrowser()
    for (const b of [ann, bea, guest]) b.page.setDefaultTimeout(30_000)
  })
  after(async () => {
    for (const session of sessions) await session.disconnect().catch(() => undefined)
    await ann?.close()
    await bea?.close()
    await guest?.close()
    await h?.close()
  })

  test('A makes a folder, uploads a document into it and shares both with B', async () => {
    const { page } = ann
    await page.goto(`${h.folio.url}/`)
    await submitSignIn(page, 'admin', h.folio.adminPassword)
    await expectScreen(page, 'Documents')
    await page.getByRole('button', { name: 'New folder' }).click()
    const create = page.getByRole('dialog', { name: 'New folder' })
    await create.getByLabel('Folder name').fill('Team')
    await create.getByRole('button', { name: 'Create folder' }).click()
    await folderRow(page, 'Team').getByRole('link', { name: 'Team' }).click()
    await expectScreen(page, 'Team')
    // Inside one's own folder the main navigation still marks "Documents".
    await page
      .getByRole('navigation', { name: 'Main' })
      .locator('[aria-current="page"]', { hasText: 'Documents' })
      .waitFor()

    const chooser = page.waitForEvent('filechooser')
    await page.getByRole('button', { name: 'Upload files' }).click()
    await (
      await chooser
    ).setFiles([
      { name: 'Brief.docx', mimeType: DOCX, buffer: Buffer.from(BRIEF_BYTES) },
      { name: 'Notes.txt', mimeType: 'text/plain', buffer: Buffer.from('notes') },
    ])
    await fileRow(page, 'Brief.docx').waitFor()
    await fileRow(page, 'Notes.txt').waitFor()

    // The folder for reading, the document inside it for editing (the nearer share wins).
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'Documents' }).click()
    await expectScreen(page, 'Documents')
    const folderDialog = await shareWith(page, 'Team', 'folder', beaName, 'Read only')
    await folderDialog.getByRole('button', { name: 'Done' }).click()
    await folderDialog.waitFor({ state: 'detached' })

    await folderRow(page, 'Team').getByRole('link', { name: 'Team' }).click()
    await expectScreen(page, 'Team')
    const dialog = await shareWith(page, 'Brief.docx', 'file', beaName, 'Full access (edit)')
    assert.equal(await dialog.getByRole('combobox', { name: `Access for ${beaName}`, exact: true }).inputValue(), '1')

    // The link, for reading, without an account.
    await dialog.getByRole('checkbox', { name: 'Anyone with the link, without an account' }).check()
    const link = dialog.getByRole('textbox', { name: 'Link' })
    await link.waitFor()
    linkUrl = await link.inputValue()
    assert.match(linkUrl, /\/s\/[^?]+\?doc=/)
    assert.equal(await dialog.getByRole('combobox', { name: 'Link access', exact: true }).inputValue(), '2')
    await assertAllControlsNamed(page, 'share dialog')
    await ann.screenshot('share-dialog')
    await dialog.getByRole('button', { name: 'Done' }).click()
    await dialog.waitFor({ state: 'detached' })

    const files = (await h.api('GET', `/files/${new URL(page.url()).pathname.split('/')[2]}`)).json.response.files
    briefId = files.find((f: { title: string }) => f.title === 'Brief.docx').id
  })

  test('B sees both in "Shared with me", with only the buttons their access allows', async () => {
    const { page } = bea
    await page.goto(`${h.folio.url}/`)
    await submitSignIn(page, 'bea', 'bea-password-1')
    await expectScreen(page, 'Documents')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Shared with me' }).click()
    await expectScreen(page, 'Shared with me')
    const row = fileRow(page, 'Brief.docx')
    await row.getByText(`Shared by ${annName} · Full access (edit)`).waitFor()
    await folderRow(page, 'Team').getByText(`Shared by ${annName} · Read only`).waitFor()
    // Edit access renames; only the owner shares, moves and deletes.
    await row.getByRole('button', { name: 'Rename Brief.docx' }).waitFor()
    for (const name of ['Share Brief.docx', 'Delete Brief.docx', 'Move Brief.docx to…']) {
      assert.equal(await row.getByRole('button', { name }).count(), 0, name)
    }
    for (const name of ['Share Team', 'Delete Team', 'Rename Team']) {
      assert.equal(await folderRow(page, 'Team').getByRole('button', { name }).count(), 0, name)
    }
    assert.equal(await page.getByRole('button', { name: 'Upload files' }).count(), 0)
    await assertAllControlsNamed(page, 'shared with me')
    await bea.screenshot('shared-with-me')
  })

  test('B opens the folder: the way back starts at "Shared with me", each item has the buttons of B\'s access', async () => {
    const { page } = bea
    await folderRow(page, 'Team').getByRole('link', { name: 'Team' }).click()
    // Notes.txt is reached only through the folder: its row means the folder's page is on screen.
    const notes = fileRow(page, 'Notes.txt')
    await notes.waitFor()
    await expectScreen(page, 'Team')
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumbs' })
    await crumbs.getByRole('link', { name: 'Shared with me' }).waitFor()
    assert.equal(await crumbs.getByRole('link', { name: 'Documents' }).count(), 0, "nothing of the owner's tree above")
    // The main navigation marks the section the folder is in, not the reader's own documents.
    const main = page.getByRole('navigation', { name: 'Main' })
    await main.locator('[aria-current="page"]', { hasText: 'Shared with me' }).waitFor()
    assert.equal(await main.getByRole('link', { name: 'Documents' }).getAttribute('aria-current'), null)
    // The folder is Read: nothing to add, and its own files only read; the document's own
    // share (the nearer one) gives edit.
    await fileRow(page, 'Brief.docx').getByRole('button', { name: 'Rename Brief.docx' }).waitFor()
    for (const name of ['Rename Notes.txt', 'Share Notes.txt', 'Delete Notes.txt', 'Move Notes.txt to…']) {
      assert.equal(await notes.getByRole('button', { name }).count(), 0, name)
    }
    for (const name of ['Upload files', 'New folder']) {
      assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, name)
    }
    await assertAllControlsNamed(page, 'shared folder')

    // A folder shared with edit access: B adds a folder into it, which lands in A's tree.
    const drafts = (await h.api('POST', '/files/folder/@my', { title: 'Drafts' })).json.response.id
    const shared = await h.api('PUT', `/files/folder/${drafts}/share`, { share: [{ shareTo: beaId, access: 1 }] })
    assert.equal(shared.status, 200, shared.text)
    await crumbs.getByRole('link', { name: 'Shared with me' }).click()
    await folderRow(page, 'Drafts').getByText(`Shared by ${annName} · Full access (edit)`).waitFor()
    await folderRow(page, 'Drafts').getByRole('link', { name: 'Drafts' }).click()
    await expectScreen(page, 'Drafts')
    await page.getByRole('button', { name: 'Upload files' }).waitFor()
    await page.getByRole('button', { name: 'New folder' }).click()
    const create = page.getByRole('dialog', { name: 'New folder' })
    await create.getByLabel('Folder name').fill('From Bea')
    await create.getByRole('button', { name: 'Create folder' }).click()
    await folderRow(page, 'From Bea').waitFor()
    const inDrafts = (await h.api('GET', `/files/${drafts}`)).json.response.folders
    assert.deepEqual(
      inDrafts.map((f: { title: string }) => f.title),
      ['From Bea'],
    )
    assert.equal(
      (await h.api('PUT', `/files/folder/${drafts}/share`, { share: [{ shareTo: beaId, access: 0 }] })).status,
      200,
    )

    // Back into the folder A shared for reading, where B opens the document next.
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'Shared with me' }).click()
    await expectScreen(page, 'Shared with me')
    await folderRow(page, 'Team').getByRole('link', { name: 'Team' }).click()
    await fileRow(page, 'Notes.txt').waitFor()
  })

  test('both open the document: one key, two people, and Folio shows both editing', async () => {
    const annEditor = await openFromList(ann.page, 'Brief.docx')
    // B opens it from inside the folder A shared.
    await expectScreen(bea.page, 'Team')
    const beaEditor = await openFromList(bea.page, 'Brief.docx')
    const annConfig = await editorConfigOf(annEditor)
    const beaConfig = await editorConfigOf(beaEditor)
    const key = annConfig.document?.key
    assert.ok(key)
    assert.equal(beaConfig.document?.key, key, 'the key does not depend on the person')
    assert.notEqual(annConfig.editorConfig?.user?.id, beaConfig.editorConfig?.user?.id)
    assert.equal(beaConfig.editorConfig?.mode, 'edit')
    sessions.push(await h.sim.openEditor(annConfig))
    sessions.push(await h.sim.openEditor(beaConfig))
    const both = await h.sim.waitForCallback(
      (sent) => sent.status === 1 && Array.isArray(sent.body.users) && sent.body.users.length === 2,
      30_000,
    )
    assert.equal(both.body.key, key)
    await annEditor.close()
    await beaEditor.close()

    // A's list shows who is editing, by name (after a fresh look at the folder).
    const { page } = ann
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'Documents' }).click()
    await folderRow(page, 'Team').getByRole('link', { name: 'Team' }).click()
    const badge = fileRow(page, 'Brief.docx').locator('.badge.editing')
    await page.waitForFunction(
      (names) => {
        const text = document.querySelector('table.files .badge.editing')?.textContent ?? ''
        return names.every((name) => text.includes(name))
      },
      [annName, beaName],
    )
    assert.match((await badge.textContent()) ?? '', /^Editing now: /)
    for (const session of sessions.splice(0)) await session.disconnect()
  })

  test("A removes B; B's next action is refused and the page says so", async () => {
    const { page } = ann
    const dialog = await shareDialog(page, 'Brief.docx', 'file')
    await dialog.getByRole('button', { name: `Remove access for ${beaName}` }).click()
    await dialog
      .getByRole('list', { name: 'Who has access' })
      .getByText(beaName, { exact: true })
      .waitFor({ state: 'detached' })
    await dialog.getByRole('button', { name: 'Done' }).click()
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'Documents' }).click()
    const folderDialog = await shareDialog(page, 'Team', 'folder')
    await folderDialog.getByRole('button', { name: `Remove access for ${beaName}` }).click()
    await folderDialog
      .getByRole('list', { name: 'Who has access' })
      .getByText(beaName, { exact: true })
      .waitFor({ state: 'detached' })
    await folderDialog.getByRole('button', { name: 'Done' }).click()

    // B's screen still lists the document; renaming it is refused, in words.
    const b = bea.page
    await fileRow(b, 'Brief.docx').getByRole('button', { name: 'Rename Brief.docx' }).click()
    await b.getByLabel('New name for Brief.docx').fill('Brief, mine.docx')
    await b.getByRole('button', { name: 'Save' }).click()
    const refusal = b.locator('table.files form.rename').getByRole('alert')
    await refusal.waitFor()
    assert.match((await refusal.textContent()) ?? '', /no longer have access/)
    await bea.screenshot('access-removed')
    assert.equal((await h.api('GET', `/files/file/${briefId}`)).json.response.title, 'Brief.docx')

    // A fresh look: the document is gone from "Shared with me".
    await b.getByRole('button', { name: 'Cancel' }).click()
    await b.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click()
    await expectScreen(b, 'Documents')
    await b.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Shared with me' }).click()
    await b.getByText('Nothing is shared with you yet.').waitFor()
  })

  test('the link opens the document for someone signed out, to view', async () => {
    const { page } = guest
    await page.goto(linkUrl)
    // The link's page first; the name is asked once the guest chooses the editor.
    await page.getByRole('heading', { name: 'Brief.docx' }).waitFor()
    await page.getByText('Open in editor').click()
    await page.getByLabel('Your name').fill('Visitor')
    await page.getByRole('button', { name: 'Open' }).click()
    const config = await editorConfigOf(page)
    assert.equal(config.document?.title, 'Brief.docx')
    assert.equal(config.editorConfig?.mode, 'view')
    assert.equal(config.editorConfig?.user?.name, 'Visitor')
    const viewer = await h.sim.openEditor(config)
    assert.equal(Buffer.from(viewer.downloaded).toString(), BRIEF_BYTES)
    await viewer.disconnect()
  })
})
