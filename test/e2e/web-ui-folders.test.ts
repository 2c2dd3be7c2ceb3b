import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import {
  assertAllControlsNamed,
  expectScreen,
  fileRow,
  folderRow,
  submitSignIn,
  unexpectedErrors,
} from '../support/web-ui.js'
import { readZip } from '../support/zip.js'

describe('Folders, moving and the trash in the web UI', () => {
  let server: TestServer
  let b: TestBrowser
  let page: Page
  let token: string
  const ids: Record<string, string> = {}

  const api = async (method: string, path: string, body?: unknown) => {
    const reply = await call(server.url, method, `/api/2.0${path}`, { token, ...(body === undefined ? {} : { body }) })
    return reply
  }
  const upload = async (title: string, text: string) => {
    const reply = await call(server.url, 'POST', `/api/2.0/files/@my/upload?title=${encodeURIComponent(title)}`, {
      token,
      headers: { 'Content-Type': 'application/octet-stream' },
      raw: text,
    })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id as string
  }
  /** The folder a file lies in now, as the API says. */
  const folderOf = async (fileId: string) => (await api('GET', `/files/file/${fileId}`)).json.response.folderId

  before(async () => {
    // Every move, delete, restore and empty trash is answered at once, its operation still
    // running: the UI must poll the operations until it ended before it shows the result.
    server = await startTestServer({ FOLIO_OPERATION_WAIT: '0' })
    token = await signIn(server.url)
    ids.plan = await upload('Plan.txt', 'the plan')
    ids.notes = await upload('Notes.txt', 'some notes')
    ids.memo = await upload('Memo.txt', 'a memo')
    b = await launchBrowser()
    page = b.page
    page.setDefaultTimeout(30_000)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('create folders, go in and out through links and breadcrumbs', async () => {
    await page.goto(`${server.url}/`)
    await submitSignIn(page, 'admin', server.adminPassword)
    await expectScreen(page, 'Documents')

    await page.getByRole('button', { name: 'New folder' }).click()
    const dialog = page.getByRole('dialog', { name: 'New folder' })
    await dialog.getByLabel('Folder name').fill('Projects')
    await dialog.getByRole('button', { name: 'Create folder' }).click()
    await folderRow(page, 'Projects').waitFor()
    await assertAllControlsNamed(page, 'documents with a folder')

    await folderRow(page, 'Projects').getByRole('link', { name: 'Projects' }).click()
    await expectScreen(page, 'Projects')
    assert.match(new URL(page.url()).pathname, /^\/folders\/[^/]+$/)
    ids.projects = decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '')
    await page.getByText('This folder is empty.').waitFor()

    await page.getByRole('button', { name: 'New folder' }).click()
    await dialog.getByLabel('Folder name').fill('Drafts')
    await dialog.getByRole('button', { name: 'Create folder' }).click()
    await folderRow(page, 'Drafts').getByRole('link', { name: 'Drafts' }).click()
    await expectScreen(page, 'Drafts')
    ids.drafts = decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '')

    const crumbs = page.getByRole('navigation', { name: 'Breadcrumbs' })
    await page.waitForFunction(
      () => document.querySelector('nav.breadcrumbs')?.textContent === 'DocumentsProjectsDrafts',
    )
    await b.screenshot('folder-breadcrumbs')
    await crumbs.getByRole('link', { name: 'Projects' }).click()
    await expectScreen(page, 'Projects')
    await folderRow(page, 'Drafts').waitFor()
    await crumbs.getByRole('link', { name: 'Documents' }).click()
    await expectScreen(page, 'Documents')
    await fileRow(page, 'Plan.txt').waitFor()

    // Back goes back into the folder.
    await page.goBack()
    await expectScreen(page, 'Projects')
    await page.goBack()
    await expectScreen(page, 'Drafts')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click()
    await expectScreen(page, 'Documents')
  })

  test('"Move to" moves a file into a folder picked in the dialog', async () => {
    await fileRow(page, 'Plan.txt').getByRole('button', { name: 'Move Plan.txt to…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Move Plan.txt to' })
    await dialog.getByRole('button', { name: 'Projects' }).click()
    await dialog.getByRole('button', { name: 'Drafts' }).click()
    await dialog.locator('[aria-current="location"]').getByText('Drafts', { exact: true }).waitFor()
    await assertAllControlsNamed(page, 'move dialog')
    await b.screenshot('move-to-dialog')
    await dialog.getByRole('button', { name: 'Move here' }).click()
    await fileRow(page, 'Plan.txt').waitFor({ state: 'detached' })
    assert.equal(await folderOf(ids.plan ?? ''), ids.drafts)

    await page.goto(`${server.url}/folders/${ids.drafts}`)
    await expectScreen(page, 'Drafts')
    await fileRow(page, 'Plan.txt').waitFor()
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click()
    await expectScreen(page, 'Documents')
  })

  test('dragging a row onto a folder moves it there; a move answered still running is polled until it ended', async () => {
    // The move's reply says its operation still runs, as a slow one's does: the UI must ask
    // for the operations (and find it ended, or no longer listed) before it reloads.
    const movePath = '**/api/2.0/files/fileops/move'
    await page.route(movePath, async (route) => {
      const response = await route.fetch()
      const body = (await response.json()) as { response: { finished: boolean }[] }
      for (const op of body.response) op.finished = false
      await route.fulfill({ response, json: body })
    })
    const polls: string[] = []
    const onRequest = (request: { method(): string; url(): string }) => {
      if (request.method() === 'GET' && new URL(request.url()).pathname === '/api/2.0/files/fileops')
        polls.push(request.url())
    }
    page.on('request', onRequest)
    await fileRow(page, 'Memo.txt').dragTo(folderRow(page, 'Projects'))
    await fileRow(page, 'Memo.txt').waitFor({ state: 'detached' })
    page.off('request', onRequest)
    await page.unroute(movePath)
    assert.ok(polls.length > 0, 'the UI asked for the operations')
    assert.equal(await folderOf(ids.memo ?? ''), ids.projects)
  })

  test('a folder downloads as one zip archive of its tree; so does a selection of a folder and a file', async () => {
    const folderDownload = page.waitForEvent('download')
    await folderRow(page, 'Projects').getByRole('button', { name: 'Download Projects as a zip archive' }).click()
    const folderZip = await folderDownload
    assert.equal(folderZip.suggestedFilename(), 'Projects.zip')
    const inFolder = await readZip(await readFile(await folderZip.path()))
    assert.deepEqual([...inFolder.keys()].sort(), [
      'Projects/',
      'Projects/Drafts/',
      'Projects/Drafts/Plan.txt',
      'Projects/Memo.txt',
    ])
    assert.equal(inFolder.get('Projects/Drafts/Plan.txt')?.toString(), 'the plan')

    await fileRow(page, 'Notes.txt').getByRole('checkbox', { name: 'Select Notes.txt' }).check()
    await folderRow(page, 'Projects').getByRole('checkbox', { name: 'Select Projects' }).check()
    const bulk = page.getByRole('group', { name: 'Selected items' })
    const selectionDownload = page.waitForEvent('download')
    await bulk.getByRole('button', { name: 'Download' }).click()
    const selectionZip = await selectionDownload
    assert.equal(selectionZip.suggestedFilename(), 'Documents.zip')
    const inSelection = await readZip(await readFile(await selectionZip.path()))
    assert.deepEqual([...inSelection.keys()].sort(), [
      'Notes.txt',
      'Projects/',
      'Projects/Drafts/',
      'Projects/Drafts/Plan.txt',
      'Projects/Memo.txt',
    ])
    assert.equal(inSelection.get('Notes.txt')?.toString(), 'some notes')
    await fileRow(page, 'Notes.txt').getByRole('checkbox', { name: 'Select Notes.txt' }).uncheck()
    await folderRow(page, 'Projects').getByRole('checkbox', { name: 'Select Projects' }).uncheck()
  })

  test('bulk delete goes to the trash; restore puts items back; empty trash deletes for good', async () => {
    await fileRow(page, 'Notes.txt').getByRole('checkbox', { name: 'Select Notes.txt' }).check()
    const bulk = page.getByRole('group', { name: 'Selected items' })
    const download = page.waitForEvent('download')
    await bulk.getByRole('button', { name: 'Download' }).click()
    assert.equal((await download).suggestedFilename(), 'Notes.txt')

    await folderRow(page, 'Projects').getByRole('checkbox', { name: 'Select Projects' }).check()
    await bulk.getByText('2 selected').waitFor()
    await bulk.getByRole('button', { name: 'Delete' }).click()
    const confirm = page.getByRole('dialog', { name: 'Delete these 2 items?' })
    assert.match((await confirm.textContent()) ?? '', /moved to the trash/)
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await fileRow(page, 'Notes.txt').waitFor({ state: 'detached' })
    await folderRow(page, 'Projects').waitFor({ state: 'detached' })

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Trash' }).click()
    await expectScreen(page, 'Trash')
    await fileRow(page, 'Notes.txt').waitFor()
    await folderRow(page, 'Projects').waitFor()
    // Each item says when the trash retention deletes it for good.
    assert.match((await fileRow(page, 'Notes.txt').textContent()) ?? '', /Deleted for good on /)
    // A trashed folder is not opened, and a trashed file has no editor or share button.
    assert.equal(await folderRow(page, 'Projects').getByRole('link').count(), 0)
    assert.equal(
      await fileRow(page, 'Notes.txt')
        .getByRole('button', { name: /^Share/ })
        .count(),
      0,
    )
    await assertAllControlsNamed(page, 'trash')
    await b.screenshot('trash')

    await fileRow(page, 'Notes.txt').getByRole('button', { name: 'Restore Notes.txt' }).click()
    await fileRow(page, 'Notes.txt').waitFor({ state: 'detached' })
    const root = (await api('GET', '/files/@my')).json.response.current.id
    assert.equal(await folderOf(ids.notes ?? ''), root)

    await page.getByRole('button', { name: 'Empty trash' }).click()
    const empty = page.getByRole('dialog', { name: 'Empty the trash?' })
    await empty.getByRole('button', { name: 'Empty trash' }).click()
    await page.getByText('The trash is empty.').waitFor()
    // Projects went with everything in it: the files moved into it are gone for good.
    assert.equal((await api('GET', `/files/file/${ids.plan}`)).status, 404)
    assert.equal((await api('GET', `/files/file/${ids.memo}`)).status, 404)

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click()
    await fileRow(page, 'Notes.txt').waitFor()
    assert.deepEqual(unexpectedErrors(b.errors), [])
    assert.deepEqual(b.blocked, [])
  })
})
