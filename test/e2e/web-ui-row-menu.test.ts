import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import {
  expectScreen,
  fileRow,
  folderRow,
  overflowsSideways,
  submitSignIn,
  unexpectedErrors,
} from '../support/web-ui.js'

const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1280, height: 800 }

/** The accessible name (or text) of the focused element. */
async function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement
    if (!(element instanceof HTMLElement)) return ''
    return element.getAttribute('aria-label') ?? element.textContent?.trim() ?? ''
  })
}

/** How many lines the visible buttons of a row's actions take (by their distinct tops). */
async function actionLines(row: Locator): Promise<number> {
  return row.locator('.actions').evaluate((actions) => {
    const tops = new Set<number>()
    for (const control of actions.querySelectorAll<HTMLElement>('.icon-button')) {
      const box = control.getBoundingClientRect()
      if (box.width > 0) tops.add(Math.round(box.top))
    }
    return tops.size
  })
}

/** The accessible names of the row's visible action buttons and links, in order. */
async function visibleActions(row: Locator): Promise<string[]> {
  return row
    .locator('.actions')
    .evaluate((actions) =>
      [...actions.querySelectorAll<HTMLElement>('.icon-button')]
        .filter((control) => control.getClientRects().length > 0)
        .map((control) => control.getAttribute('aria-label') ?? ''),
    )
}

describe('web UI: a row at phone width keeps open and download, the rest under "More actions"', () => {
  let server: TestServer
  let admin: string
  let b: TestBrowser
  let page: Page

  before(async () => {
    server = await startTestServer()
    admin = await signIn(server.url)
    for (const title of ['Report.txt', 'Notes.txt']) {
      const reply = await call(server.url, 'POST', `/api/2.0/files/@my/upload?title=${encodeURIComponent(title)}`, {
        token: admin,
        headers: { 'Content-Type': 'application/octet-stream' },
        raw: title,
      })
      assert.equal(reply.status, 201, reply.text)
    }
    const made = await call(server.url, 'POST', '/api/2.0/files/folder/@my', { token: admin, body: { title: 'Plans' } })
    assert.equal(made.status, 201, made.text)
    b = await launchBrowser({ viewport: PHONE })
    page = b.page
    page.setDefaultTimeout(30_000)
    await page.goto(`${server.url}/sign-in`)
    await submitSignIn(page, 'admin', server.adminPassword)
    await expectScreen(page, 'Documents')
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('at 390 px a file row shows download and More actions on one line, and nothing scrolls sideways', async () => {
    const row = fileRow(page, 'Report.txt')
    await row.waitFor()
    // An admin sees Open in editor too (disabled, saying why): with no editor connected.
    assert.deepEqual(await visibleActions(row), [
      'Open Report.txt in the editor (no online editor is connected)',
      'Download Report.txt',
      'More actions for Report.txt',
    ])
    assert.equal(await actionLines(row), 1)
    // A folder row the same way: its zip download, then the menu.
    const plans = folderRow(page, 'Plans')
    assert.deepEqual(await visibleActions(plans), ['Download Plans as a zip archive', 'More actions for Plans'])
    await plans.getByRole('button', { name: 'More actions for Plans' }).click()
    assert.deepEqual(await page.getByRole('menu').getByRole('menuitem').allTextContents(), [
      'Share',
      'Move to',
      'Copy to',
      'Rename',
      'Delete',
    ])
    await page.keyboard.press('Escape')
    await page.getByRole('menu').waitFor({ state: 'detached' })
    assert.equal(await overflowsSideways(page), false)
    await b.screenshot('row-menu-documents-390')
  })

  test('the menu opens with Enter and Space, arrows move, Escape closes it and focus goes back', async () => {
    const more = fileRow(page, 'Report.txt').getByRole('button', { name: 'More actions for Report.txt' })
    await more.focus()
    await page.keyboard.press('Enter')
    const menu = page.getByRole('menu', { name: 'More actions for Report.txt' })
    await menu.waitFor()
    assert.equal(await more.getAttribute('aria-expanded'), 'true')
    assert.deepEqual(await menu.getByRole('menuitem').allTextContents(), [
      'Versions',
      'Share',
      'Move to',
      'Copy to',
      'Rename',
      'Delete',
    ])
    assert.equal(await focusedName(page), 'Versions')
    await page.keyboard.press('ArrowDown')
    assert.equal(await focusedName(page), 'Share')
    await page.keyboard.press('ArrowUp')
    await page.keyboard.press('ArrowUp')
    assert.equal(await focusedName(page), 'Delete', 'ArrowUp from the first entry wraps to the last')
    await b.screenshot('row-menu-open-390')
    await page.keyboard.press('Escape')
    await menu.waitFor({ state: 'detached' })
    assert.equal(await focusedName(page), 'More actions for Report.txt')
    assert.equal(await more.getAttribute('aria-expanded'), 'false')
    // Escape closed only the menu: the page and its rows are as they were.
    assert.equal(await fileRow(page, 'Report.txt').count(), 1)
    await page.keyboard.press(' ')
    await menu.waitFor()
    assert.equal(await focusedName(page), 'Versions')
    await page.keyboard.press('Escape')
    await menu.waitFor({ state: 'detached' })
  })

  test('rename a file through More actions with the keyboard alone; focus comes back to the menu button', async () => {
    const more = fileRow(page, 'Report.txt').getByRole('button', { name: 'More actions for Report.txt' })
    await more.focus()
    await page.keyboard.press('Enter')
    await page.getByRole('menu').waitFor()
    await page.keyboard.press('End')
    await page.keyboard.press('ArrowUp')
    assert.equal(await focusedName(page), 'Rename')
    await page.keyboard.press('Enter')
    const input = page.getByRole('textbox', { name: 'New name for Report.txt' })
    await input.waitFor()
    await input.fill('Summary.txt')
    await page.keyboard.press('Enter')
    await fileRow(page, 'Summary.txt').waitFor()
    const listed = await call(server.url, 'GET', '/api/2.0/files/@my', { token: admin })
    const titles = (listed.json.response.files as Array<{ title: string }>).map((file) => file.title).sort()
    assert.deepEqual(titles, ['Notes.txt', 'Summary.txt'])
    await page.waitForFunction(
      () => document.activeElement?.getAttribute('aria-label') === 'More actions for Summary.txt',
    )
  })

  test('a click on Delete in the menu asks first, as the row button does', async () => {
    await fileRow(page, 'Notes.txt').getByRole('button', { name: 'More actions for Notes.txt' }).click()
    await page.getByRole('menuitem', { name: 'Delete' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.waitFor()
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    assert.equal(await fileRow(page, 'Notes.txt').count(), 1)
  })

  test('at 1280 px the row shows every action inline and no More actions button', async () => {
    await page.setViewportSize(DESKTOP)
    const row = fileRow(page, 'Notes.txt')
    assert.deepEqual(await visibleActions(row), [
      'Open Notes.txt in the editor (no online editor is connected)',
      'Download Notes.txt',
      'Versions of Notes.txt',
      'Share Notes.txt',
      'Move Notes.txt to…',
      'Copy Notes.txt to…',
      'Rename Notes.txt',
      'Delete Notes.txt',
    ])
    assert.equal(await row.getByRole('button', { name: 'More actions for Notes.txt' }).isVisible(), false)
    await b.screenshot('row-menu-documents-1280')
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })
})
