import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { createUser } from '../../src/app/accounts/accounts.js'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call } from '../support/portal-client.js'
import { fileRow, tabTo, unexpectedErrors } from '../support/web-ui.js'

/** Waits until the focused element's accessible name (or id, with '#') is `expected`. */
async function expectFocus(page: Page, expected: string): Promise<void> {
  try {
    await page.waitForFunction(
      (want) => {
        const element = document.activeElement
        if (!(element instanceof HTMLElement)) return false
        if (want.startsWith('#')) return element.id === want.slice(1)
        return (element.getAttribute('aria-label') ?? element.textContent?.trim() ?? '') === want
      },
      expected,
      { timeout: 30_000 },
    )
  } catch {
    const actual = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120) ?? 'nothing')
    assert.fail(`focus should be on "${expected}", it is on ${actual}`)
  }
}

describe('web interface with the keyboard alone (a member, not an admin)', () => {
  let server: TestServer
  let b: TestBrowser
  let page: Page

  before(async () => {
    server = await startTestServer()
    await createUser(server.ctx, { userName: 'kim', password: 'kim-password-1', displayName: 'Kim Lee' })
    b = await launchBrowser()
    page = b.page
    page.setDefaultTimeout(30_000)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('sign in, upload, create, rename, delete and sign out without a mouse', async () => {
    await page.goto(`${server.url}/`)
    await page.getByRole('heading', { name: 'Sign in to Folio' }).waitFor()
    // The user name field has focus on arrival.
    await expectFocus(page, '#sign-in-user')
    await page.keyboard.type('kim')
    await page.keyboard.press('Tab')
    await page.keyboard.type('kim-password-1')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor()
    // A member sees no People page.
    assert.equal(await page.getByRole('link', { name: 'People' }).count(), 0)

    // Upload: Enter on the button opens the file chooser.
    await tabTo(page, 'Upload files')
    const chooser = page.waitForEvent('filechooser')
    await page.keyboard.press('Enter')
    await (await chooser).setFiles([{ name: 'Typed notes.txt', mimeType: 'text/plain', buffer: Buffer.from('typed') }])
    await fileRow(page, 'Typed notes.txt').waitFor()

    // Create: the dialog opens with its name field focused; Enter creates.
    await page.keyboard.press('Shift+Tab')
    await page.locator('h1').focus()
    await tabTo(page, 'New spreadsheet')
    await page.keyboard.press('Enter')
    await page.getByRole('dialog', { name: 'New spreadsheet' }).waitFor()
    await expectFocus(page, '#new-file-name')
    await page.keyboard.type('Keyboard budget')
    await page.keyboard.press('Enter')
    await fileRow(page, 'Keyboard budget.xlsx').waitFor()
    // Focus went back to where it was, so the flow goes on from there.
    await expectFocus(page, 'New spreadsheet')

    // Rename: the input takes focus with the name (not the extension) selected.
    await page.locator('h1').focus()
    await tabTo(page, 'Rename Keyboard budget.xlsx')
    await page.keyboard.press('Enter')
    await expectFocus(page, 'New name for Keyboard budget.xlsx')
    await page.keyboard.type('Keyboard forecast')
    await page.keyboard.press('Enter')
    await fileRow(page, 'Keyboard forecast.xlsx').waitFor()
    await page.getByRole('button', { name: 'Rename Keyboard forecast.xlsx' }).waitFor()
    await b.screenshot('keyboard-focus')

    // Delete: Cancel has focus first; Tab to Delete, Enter.
    await page.locator('h1').focus()
    await tabTo(page, 'Delete Keyboard forecast.xlsx')
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Delete this file?' })
    await dialog.waitFor()
    await expectFocus(page, 'Cancel')
    await page.keyboard.press('Tab')
    await expectFocus(page, 'Delete')
    await page.keyboard.press('Enter')
    await fileRow(page, 'Keyboard forecast.xlsx').waitFor({ state: 'detached' })

    // Escape closes a dialog without doing anything.
    await page.locator('h1').focus()
    await tabTo(page, 'Delete Typed notes.txt')
    await page.keyboard.press('Enter')
    await dialog.waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    assert.equal(await fileRow(page, 'Typed notes.txt').count(), 1)

    // Versions and back, by keyboard.
    await page.locator('h1').focus()
    await tabTo(page, 'Versions of Typed notes.txt')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Versions of Typed notes.txt' }).waitFor()
    await tabTo(page, '← Back to Documents')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor()

    await tabTo(page, 'Sign out')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Sign in to Folio' }).waitFor()
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })

  test('a member opening /people is told it is for admins; the API agrees', async () => {
    await page.getByLabel('User name').fill('kim')
    await page.getByLabel('Password').fill('kim-password-1')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor()
    await page.goto(`${server.url}/people`)
    await page.getByRole('heading', { name: 'Only admins can manage people' }).waitFor()
    const cookie = (await page.context().cookies(server.url)).find((c) => c.name === 'folio_session')
    // Every signed-in person may look people up (to share with them), but only admins add
    // accounts: the same session creating one is refused.
    const reply = await call(server.url, 'POST', '/api/2.0/people', {
      headers: { Cookie: `folio_session=${cookie?.value}`, 'X-Folio-Request': '1' },
      body: { userName: 'sneaky', password: 'sneaky-password-1' },
    })
    assert.equal(reply.status, 403)
    assert.equal(reply.json.error.type, 'FORBIDDEN')
  })
})
